"""Duplicate-deal evaluation of two policies.

    python -m training.evaluate --a heuristic --b random --hands 1000
    python -m training.evaluate --a checkpoints/run/model.zip --b heuristic --hands 2000 --workers 2 --json
    python -m training.evaluate --a heuristic --b random --games 20
    python -m training.evaluate --a heuristic --b random --hands 1000 --variant hand_and_foot

POLICY is ``random``, ``heuristic``, ``search``, ``reference``, a policy file path
(:mod:`canasta_env.bots.loader`) or ``module:attribute``, a policy written outside this
package (:mod:`canasta_env.bots.outside`; a class gets one instance per seat and per
episode), e.g. ``--a mybots:MemoryBot``; the workers import the module themselves.

Duplicate deals: deal ``i`` has an env seed derived from ``--seed`` and ``i``; it is played
twice through :class:`canasta_env.raw_env`, first with A at seats 0+2 (partnership 0),
then with A at seats 1+3, so each partnership plays both sides of the same cards, dealer
and starting scores. ``--hands N`` plays ``ceil(N / 2)`` deals (``2 * ceil(N / 2)``
hands), one hand per episode, with ``starting_scores="sample"``: each deal's two
cumulative scores are drawn by the env from the deal's seed (uniform over the four
score bands), so every opening minimum (15 / 50 / 90 / 120) occurs. In Hand and Foot
(``--variant hand_and_foot``) the minimum goes by round: each deal's round is drawn
too (``starting_round="sample"``), so all four minimums 60 / 90 / 120 / 150 occur;
``--games`` plays the four rounds. ``--games N`` plays
``ceil(N / 2)`` deals of whole games (``episode="game"``, to 5,000, from 0 : 0) instead;
the unit of the win rate and score difference is then a game.

Figures (unit = hand, or game with ``--games``):

- win rate of A: (wins + ties / 2) / units -- a tie (score difference 0) counts as half a
  win; ties are also reported on their own. 95% Wilson interval over the units.
- mean score difference A - B per unit with a 95% normal-approximation (z = 1.96)
  interval computed over deals (the mean of each deal's two seatings), since the two
  seatings of a deal are correlated by design.
- opening success per opening minimum, for A and B: of the hands where the
  partnership's minimum was k, the fraction in which it opened (read from the engine:
  ``raw_env.game.minimum`` at the start of the hand, ``raw_env.game.opened`` before the
  last decision, or the partnership went out).
- decisions per hand (all four seats).

Episodes cut by the env's ``max_decisions``, or stuck in a position where the seat on
turn has no legal action (an engine bug; none should occur), are counted as
``truncated`` (the stuck ones also as ``stuck``) and left out of the figures.

Policies and variants: both policies are loaded and checked against ``--variant`` before
the first deal (:func:`canasta_env.bots.loader.check_policy_variant`): a network of
another variant is one line on stderr and exit code 2, e.g. ``policy 'reference' is a
Classic policy (observation 202, 91 actions); this game is Hand and Foot (observation 245,
98 actions)``. ``reference`` is the variant's reference policy (Classic's or Hand and
Foot's network).

Ctrl-C (SIGINT): the deals finished so far (both seatings; with ``--workers``, those of
the jobs the workers finished) are summed up and printed as
the usual table (``--json``: the object, with ``"interrupted": true``), under a line
saying how many deals of how many were played; a line on stderr says it was interrupted;
exit code 130 (128 + SIGINT, the shell's convention). Exit codes: 0 done, 2 a bad option
or policy (one line on stderr), 130 interrupted.

Batches (``--batch K``, default 64): each process plays ``K`` deals side by side (both
seatings of each, every episode on its own env, each deal through the same
:class:`canasta_env.raw_env` with the same seed as one deal after another). At each step
every running episode makes one decision; the decisions waiting for a stateless policy
(heuristic, ONNX, a checkpoint in deterministic mode) are answered by one call of it,
``act_batch(observations float32 [R, OBS_SIZE], masks int8 [R, NUM_ACTIONS]) -> int64
[R]`` when it has that method (one forward of a network), else ``act`` row by row; a
policy that draws random numbers (random) gets one instance per running episode, reset
per episode as before (:mod:`canasta_env.batching`). The records are those of
:func:`play_episode` deal after deal (the unbatched path; ``tests/test_evaluate_batched.py``
compares them). A batched forward may differ from a batch-1 forward in the last bits of
a float, which could change an argmax only between two logits equal to rounding; none
was seen on the deals tested. Speed on the 2-core development machine, shared with other
jobs (load average about 4), ``--hands 1000 --seed 7 --workers 2 --json``, wall time:
``reference`` (the ONNX export) against ``random`` 7.3 to 9.1 s (12.5 to 13 s before
batching), against ``heuristic`` 12.9 s (17.5 to 18 s; the heuristic's own Python is
most of it); the ``.zip`` checkpoint against ``random`` 30 s, most of it two workers
importing torch (before: 0.9 hands/s, about 19 minutes for 1,000 hands: one torch forward
per decision on torch's default two threads; on the loaded machine one thread played
batch-1 forwards 30 times faster than two, so torch now plays on one thread).
:func:`measure_eval_hands_per_s` measures one process.

Determinism: the env, every policy (``reset(seed)`` per episode, seed derived from the
deal) and the deal seeds depend only on ``--seed``; ``--workers W`` splits the deals
into contiguous chunks (at most ``--batch`` deals each) played by ``W`` processes and
joins them in deal order, so the figures are identical for every ``W`` and every
``--batch``. The progress bar counts finished deals in every worker.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import multiprocessing
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from canasta_env import AGENTS, raw_env
from canasta_env.batching import act_rows, fork, is_stateless
from canasta_env.bots.loader import PolicySpecError, check_policy_variant, load_policy, variant_hint
from canasta_env.cli import ArgumentParser, fail, interrupted, positive_int
from canasta_env.engine import preset
from canasta_env.policies import Policy

Z95 = 1.959963984540054
#: decisions after which a whole-game episode is cut (hand episodes use the env default)
GAME_MAX_DECISIONS = 1_000_000
_SEAT = {a: i for i, a in enumerate(AGENTS)}


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C (``KeyboardInterrupt``) during an evaluation, carrying what was finished.

    Attributes:
        episodes: the records of the deals finished before the interrupt, both seatings
            of each, in deal order (:func:`play_match`).
        result: the figures of those deals (:func:`evaluate_policies`, with
            ``"interrupted": True``), or ``None`` when raised by :func:`play_match`.
        deals: the deals asked for.
    """

    def __init__(self, episodes: list, deals: int, result: dict | None = None) -> None:
        super().__init__(f"interrupted after {len(episodes) // 2} of {deals} deals")
        self.episodes = episodes
        self.deals = deals
        self.result = result


# ---------------------------------------------------------------------------- records
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


# ---------------------------------------------------------------------------- workers
#: Most worker processes an evaluation starts (each loads its own policies).
MAX_WORKERS = 64

_WORKER: dict = {}


def _init_worker(spec_a: str, spec_b: str, variant: str = "classic", counter=None) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool and prints what
    # was finished; the workers must not print tracebacks of their own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["a"] = load_policy(spec_a, variant=variant)
    _WORKER["b"] = load_policy(spec_b, variant=variant)
    _WORKER["counter"] = counter


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while the block runs (in the main thread; elsewhere nothing
    changes): processes started inside inherit the ignored signal, so Ctrl-C reaches
    only the parent even while a worker is still starting."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _count_deal(_deal: int) -> None:
    counter = _WORKER.get("counter")
    if counter is not None:
        with counter.get_lock():
            counter.value += 1


def _run_chunk(job: tuple[list[int], int, str, bool, int]) -> list[EpisodeRecord]:
    deals, seed, variant, games, batch = job
    return play_deals(_WORKER["a"], _WORKER["b"], deals, seed, variant, games, batch=batch,
                      on_deal=_count_deal)


def _chunks(n: int, size: int) -> list[list[int]]:
    return [list(range(i, min(n, i + size))) for i in range(0, n, size)]


# ---------------------------------------------------------------------------- statistics
def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` over ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    lo = 0.0 if p <= 0 else max(0.0, mid - half)
    hi = 1.0 if p >= 1 else min(1.0, mid + half)
    return (lo, hi)


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, tuple[float, float]]:
    """Mean and normal-approximation interval (``z`` standard errors)."""
    n = len(values)
    if n == 0:
        return 0.0, (0.0, 0.0)
    m = math.fsum(values) / n
    if n < 2:
        return m, (m, m)
    var = math.fsum((x - m) ** 2 for x in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return m, (m - half, m + half)


def summarize(episodes: Sequence[EpisodeRecord], levels: Sequence[int],
              unit: str = "hand") -> dict:
    """The evaluation figures (see the module docstring) of played episodes, in the
    order played."""
    done = [e for e in episodes if not e.truncated]
    n = len(done)
    wins = sum(1 for e in done if e.diff > 0)
    ties = sum(1 for e in done if e.diff == 0)
    losses = n - wins - ties
    win_rate = (wins + 0.5 * ties) / n if n else 0.0
    by_deal: dict[int, list[int]] = {}
    for e in done:
        by_deal.setdefault(e.deal, []).append(e.diff)
    mean_diff = math.fsum(e.diff for e in done) / n if n else 0.0
    _, deal_ci = mean_ci([sum(v) / len(v) for v in by_deal.values()])
    hands = [h for e in done for h in e.hands]
    opening: dict[str, dict[str, float | None]] = {}
    counts: dict[str, dict[str, int]] = {}
    for side in ("a", "b"):
        rates: dict[str, float | None] = {}
        cnt: dict[str, int] = {}
        for lv in levels:
            sel = [getattr(h, f"opened_{side}") for h in hands if getattr(h, f"minimum_{side}") == lv]
            cnt[str(lv)] = len(sel)
            rates[str(lv)] = (sum(sel) / len(sel)) if sel else None
        opening[side], counts[side] = rates, cnt
    nh = len(hands)
    out = {
        "unit": unit,
        "hands": nh,
        "deals": len(by_deal),
        "episodes": n,
        "truncated": len(episodes) - n,
        "stuck": sum(1 for e in episodes if e.stuck),
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "win_rate": win_rate,
        "win_rate_ci": list(wilson(win_rate, n)),
        "mean_score_diff": mean_diff,
        "score_diff_ci": list(deal_ci),
        "mean_hand_score_a": math.fsum(h.score_a for h in hands) / nh if nh else 0.0,
        "mean_hand_score_b": math.fsum(h.score_b for h in hands) / nh if nh else 0.0,
        "went_out_a": sum(h.went_out == "A" for h in hands) / nh if nh else 0.0,
        "went_out_b": sum(h.went_out == "B" for h in hands) / nh if nh else 0.0,
        "opening_success_a": opening["a"],
        "opening_success_b": opening["b"],
        "opening_hands_a": counts["a"],
        "opening_hands_b": counts["b"],
        "decisions_per_hand": math.fsum(h.decisions for h in hands) / nh if nh else 0.0,
    }
    if unit == "game":
        out["games"] = n
        out["hand_mean_score_diff"] = math.fsum(h.diff for h in hands) / nh if nh else 0.0
    return out


# ---------------------------------------------------------------------------- driver
def play_match(a: str | Policy, b: str | Policy, deals: int, *, seed: int = 0,
               variant: str = "classic", games: bool = False, workers: int = 1,
               progress: bool = False, batch: int = DEFAULT_BATCH) -> list[EpisodeRecord]:
    """Play deals ``0 .. deals - 1`` twice each (seatings swapped); the records in deal
    order, the same for every ``workers`` and ``batch`` (and the same as
    :func:`play_episode` deal after deal).

    Args:
        a, b: policy specs or policy objects (objects need ``workers=1``); both are
            checked against ``variant`` before the first deal (``reference``: the
            variant's reference policy, the heuristic while it has none).
        games: whole games per episode instead of one hand.
        workers: processes (``spawn``); each loads its own policies from the specs and
            plays contiguous chunks of deals.
        progress: tqdm progress bar on stderr (hands or games, rate, time left).
        batch: deals played side by side per process (:func:`play_deals`), >= 1.

    Raises:
        ValueError: bad counts or ``batch``, or policy objects with ``workers > 1``; an
            unknown variant (``canasta_env.engine.OptionsError``).
        PolicySpecError: a spec names no policy.
        PolicyVariantError: a policy was built for another variant (a
            ``PolicySpecError``).
        EvaluationInterrupted: Ctrl-C; its ``episodes`` are the deals finished (in deal
            order, both seatings each).
    """
    if not isinstance(deals, int) or deals < 1:
        raise ValueError(f"the number of deals must be a positive int, got {deals!r}")
    if not isinstance(workers, int) or isinstance(workers, bool) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be an int from 1 to {MAX_WORKERS}, got {workers!r}")
    check_batch(batch)
    if workers > 1 and not (isinstance(a, str) and isinstance(b, str)):
        raise ValueError("workers > 1 needs policy specs (strings), not policy objects")
    workers = min(workers, deals)  # never more processes than deals
    # load and check here even with workers: a bad spec or a policy of another variant
    # fails at once, before the first deal, not inside a worker
    preset(variant)
    pols = []
    for spec in (a, b):
        if isinstance(spec, str):
            pols.append(load_policy(spec, variant=variant))
        else:
            check_policy_variant(spec, variant)
            pols.append(spec)
    pol_a, pol_b = pols
    from tqdm import tqdm

    episodes: list[EpisodeRecord] = []
    try:
        with tqdm(total=2 * deals, unit="game" if games else "hand", file=sys.stderr,
                  disable=not progress, desc=f"{_label(a)} vs {_label(b)}") as bar:
            if workers == 1:
                play_deals(pol_a, pol_b, range(deals), seed, variant, games, out=episodes,
                           batch=batch, on_deal=lambda _d: bar.update(2))
            else:
                ctx = multiprocessing.get_context("spawn")
                counter = ctx.Value("q", 0)  # deals finished in all workers
                jobs = [(c, seed, variant, games, batch)
                        for c in _chunks(deals, _chunk_size(deals, workers, batch))]
                with _sigint_ignored():  # the workers start with SIGINT ignored
                    pool = ctx.Pool(workers, initializer=_init_worker,
                                    initargs=(a, b, variant, counter))
                with pool:
                    results = pool.imap(_run_chunk, jobs)
                    for _ in jobs:
                        while True:
                            try:
                                res = results.next(timeout=0.2)
                                break
                            except multiprocessing.TimeoutError:
                                bar.update(max(0, 2 * counter.value - bar.n))
                        episodes.extend(res)
                        bar.update(max(0, max(len(episodes), 2 * counter.value) - bar.n))
    except KeyboardInterrupt:
        del episodes[len(episodes) // 2 * 2:]  # a deal counts once both seatings are played
        raise EvaluationInterrupted(episodes, deals) from None
    return episodes


def _chunk_size(deals: int, workers: int, batch: int) -> int:
    """Deals per job of a worker: at most one batch (a job's deals are all in flight at
    once; Ctrl-C loses at most the unfinished job of each worker), and at least four jobs
    per worker when there are enough deals (a worker that finishes early takes over
    work). The drain at the end of a job (fewer episodes left to batch) measured no
    slower than one long stream."""
    return max(1, min(batch, math.ceil(deals / (workers * 4))))


def evaluate_policies(a: str | Policy, b: str | Policy, hands: int = 1000, *,
                      games: int | None = None, variant: str = "classic", seed: int = 0,
                      workers: int = 1, progress: bool = False,
                      batch: int = DEFAULT_BATCH) -> dict:
    """Evaluate A against B on duplicate deals; returns the figures of :func:`summarize`
    plus the run's parameters (``a``, ``b``, ``seed``, ``variant``, ``workers``,
    ``seconds``).

    Args:
        a, b: policy specs (``"random"``, ``"heuristic"``, a checkpoint path) or policy
            objects (objects need ``workers=1``).
        hands: hands to play (rounded up to an even number: two per deal).
        games: play this many whole games (rounded up to even) instead of hands.
        workers: processes; the figures do not depend on it.
        progress: tqdm progress bar on stderr.
        batch: deals played side by side per process (>= 1); the figures do not depend
            on it.

    Raises:
        ValueError: bad counts or ``batch``, or policy objects with ``workers > 1``; an unknown
            variant (``canasta_env.engine.OptionsError``).
        PolicySpecError: a spec names no policy.
        PolicyVariantError: a policy was built for another variant (a
            ``PolicySpecError``); raised before the first deal.
        EvaluationInterrupted: Ctrl-C; its ``result`` holds the figures of the deals
            finished (with ``"interrupted": True``, ``"deals_requested"``).
    """
    count = hands if games is None else games
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ValueError(f"the number of {'hands' if games is None else 'games'} must be a "
                         f"positive int, got {count!r}")
    is_games = games is not None
    t0 = time.perf_counter()
    unit = "game" if is_games else "hand"
    try:
        episodes = play_match(a, b, (count + 1) // 2, seed=seed, variant=variant,
                              games=is_games, workers=workers, progress=progress, batch=batch)
    except EvaluationInterrupted as stop:
        out = summarize(stop.episodes, opening_levels(variant), unit)
        out.update(a=_label(a), b=_label(b), seed=seed, variant=variant, workers=workers,
                   seconds=round(time.perf_counter() - t0, 2), interrupted=True,
                   deals_requested=stop.deals)
        stop.result = out
        raise
    out = summarize(episodes, opening_levels(variant), unit)
    out.update(a=_label(a), b=_label(b), seed=seed, variant=variant, workers=workers,
               seconds=round(time.perf_counter() - t0, 2))
    return out


def measure_eval_hands_per_s(hands: int | None = None, seconds: float | None = None, *,
                             seed: int = 0, batch: int = DEFAULT_BATCH) -> float:
    """Evaluation speed: duplicate hands per second of ``reference`` against ``random``
    (Classic), played by :func:`play_deals` in this process (one worker, ``batch`` deals
    side by side); the policies are loaded before the clock starts.

    Args:
        hands: play this many hands (rounded up to even: two per deal), or
        seconds: play deals until this much time has passed (the deals in flight then
            finish and count). Default: ``hands=400``.
        seed: evaluation seed (deals as in :func:`play_match`).
        batch: deals in flight (>= 1).

    Returns:
        Hands finished divided by the wall time of playing them (``time.perf_counter``).

    Raises:
        ValueError: both or a non-positive ``hands`` / ``seconds``, a bad ``batch``.
        PolicySpecError: the reference policy is not available.
    """
    if hands is not None and seconds is not None:
        raise ValueError("give hands or seconds, not both")
    if seconds is None:
        hands = 400 if hands is None else hands
        if not isinstance(hands, int) or isinstance(hands, bool) or hands < 1:
            raise ValueError(f"hands must be a positive int, got {hands!r}")
    elif not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    check_batch(batch)
    a, b = load_policy("reference", variant="classic"), load_policy("random", variant="classic")
    t0 = time.perf_counter()
    if seconds is None:
        deals: Iterable[int] = range((hands + 1) // 2)
    else:
        deadline = t0 + seconds
        deals = itertools.takewhile(lambda _d: time.perf_counter() < deadline, itertools.count())
    records = play_deals(a, b, deals, seed, batch=batch)
    return len(records) / (time.perf_counter() - t0)


def opening_levels(variant: str = "classic") -> list[int]:
    """The opening minimums (points) of a variant, lowest first (Hand and Foot: by
    round)."""
    o = preset(variant)
    return sorted(set(o.round_minimums)) if o.round_minimums else \
        [m for _, m in o.opening_minimums]


def _label(p: str | Policy) -> str:
    return p if isinstance(p, str) else getattr(p, "name", type(p).__name__)


def format_table(r: dict) -> str:
    """The figures as a plain-text table."""
    unit = r["unit"]
    lo, hi = r["win_rate_ci"]
    dlo, dhi = r["score_diff_ci"]
    rows = [
        (f"{unit}s played", f"{r['episodes']} ({r['deals']} deals x 2 seatings)"
         + (f", {r['hands']} hands" if unit == "game" else "")),
        ("A / B", f"{r['a']} / {r['b']}"),
        ("A wins / ties / losses", f"{r['wins']} / {r['ties']} / {r['losses']}"),
        ("win rate of A (tie = 1/2)", f"{r['win_rate']:.3f}  95% CI [{lo:.3f}, {hi:.3f}]"),
        (f"mean score diff A-B per {unit}",
         f"{r['mean_score_diff']:+.1f}  95% CI [{dlo:+.1f}, {dhi:+.1f}]"),
        ("mean hand score A / B", f"{r['mean_hand_score_a']:.1f} / {r['mean_hand_score_b']:.1f}"),
        ("went out A / B", f"{r['went_out_a']:.3f} / {r['went_out_b']:.3f}"),
    ]
    for side in ("a", "b"):
        parts = []
        for lv, rate in r[f"opening_success_{side}"].items():
            n = r[f"opening_hands_{side}"][lv]
            parts.append(f"{lv}: " + ("  n/a" if rate is None else f"{rate:.3f}") + f" (n={n})")
        rows.append((f"opening success {side.upper()} by minimum", ", ".join(parts)))
    rows.append(("decisions per hand", f"{r['decisions_per_hand']:.1f}"))
    if r["truncated"]:
        rows.append(("truncated / stuck (left out)", f"{r['truncated']} / {r['stuck']}"))
    rows.append(("time", f"{r['seconds']:.1f} s, {r['workers']} worker(s), seed {r['seed']}"))
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.evaluate`` (``canasta-evaluate``); ``argv`` defaults to
    ``sys.argv[1:]``. Returns the exit code: 0, 2 for a bad policy or count (one line on
    stderr), 130 after Ctrl-C (the table of the deals finished is printed).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog="python -m training.evaluate",
                       description="Duplicate-deal evaluation of policy A against B.")
    p.add_argument("--a", required=True,
                   help="policy A: random, heuristic, search, reference, a checkpoint path "
                        "or module:attribute (a policy class or object of your own)")
    p.add_argument("--b", required=True,
                   help="policy B: random, heuristic, search, reference, a checkpoint path "
                        "or module:attribute (a policy class or object of your own)")
    p.add_argument("--hands", type=positive_int, default=None,
                   help="hands to play (2 per deal; default 1000)")
    p.add_argument("--games", type=positive_int, default=None,
                   help="play this many whole games instead of single hands (Classic: to "
                        "5,000; Hand and Foot: four rounds)")
    p.add_argument("--variant", default="classic", choices=["classic", "hand_and_foot"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--batch", type=positive_int, default=DEFAULT_BATCH,
                   help=f"deals played side by side per worker, one policy call per step for "
                        f"all of them (default {DEFAULT_BATCH}; the figures do not depend on it)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.hands is not None and args.games is not None:
        p.error("give --hands or --games, not both")
    try:
        r = evaluate_policies(args.a, args.b, 1000 if args.hands is None else args.hands,
                              games=args.games, variant=args.variant, seed=args.seed,
                              workers=args.workers, progress=not args.no_progress,
                              batch=args.batch)
    except EvaluationInterrupted as stop:
        r, played = stop.result, len(stop.episodes) // 2
        if args.json:
            print(json.dumps(r))
        else:
            print(f"interrupted: {played} of {stop.deals} deals played (both seatings); "
                  f"the figures of those deals:")
            print(format_table(r))
        return interrupted(p.prog, f"{played} of {stop.deals} deals finished")
    except KeyboardInterrupt:  # while the policies load, before any deal
        return interrupted(p.prog, "before the first deal")
    except (PolicySpecError, ValueError) as e:
        return fail(p.prog, variant_hint(e, specs=(args.a, args.b)))
    print(json.dumps(r) if args.json else format_table(r))
    return 0


__all__ = ["HandRecord", "EpisodeRecord", "EvaluationInterrupted", "deal_seed", "make_env", "play_episode",
           "play_deals", "play_match", "opening_levels", "summarize", "evaluate_policies",
           "format_table", "wilson", "mean_ci", "main", "DEFAULT_BATCH", "check_batch",
           "measure_eval_hands_per_s"]

if __name__ == "__main__":
    raise SystemExit(main())
