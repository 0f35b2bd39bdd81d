"""Many partnership games in one process, on the native core's batched API, as one SB3
``VecEnv`` for sb3-contrib ``MaskablePPO``.

:class:`BatchedPartnershipVecEnv` is :class:`training.sb3.adapter.PartnershipEnv` for
``num_games`` games at once. Slot ``i`` of the vectorized env is game ``i`` of a
:class:`canasta_env.native.VectorGames`; in each game the learner plays one partnership
(drawn at every new hand) and an opponent drawn from the pool plays the other. The credit
rules are :mod:`training.sb3.adapter`'s: every transition of slot ``i`` is a decision of one
of the learner's seats in game ``i`` -- its observation and action mask are that seat's,
its reward is the learner partnership's (hand score difference times ``reward_scale`` at
the end of the hand, or +1 / -1 / 0 with ``reward="win_loss"``, or their sum with
``reward="win_loss_score"``; 0 before).

One :meth:`step` applies the learner's actions in every game (one batch, decided by one
forward of the learner's network), then plays the opponents' decisions until the learner
is on turn again in every game. The opponent seats of all games are decided together:

- ``random``: one call to the core's generator for the whole batch;
- ``heuristic``: :meth:`canasta_env.policies.HeuristicPolicy.act_batch` on the rows
  waiting for it (row by row with ``act`` when a heuristic has no batch method);
- ``styles`` (Classic): the heuristic's playing styles
  (:data:`canasta_env.policies.styles.STYLES`, the weight spread evenly over them), each
  decided like the heuristic, one batch per style;
- ``fixed`` (:meth:`set_fixed`): checkpoints in the pool from the first hand on, each with
  its weight, decided as snapshots are;
- ``snapshots``: sampled from each snapshot's masked policy over the rows it plays, the
  snapshots and fixed checkpoints waiting together in one stacked pass
  (:class:`training.sb3.stacked.StackedActors`; one pass per network where their
  architectures differ);
- ``self`` (self-play): the learner's current network plays the other partnership too,
  one forward per batch, sampling. Only the learner partnership's decisions of each
  game become transitions: SB3's ``VecEnv`` wants one pending decision per slot, and a
  game has one pending decision at a time, so the two sides' trajectories are kept
  apart by giving each game one recorded side (which side is drawn per hand).

A hand that reaches ``max_decisions`` decisions (all four seats) is truncated: the slot
reports ``done`` with ``infos[i]["TimeLimit.truncated"] = True`` and the learner's last
observation as ``terminal_observation`` (SB3 bootstraps it), and its game is dealt anew.

Deals come from ``VectorGames`` seeding (game ``i``'s hand ``k`` from ``(seed + i, k)``):
the same seed replays the same deals, opponents and random moves. Native deals differ
from the Python engine's for the same seed.

Timing (seconds since construction, for ``ppo_env_share``): :attr:`env_seconds` is the
wall time spent in :meth:`step_wait`, :meth:`reset` and :meth:`action_masks`;
:attr:`opponent_net_seconds` the part of it spent in opponents' network forwards.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from canasta_env.engine import preset
from canasta_env.policies.styles import STYLES

#: opponent kinds in :attr:`BatchedPartnershipVecEnv.opponent_kind`: style ``j`` (of
#: :data:`~canasta_env.policies.styles.STYLES`, in its order) is ``STYLE + j``, network
#: ``k`` (a snapshot or a fixed checkpoint) ``SNAPSHOT + k``
RANDOM, HEURISTIC, SELF, STYLE = 0, 1, 2, 3
SNAPSHOT = STYLE + len(STYLES)
#: the rewards of :class:`BatchedPartnershipVecEnv` (``TrainConfig.reward``'s choices)
REWARDS = ("score_diff", "win_loss", "win_loss_score")


def check_reward(reward: str) -> None:
    """Raises ``ValueError`` naming the choices unless ``reward`` is one of
    :data:`REWARDS`."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")


def native_reward_scale(reward: str, reward_scale: float) -> float:
    """The ``reward_scale`` to give :class:`canasta_env.native.VectorGames` for ``reward``:
    ``score_diff`` has the core scale the difference; the others read the unscaled
    difference (a tiny scale would underflow to 0 in float32) and :func:`hand_reward`
    scales it."""
    return reward_scale if reward == "score_diff" else 1.0


def hand_reward(diff: np.ndarray, reward: str, reward_scale: float) -> np.ndarray:
    """The reward for hands that ended with score difference ``diff`` (``float32 [B]``,
    points, unscaled, from the rewarded partnership's side), for ``reward`` in
    :data:`REWARDS`: ``score_diff`` ``reward_scale * diff``; ``win_loss`` its sign (+1 /
    -1 / 0); ``win_loss_score`` the sign plus ``reward_scale * diff``. Returns ``float32
    [B]``.

    Raises:
        ValueError: ``reward`` is not one of :data:`REWARDS`.
    """
    if reward == "win_loss":
        return np.sign(diff)
    if reward == "win_loss_score":
        return np.sign(diff) + np.float32(reward_scale) * diff
    check_reward(reward)
    return np.float32(reward_scale) * diff


def native_hand_reward(r: np.ndarray, reward: str, reward_scale: float) -> np.ndarray:
    """The reward for hands from the core's reward column ``r`` (``float32 [B]``) of a
    :class:`canasta_env.native.VectorGames` built with :func:`native_reward_scale`:
    ``score_diff`` as the core scaled it, the others :func:`hand_reward` of the unscaled
    difference. Returns ``float32 [B]``."""
    return r if reward == "score_diff" else hand_reward(r, reward, reward_scale)


class BatchedPartnershipVecEnv(VecEnv):
    """``num_games`` partnership games stepped in one process (see the module docstring).

    Observation: float32 ``(num_games, obs size of the variant)``; action: one int per
    game in ``Discrete(number of actions)``; reward: float32 ``(num_games,)``.

    Args:
        num_games: games (= slots of the vectorized env), >= 1.
        variant: ``"classic"`` or ``"hand_and_foot"``.
        pool: opponent weights ``{"random": w, "heuristic": w, "styles": w, "self": w}``
            (non-negative, not all zero unless snapshots are set later; ``styles`` only in
            Classic); drawn per game at every hand.
        seed: seed of the deals (game ``i`` gets ``seed + i``) and of the draws.
        reward: ``"score_diff"``, ``"win_loss"`` or ``"win_loss_score"`` (+1 / -1 / 0 plus
            the score difference times ``reward_scale``); reward_scale: reward per point
            (unused by ``"win_loss"``, which is the sign of the unscaled difference).
        max_decisions: decisions (all seats) after which a hand is truncated.
        starting_scores / starting_round: as :class:`canasta_env.raw_env`'s options.

    Raises:
        ValueError: a bad option (the message names it).
    """

    #: decide the network opponents waiting together in one stacked pass (False: one pass
    #: per network, the same distribution; for measuring the difference)
    stack_networks: bool = True

    def __init__(self, num_games: int, variant: str = "classic",
                 pool: dict[str, float] | None = None, seed: int = 0,
                 reward: str = "score_diff", reward_scale: float = 0.001,
                 max_decisions: int = 2000, starting_scores="sample", starting_round=1) -> None:
        from canasta_env.native import VectorGames, available

        if not available:
            raise ValueError("the batched training env needs the native core, which is not "
                             "built here (reinstall with a C compiler: pip install -e .), or "
                             "use vec_env: subproc")
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be an int >= 1, got {num_games!r}")
        check_reward(reward)
        if isinstance(max_decisions, bool) or not (isinstance(max_decisions, int)
                                                   and max_decisions >= 1):
            raise ValueError(f"max_decisions must be an int >= 1, got {max_decisions!r}")
        if pool is not None and not isinstance(pool, dict):
            raise ValueError(f"pool must be a dict of weights such as {{'random': 0.3, "
                             f"'heuristic': 0.7, 'self': 0.0}}, got {pool!r}"[:300])
        pool = dict(pool if pool is not None else {"random": 0.3, "heuristic": 0.7})
        unknown = set(pool) - {"random", "heuristic", "styles", "self"}
        if unknown:
            raise ValueError(f"unknown opponent kinds {sorted(unknown)}; use random, heuristic, "
                             f"styles, self (snapshots come from set_snapshots)")
        if any(not np.isfinite(w) or w < 0 for w in pool.values()):
            raise ValueError(f"opponent weights must be finite and >= 0, got {pool}")
        self.rules = preset(variant)
        if pool.get("styles", 0.0) > 0 and self.rules.variant != "classic":
            raise ValueError(f"styles opponents play Classic only (the heuristic's styles have "
                             f"no {variant} decision points), got styles weight "
                             f"{pool['styles']} for {variant}")
        if isinstance(reward_scale, bool) or not isinstance(reward_scale, (int, float)) or \
                not (np.isfinite(reward_scale) and reward_scale > 0):
            raise ValueError(f"reward_scale must be a positive finite number, got "
                             f"{reward_scale!r}")
        self.vg = VectorGames(num_games, self.rules, seed=seed,
                              reward_scale=native_reward_scale(reward, reward_scale),
                              starting_scores=starting_scores, starting_round=starting_round)
        obs_space = gym.spaces.Box(0.0, np.inf, (self.vg.obs_size,), np.float32)
        self.render_mode = None
        super().__init__(num_games, obs_space, gym.spaces.Discrete(self.vg.num_actions))
        self.variant = variant
        self.reward = reward
        self.reward_scale = float(reward_scale)
        self.max_decisions = max_decisions
        self._weights = {RANDOM: float(pool.get("random", 0.0)),
                         HEURISTIC: float(pool.get("heuristic", 0.0)),
                         SELF: float(pool.get("self", 0.0))}
        each = float(pool.get("styles", 0.0)) / len(STYLES)
        self._weights.update({STYLE + j: each for j in range(len(STYLES))})
        self._seed = int(seed)
        self._rng = np.random.default_rng(seed)
        self._snapshot_paths: list[str] = []
        self._snapshot_weight = 0.0
        self._snapshots: dict[str, object] = {}  # path -> loaded MaskablePPO policy
        self._stacked = None  # the network opponents in one pass (_stacked_networks)
        self._stacked_key: tuple[str, ...] | None = None
        self._fixed: dict[str, object] = {}  # path -> policy of a fixed opponent
        self._fixed_weights: dict[str, float] = {}
        self._game_snapshot: dict[int, str] = {}  # game -> path of the network it plays
        self._learner = None
        self._heuristic = None
        self._styles: dict[int, object] = {}  # kind -> HeuristicPolicy of that style
        self.team = np.zeros(num_games, np.int8)
        self.opponent_kind = np.zeros(num_games, np.int16)
        self.hand_decisions = np.zeros(num_games, np.int64)
        self._actions = np.zeros(num_games, np.int64)
        self._rows = np.arange(num_games)
        self.env_seconds = 0.0
        self.opponent_net_seconds = 0.0
        self.hands_finished = 0

    # -- opponents ------------------------------------------------------------------
    def set_learner(self, policy) -> None:
        """The learner's policy (``model.policy`` of MaskablePPO), for ``self`` opponents."""
        self._learner = policy

    def set_snapshots(self, paths: list[str], weight: float) -> None:
        """Frozen snapshots of the learner (checkpoint paths) to draw opponents from, with
        total weight ``weight``; games keep their current opponent until their next hand.

        Raises:
            training.sb3.checkpoint.CheckpointError: a file cannot be loaded.
            canasta_env.bots.PolicyVariantError: a snapshot of another variant.
        """
        from canasta_env.bots.loader import check_variant_sizes

        from .checkpoint import load_model

        paths = list(paths)
        for p in paths:
            if p not in self._snapshots:
                model = load_model(p)
                check_variant_sizes((int(model.observation_space.shape[0]),
                                     int(model.action_space.n)), self.rules, f"snapshot {p}")
                self._snapshots[p] = model.policy
        self._snapshot_paths = paths
        self._snapshot_weight = float(weight)
        # games playing a dropped snapshot keep it until their next hand
        playing = {p for g, p in self._game_snapshot.items()
                   if self.opponent_kind[g] >= SNAPSHOT}
        self._snapshots = {p: q for p, q in self._snapshots.items()
                           if p in paths or p in playing}
        self._stacked_key = None  # a path may name new weights now

    def set_fixed(self, weights: dict[str, float]) -> None:
        """Fixed opponents: checkpoints (``.zip`` paths) in the pool from the first hand on,
        each with its own weight, never replaced (e.g. a frozen reference to train a best
        response against, or past references in a league). Games keep their current
        opponent until their next hand.

        Raises:
            training.sb3.checkpoint.CheckpointError: a file cannot be loaded.
            canasta_env.bots.PolicyVariantError: a checkpoint of another variant.
            ValueError: a weight that is not a finite number >= 0.
        """
        from canasta_env.bots.loader import check_variant_sizes

        from .checkpoint import load_model

        loaded = {}
        for path, w in weights.items():
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not \
                    (np.isfinite(w) and w >= 0):
                raise ValueError(f"fixed opponent {path}: weight must be a finite number >= 0, "
                                 f"got {w!r}")
            model = self._fixed.get(path) or load_model(path)
            policy = getattr(model, "policy", model)
            if model is not policy:
                check_variant_sizes((int(model.observation_space.shape[0]),
                                     int(model.action_space.n)), self.rules,
                                    f"fixed opponent {path}")
            loaded[path] = policy
        # games playing a dropped checkpoint keep it until their next hand
        for g, p in self._game_snapshot.items():
            if self.opponent_kind[g] >= SNAPSHOT and p in self._fixed and p not in loaded:
                loaded[p] = self._fixed[p]
        self._fixed = loaded
        self._fixed_weights = {p: float(w) for p, w in weights.items()}
        self._stacked_key = None  # a path may name new weights now

    def _networks(self) -> tuple[list[str], list[float]]:
        """The network opponents (the learner's snapshots, then the fixed ones) and their
        weights; kind ``SNAPSHOT + j`` plays entry ``j``."""
        paths, weights = [], []
        if self._snapshot_paths and self._snapshot_weight > 0:
            each = self._snapshot_weight / len(self._snapshot_paths)
            paths += self._snapshot_paths
            weights += [each] * len(self._snapshot_paths)
        for path, w in self._fixed_weights.items():
            if w > 0:
                paths.append(path)
                weights.append(w)
        return paths, weights

    def _draw(self, games: np.ndarray) -> None:
        """New learner partnership and opponent for ``games`` (at the start of a hand)."""
        n = len(games)
        if n == 0:
            return
        kinds = [k for k, w in self._weights.items() if w > 0]
        weights = [self._weights[k] for k in kinds]
        nets, net_weights = self._networks()
        kinds += [SNAPSHOT + j for j in range(len(nets))]
        weights += net_weights
        if self._learner is None and SELF in kinds:
            raise ValueError("the pool has 'self' opponents, which play the learner's "
                             "network: call set_learner(model.policy) before reset()")
        if not kinds:
            raise ValueError("no opponent to draw: every pool weight is zero")
        p = np.asarray(weights, float)
        self.team[games] = self._rng.integers(0, 2, n)
        self.opponent_kind[games] = np.asarray(kinds)[self._rng.choice(len(kinds), n, p=p / p.sum())]
        for g in games:
            if self.opponent_kind[g] >= SNAPSHOT:
                self._game_snapshot[g] = nets[self.opponent_kind[g] - SNAPSHOT]

    def _network_actions(self, policy, rows: np.ndarray) -> np.ndarray:
        import torch

        from .precision import sample_masked

        t0 = time.perf_counter()
        obs = torch.as_tensor(self.vg.observations[rows])
        masks = torch.as_tensor(self.vg.masks[rows]).bool()
        with torch.no_grad():
            out = sample_masked(policy, obs, masks).numpy()
        self.opponent_net_seconds += time.perf_counter() - t0
        return out

    def _opponent_actions(self, need: np.ndarray) -> np.ndarray:
        vg = self.vg
        acts = self._actions
        kinds = self.opponent_kind
        rows_all = self._rows[need]
        k = kinds[rows_all]
        if (k == RANDOM).any():
            vg.sample_actions(out=acts)  # every game's draw; only the random rows are used
        rows = rows_all[k == HEURISTIC]
        if len(rows):
            if self._heuristic is None:
                from canasta_env.policies import HeuristicPolicy

                self._heuristic = HeuristicPolicy()
            acts[rows] = heuristic_actions(self._heuristic, vg.observations[rows],
                                           vg.masks[rows])
        is_style = (k >= STYLE) & (k < SNAPSHOT)
        if is_style.any():
            from canasta_env.policies.styles import style_policy

            for kind in np.unique(k[is_style]).tolist():
                rows = rows_all[k == kind]
                if kind not in self._styles:
                    self._styles[kind] = style_policy(list(STYLES)[kind - STYLE])
                acts[rows] = heuristic_actions(self._styles[kind], vg.observations[rows],
                                               vg.masks[rows])
        rows = rows_all[k == SELF]
        if len(rows):
            acts[rows] = self._network_actions(self._learner, rows)
        snap_rows = rows_all[k >= SNAPSHOT]
        if len(snap_rows):
            paths = np.asarray([self._game_snapshot[r] for r in snap_rows], dtype=object)
            present = set(paths.tolist())
            stacked, order = self._stacked_networks()
            if stacked is not None and len(present) > 1 and self.stack_networks:
                t0 = time.perf_counter()
                if not present <= set(order):
                    raise RuntimeError(f"network opponents {sorted(present - set(order))} are "
                                       f"playing but not loaded")
                groups = [snap_rows[paths == path] for path in order]
                for rows, a in zip(groups, stacked.sample(groups, vg.observations, vg.masks)):
                    acts[rows] = a
                self.opponent_net_seconds += time.perf_counter() - t0
            else:
                for path in sorted(present):  # one order, so one seed draws the same moves
                    rows = snap_rows[paths == path]
                    policy = self._fixed.get(path) or self._snapshots[path]
                    acts[rows] = self._network_actions(policy, rows)
        return acts

    def _stacked_networks(self):
        """The network opponents loaded now (snapshots and fixed checkpoints) as one
        :class:`training.sb3.stacked.StackedActors` and the paths in its order, remade
        when the set changes; ``(None, order)`` when they cannot be stacked."""
        order = tuple(sorted(set(self._snapshots) | set(self._fixed)))
        if self._stacked_key != order:
            from .stacked import StackedActors, stackable

            policies = [self._fixed.get(p) or self._snapshots[p] for p in order]
            self._stacked = StackedActors(policies) if policies and stackable(policies) \
                else None
            self._stacked_key = order
        return self._stacked, order

    # -- VecEnv API ---------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal every game afresh (seeds ``seed + i``; see :meth:`seed`) and play the
        opponents up to the learner's first decision. Returns the observations, float32
        ``(num_games, obs_size)``."""
        t0 = time.perf_counter()
        self.vg.reset(self._seed)
        self._rng = np.random.default_rng(self._seed)  # the same sides and opponents too
        self._game_snapshot = {}
        self._draw(self._rows)
        self.hand_decisions[:] = 0
        self._pending_reward = np.zeros(self.num_envs, np.float32)
        self._done = np.zeros(self.num_envs, bool)
        self._truncated = np.zeros(self.num_envs, bool)
        self._advance()
        self.env_seconds += time.perf_counter() - t0
        return self.vg.observations.copy()

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Set the seed the next :meth:`reset` deals from (game ``i``: ``seed + i``)."""
        if seed is not None:
            self._seed = int(seed)
            self._rng = np.random.default_rng(seed)
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def step_async(self, actions: np.ndarray) -> None:
        self._step_actions = np.asarray(actions).reshape(self.num_envs)

    def _collect(self, active: np.ndarray | None) -> None:
        """Credit the step's rewards to the learner partnerships and handle the hands
        that ended (new learner side and opponent) or reached ``max_decisions``."""
        vg = self.vg
        r = vg.rewards[self._rows, self.team]  # seat 0's column for team 0, seat 1's for 1
        r = native_hand_reward(r, self.reward, self.reward_scale)
        if active is None:
            self.hand_decisions += 1
        else:
            self.hand_decisions[active] += 1
        done = vg.dones
        if done.any():
            ended = np.flatnonzero(done)
            self._pending_reward[ended] += r[ended]
            self._done[ended] = True
            self.hand_decisions[ended] = 0
            self.hands_finished += len(ended)
            self._draw(ended)
        over = np.flatnonzero(self.hand_decisions >= self.max_decisions)
        if len(over):
            vg.redeal(over)
            self._done[over] = True
            self._truncated[over] = True
            self.hand_decisions[over] = 0
            self._draw(over)

    def _advance(self) -> None:
        """Play the opponents until the learner is on turn in every game."""
        vg = self.vg
        while True:
            need = (vg.to_move % 2) != self.team
            if not need.any():
                return
            vg.step(self._opponent_actions(need), active=need)
            self._collect(need)

    def step_wait(self):
        t0 = time.perf_counter()
        last_obs = self.vg.observations.copy()
        self._pending_reward[:] = 0
        self._done[:] = False
        self._truncated[:] = False
        self.vg.step(self._step_actions)
        self._collect(None)
        self._advance()
        obs = self.vg.observations.copy()
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(self._truncated):
            infos[i]["TimeLimit.truncated"] = True
            infos[i]["terminal_observation"] = last_obs[i]
        for i in np.flatnonzero(self._done & ~self._truncated):
            infos[i]["terminal_observation"] = last_obs[i]
        self.env_seconds += time.perf_counter() - t0
        return obs, self._pending_reward.copy(), self._done.copy(), infos

    def action_masks(self) -> np.ndarray:
        """Bool ``(num_games, num_actions)``: the legal actions of each game's learner
        seat on turn."""
        return self.vg.masks.astype(bool)

    def close(self) -> None:
        self.vg.close()

    # SB3 reaches attributes and methods of sub-envs through these; here every slot is
    # this one object, so each call is answered once and repeated per slot.
    def _targets(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = getattr(self, attr_name)
        return [value for _ in self._targets(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._targets(indices)]
        out = getattr(self, method_name)(*method_args, **method_kwargs)
        return [out for _ in self._targets(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._targets(indices)]


def heuristic_actions(policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``policy``'s actions for a batch: int64 ``[B]`` from float32 observations
    ``[B, N]`` and int8/bool masks ``[B, A]`` -- one ``act_batch`` call when the policy
    has one (the native heuristic), else ``act`` row by row."""
    batch = getattr(policy, "act_batch", None)
    if batch is not None:
        return np.asarray(batch(observations, masks), dtype=np.int64)
    return np.fromiter((policy.act(o, m) for o, m in zip(observations, masks)), np.int64,
                       count=len(observations))


def check_batched(variant: str, n_envs: int, n_steps: int, batch_size: int,
                  memory_bytes: int | None = None) -> None:
    """Refuse a batched training layout that cannot run, before anything is built.

    Raises:
        ValueError: zero games; ``batch_size`` does not divide the rollout
            (``n_steps * n_envs``); or the rollout buffer of ``n_envs`` games would not fit
            in memory (``memory_bytes``, default: this machine's physical memory).
    """
    from canasta_env.engine.actions import num_actions
    from canasta_env.observation import obs_size

    rules = preset(variant)
    if n_envs < 1:
        raise ValueError(f"n_envs must be >= 1 game, got {n_envs}")
    rollout = n_steps * n_envs
    if rollout % batch_size:
        raise ValueError(f"ppo.batch_size {batch_size} does not divide the rollout "
                         f"n_steps*n_envs = {n_steps}*{n_envs} = {rollout}")
    # per sample: observation float32, mask float32 in SB3's buffer, 6 float32 scalars
    per_sample = 4 * (obs_size(rules) + num_actions(rules) + 6)
    need = rollout * per_sample * 2 + n_envs * 64_000  # buffer + tensors of an epoch; games
    if memory_bytes is None:
        import os

        memory_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if need > memory_bytes // 2:
        raise ValueError(f"{n_envs} games x {n_steps} steps need about {need / 2**30:.1f} GiB for "
                         f"the rollout buffer, more than half this machine's memory "
                         f"({memory_bytes / 2**30:.1f} GiB); use fewer games or steps")


def make_batched_env(games: int, variant: str, pool: dict[str, float], seed: int,
                     env_kwargs: dict) -> BatchedPartnershipVecEnv:
    """:class:`BatchedPartnershipVecEnv` from :func:`training.sb3.train.env_kwargs`-style
    options (``reward``, ``reward_scale``, ``max_decisions``, ``starting_scores`` or
    ``starting_round``)."""
    kw = dict(env_kwargs)
    kw.pop("variant", None)
    scores = kw.pop("starting_scores", "sample")
    rnd = kw.pop("starting_round", 1)
    return BatchedPartnershipVecEnv(games, variant, pool, seed=seed, starting_scores=scores,
                                    starting_round=rnd, **kw)


__all__: Sequence[str] = ("BatchedPartnershipVecEnv", "check_batched", "check_reward", "hand_reward",
                          "native_hand_reward", "native_reward_scale",
                          "heuristic_actions", "make_batched_env", "REWARDS",
                          "RANDOM", "HEURISTIC", "SELF", "SNAPSHOT")
