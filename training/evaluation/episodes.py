"""Playing duplicate deals: one episode (:func:`play_episode`), many deals side by side
in one process (:func:`play_deals`), and the records they leave (:class:`HandRecord`,
:class:`EpisodeRecord`). The rules of a duplicate evaluation, its figures and its command
are :mod:`training.evaluation.duplicate`'s.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from canasta_env import AGENTS, raw_env
from canasta_env.batching import act_rows, fork, is_stateless
from canasta_env.engine import preset
from canasta_env.policies import Policy

#: decisions after which a whole-game episode is cut (hand episodes use the env default)
GAME_MAX_DECISIONS = 1_000_000


_SEAT = {a: i for i, a in enumerate(AGENTS)}


@dataclass(frozen=True)
class HandRecord:
    """One finished hand, from A's point of view."""

    deal: int
    seating: int  # 0: A at seats 0+2, 1: A at seats 1+3
    score_a: int  # hand scores
    score_b: int
    minimum_a: int  # opening minimums (points)
    minimum_b: int
    opened_a: bool
    opened_b: bool
    went_out: str  # "A", "B" or "" (stock exhausted)
    decisions: int

    @property
    def diff(self) -> int:
        return self.score_a - self.score_b


@dataclass(frozen=True)
class EpisodeRecord:
    """One episode (a hand, or a whole game): its hands and A - B result."""

    deal: int
    seating: int
    hands: tuple[HandRecord, ...]
    total_a: int  # hand mode: hand scores; game mode: final cumulative scores
    total_b: int
    truncated: bool
    stuck: bool = False  # the env offered the seat on turn no legal action (engine bug)

    @property
    def diff(self) -> int:
        return self.total_a - self.total_b


def deal_seed(seed: int, deal: int) -> int:
    """Env seed of deal ``deal`` under evaluation seed ``seed`` (stable across processes
    and Python versions: string seeding hashes with SHA-512)."""
    return random.Random(f"canasta-eval/{seed}/{deal}").getrandbits(63)


def make_env(variant: str = "classic", games: bool = False) -> raw_env:
    """The env an evaluation plays: one hand per episode with sampled starting scores
    (and, for Hand and Foot, a sampled round), or whole games from 0 : 0."""
    if games:
        return raw_env(variant=variant, episode="game", max_decisions=GAME_MAX_DECISIONS)
    rounds = "sample" if preset(variant).rounds else 1
    return raw_env(variant=variant, episode="hand", starting_scores="sample",
                   starting_round=rounds)


class _Episode:
    """One episode being played on its own env: the bookkeeping of :func:`play_episode`,
    one decision at a time, so that many episodes can run side by side.

    ``seat_policies[s]`` plays seat ``s``; a policy class named ``module:Class``
    (:class:`canasta_env.bots.outside.PolicyClass`) is replaced by a handle of its own per
    seat (:attr:`seats`); each distinct policy object is reset once at the start with a
    seed derived from ``seed``, ``seating`` and its first seat (a class: a new instance).
    """

    __slots__ = ("env", "seats", "deal", "seating", "hands", "hand_no", "minimum",
                 "decisions", "stuck", "opened", "record")

    def __init__(self, env: raw_env, seat_policies: Sequence[Policy], seed: int, deal: int,
                 seating: int) -> None:
        # a policy class (module:Class) gets its own instance per seat and per episode
        seat_policies = [p.for_seat() if hasattr(p, "for_seat") else p for p in seat_policies]
        self.env, self.seats, self.deal, self.seating = env, seat_policies, deal, seating
        env.reset(seed=seed)
        seen: set[int] = set()
        for s, p in enumerate(seat_policies):
            if id(p) not in seen:
                seen.add(id(p))
                hook = getattr(p, "reset", None)  # optional for a policy of one's own
                if hook is not None:
                    hook(random.Random(f"{seed}/{seating}/{s}").getrandbits(63))
        self.hands: list[HandRecord] = []
        self.hand_no, self.minimum, _ = env.openings()
        self.decisions = 0
        self.stuck = False
        self.opened: list[bool] = []
        self.record: EpisodeRecord | None = None

    def request(self) -> tuple[int, np.ndarray, np.ndarray] | None:
        """The decision waiting: (seat on turn, observation float32 ``(OBS_SIZE,)``, mask
        int8 ``(NUM_ACTIONS,)``); ``None`` once the episode is over (:attr:`record`
        set)."""
        if self.record is not None:
            return None
        env = self.env
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            self._finish()
            return None
        obs = env.observe(agent)
        if not obs["action_mask"].any():
            self.stuck = True
            self._finish()
            return None
        self.opened = env.openings()[2]
        return _SEAT[agent], obs["observation"], obs["action_mask"]

    def step(self, action: int) -> None:
        """Play ``action`` for the seat on turn (after :meth:`request`).

        Raises:
            canasta_env.engine.IllegalActionError: ``action`` is illegal.
        """
        env = self.env
        env.step(action)
        self.decisions += 1
        terms, truncs, infos = env.terminations, env.truncations, env.infos
        if any(truncs.values()):
            self._finish()
            return
        number, new_minimum, _ = env.openings()
        if number != self.hand_no or any(terms.values()):
            sheets = infos[AGENTS[0]]["score_sheets"]
            out = [sheets[t]["going_out"] > 0 for t in (0, 1)]
            a, b = self.seating, 1 - self.seating
            opened, minimum = self.opened, self.minimum
            self.hands.append(HandRecord(
                deal=self.deal, seating=self.seating,
                score_a=sheets[a]["hand_score"], score_b=sheets[b]["hand_score"],
                minimum_a=minimum[a], minimum_b=minimum[b],
                opened_a=opened[a] or out[a], opened_b=opened[b] or out[b],
                went_out="A" if out[a] else "B" if out[b] else "", decisions=self.decisions))
            self.decisions = 0
            self.hand_no, self.minimum = number, new_minimum

    def _finish(self) -> None:
        env, hands, a_team = self.env, tuple(self.hands), self.seating
        if self.stuck or any(env.truncations.values()) or not hands:
            self.record = EpisodeRecord(self.deal, a_team, hands, 0, 0, True, self.stuck)
        elif env.episode == "hand":
            h = hands[-1]
            self.record = EpisodeRecord(self.deal, a_team, hands, h.score_a, h.score_b, False)
        else:
            sheets = env.infos[AGENTS[0]]["score_sheets"]
            self.record = EpisodeRecord(self.deal, a_team, hands, sheets[a_team]["total"],
                                        sheets[1 - a_team]["total"], False)


def play_episode(env: raw_env, seat_policies: Sequence[Policy], seed: int, deal: int = 0,
                 seating: int = 0) -> EpisodeRecord:
    """Play one episode of ``env`` from ``env.reset(seed=seed)``, one ``act`` call per
    decision; ``seat_policies[s]`` plays seat ``s``; A is partnership ``seating`` (seats
    ``seating`` and ``seating + 2``). Each distinct policy object is reset once with a
    seed derived from ``seed`` and its side. :func:`play_deals` plays the same episodes
    side by side with the same records.

    Raises:
        canasta_env.engine.IllegalActionError: a policy chose an illegal action.
    """
    ep = _Episode(env, seat_policies, seed, deal, seating)
    while (req := ep.request()) is not None:
        seat, obs, mask = req
        ep.step(_act(ep.seats[seat], ep, seat, obs, mask))
    return ep.record


def _act(policy: Policy, ep: "_Episode", seat: int, obs: np.ndarray, mask: np.ndarray) -> int:
    """One decision: ``act_game`` with the episode's game for a policy that needs the
    game (:class:`canasta_env.search.SearchPolicy`), else ``act``."""
    act_game = getattr(policy, "act_game", None)
    if act_game is not None:
        return act_game(ep.env.game, seat)
    return policy.act(obs, mask)


#: Deals in flight per process by default (``--batch``): both seatings of each are played
#: side by side, so a stateless policy sees up to twice this many rows per call.
DEFAULT_BATCH = 64


def check_batch(batch: object) -> int:
    """``batch`` (deals in flight per process) if it is an int >= 1.

    Raises:
        ValueError: anything else, e.g. ``batch must be an int >= 1 (deals played side by
            side per process), got 0``.
    """
    if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
        raise ValueError(f"batch must be an int >= 1 (deals played side by side per "
                         f"process), got {batch!r}")
    return batch


def play_deals(policy_a: Policy, policy_b: Policy, deals: Iterable[int], seed: int,
               variant: str = "classic", games: bool = False,
               out: list[EpisodeRecord] | None = None, *, batch: int = DEFAULT_BATCH,
               on_deal: Callable[[int], None] | None = None) -> list[EpisodeRecord]:
    """Play each deal index in ``deals`` twice (A at seats 0+2, then 1+3), ``batch`` deals
    side by side, each episode on its own env; the records are those of
    :func:`play_episode` deal by deal, whatever ``batch``.

    At each step every running episode makes one decision: the decisions waiting for a
    stateless policy (:func:`canasta_env.batching.is_stateless`: heuristic, ONNX, a
    checkpoint in deterministic mode) are answered by one call of it
    (:func:`canasta_env.batching.act_rows`: ``act_batch`` with observations float32
    ``[R, OBS_SIZE]`` and masks int8 ``[R, NUM_ACTIONS]`` when it has one, else ``act``
    per row); any other policy (random) is forked once per episode slot
    (:func:`canasta_env.batching.fork`) and reset per episode, as in
    :func:`play_episode`, so its draws do not depend on the batch.

    Args:
        deals: deal indexes (any iterable, read lazily as slots free up).
        out: list the records are appended to (a new list by default), deal by deal in
            the order of ``deals`` as soon as a deal and all before it are finished; on
            Ctrl-C every finished deal is appended (in that order) before the
            ``KeyboardInterrupt`` goes on.
        batch: deals in flight (>= 1).
        on_deal: called with the deal index each time a deal (both seatings) finishes.

    Returns:
        ``out``.

    Raises:
        ValueError: a bad ``batch``; what a policy raises for its inputs.
        TypeError: a stateful policy that cannot be forked (:func:`~canasta_env.batching.
            fork`).
        canasta_env.engine.IllegalActionError: a policy chose an illegal action.
    """
    check_batch(batch)
    with _torch_single_thread():
        return _play_deals(policy_a, policy_b, deals, seed, variant, games,
                           [] if out is None else out, batch, on_deal)


@contextlib.contextmanager
def _torch_single_thread():
    """torch (when a policy imported it) on one intra-op thread while the block runs: the
    batches are small, and torch's thread pool spinning against other processes on a
    loaded machine (a second worker, say) made batch-1 checkpoint play up to 30 times
    slower. Restored afterwards."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _play_deals(policy_a: Policy, policy_b: Policy, deals: Iterable[int], seed: int,
                variant: str, games: bool, out: list[EpisodeRecord], batch: int,
                on_deal: Callable[[int], None] | None) -> list[EpisodeRecord]:
    todo = ((d, seating) for d in deals for seating in (0, 1))
    shared = {id(p): p for p in (policy_a, policy_b) if is_stateless(p)}
    slots: list[dict | None] = []  # per slot: its env and its forks of stateful policies
    running: dict[int, _Episode] = {}  # slot -> episode
    finished: dict[int, list[EpisodeRecord | None]] = {}  # deal -> records by seating
    order: list[int] = []  # deals started, in order; order[flushed:] not yet in ``out``
    flushed = 0

    def start(slot: int) -> bool:
        nxt = next(todo, None)
        if nxt is None:
            return False
        d, seating = nxt
        if seating == 0:
            order.append(d)
            finished[d] = [None, None]
        if slots[slot] is None:
            own = {i: p for i, p in ((id(p), p) for p in (policy_a, policy_b)) if i not in shared}
            slots[slot] = {"env": make_env(variant, games),
                           "pols": {i: fork(p) for i, p in own.items()}}
        pols = {**shared, **slots[slot]["pols"]}
        a, b = pols[id(policy_a)], pols[id(policy_b)]
        seats = [a if p % 2 == seating else b for p in range(4)]
        running[slot] = _Episode(slots[slot]["env"], seats, deal_seed(seed, d), d, seating)
        return True

    def done(ep: _Episode) -> None:
        nonlocal flushed
        recs = finished[ep.deal]
        recs[ep.seating] = ep.record
        if recs[0] is not None and recs[1] is not None and on_deal is not None:
            on_deal(ep.deal)
        while flushed < len(order) and None not in finished[order[flushed]]:
            out.extend(finished.pop(order[flushed]))
            flushed += 1

    try:
        for slot in range(2 * batch):
            slots.append(None)
            if not start(slot):
                slots.pop()
                break
        while running:
            # every running episode's decision, grouped by the policy object to ask
            groups: dict[int, tuple[Policy, list[int], list, list]] = {}
            for slot, ep in list(running.items()):
                req = ep.request()
                while req is None:  # over: record it, start the next episode here
                    del running[slot]
                    done(ep)
                    if not start(slot):
                        break
                    ep = running[slot]
                    req = ep.request()
                if req is None:
                    continue
                seat, obs, mask = req
                pol = ep.seats[seat]
                g = groups.get(id(pol))
                if g is None:
                    g = groups[id(pol)] = (pol, [], [], [])
                g[1].append(slot)
                g[2].append(obs)
                g[3].append(mask)
            for pol, where, obs, masks in groups.values():
                if hasattr(pol, "act_game"):
                    actions = [_act(pol, running[s], _SEAT[running[s].env.agent_selection],
                                    o, m) for s, o, m in zip(where, obs, masks)]
                elif len(where) == 1 and id(pol) not in shared:
                    actions = [pol.act(obs[0], masks[0])]
                else:
                    actions = act_rows(pol, np.stack(obs), np.stack(masks))
                for slot, action in zip(where, actions):
                    running[slot].step(int(action))
    except KeyboardInterrupt:
        for d in order[flushed:]:  # the deals finished out of order
            if None not in finished[d]:
                out.extend(finished[d])
        raise
    return out
