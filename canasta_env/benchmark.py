"""Throughput benchmark, side by side with peer card-game environments.

    python -m canasta_env.benchmark [--seconds S] [--json]

Measures in one process, each for about ``S`` seconds of wall time (random legal play,
seeded):

- the engine alone (``Game.legal_actions`` + ``Game.apply``): decisions/s and hands/s,
  for Classic and for Hand and Foot;
- ``raw_env`` and ``env()`` reading the observation and action mask every step:
  agent-steps/s;
- peak memory of one environment (tracemalloc, KiB);
- the heuristic policy: microseconds per decision of the Python reference and of the
  native port (one ``act`` per decision, and ``act_batch`` of 256), on the same
  positions;
- if installed (``pip install -e ".[bench]"``): RLCard's gin-rummy random play
  (steps/s) and OpenSpiel's C++ ``gin_rummy`` reading its observation tensor and legal
  actions every decision (decisions/s), with our ratios against them.

``--json`` prints one object with keys ``engine_decisions_per_s``,
``env_agent_steps_per_s``, ``raw_env_agent_steps_per_s``, ``engine_hands_per_s``,
``env_peak_memory_kib``, ``vector_decisions_per_s`` (the batched native core,
:class:`canasta_env.native.VectorGames`, 256 games, observation and mask written for
every decision; only when the native core is built) and ``vector_decisions_per_cpu_s``
(the same per second of CPU time), the same with a ``hand_and_foot_``
prefix, and, when measured,
``rlcard_gin_rummy_steps_per_s``, ``openspiel_gin_rummy_decisions_per_s`` and the ratios;
the heuristic policy's cost, Python reference and native port side by side
(:func:`measure_heuristic`): ``heuristic_us_per_decision``,
``fast_heuristic_us_per_decision``, ``fast_heuristic_batch_us_per_decision`` (256 rows
per call) and their ratios ``fast_heuristic_speedup`` / ``fast_heuristic_batch_speedup``,
each also with a ``hand_and_foot_`` prefix.

Exit codes: 0 measured, 2 a bad option (``--seconds`` not a finite number > 0: one line
on stderr), 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import json
import random
import time
import tracemalloc

import numpy as np

from .cli import ArgumentParser, interrupted, positive_float


def bench_engine(seconds: float, variant: str = "classic") -> dict:
    """Engine alone: random legal play over whole hands."""
    from .engine import Game, preset

    options = preset(variant)
    rng = random.Random(0)
    decisions = hands = 0
    t0 = time.perf_counter()
    seed = 0
    while True:
        g = Game(options, seed=seed)
        seed += 1
        while not g.hand_over:
            la = g.legal_actions()
            g.apply(la[rng.randrange(len(la))])
            decisions += 1
        hands += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return {"engine_decisions_per_s": decisions / el, "engine_hands_per_s": hands / el}


def _bench_aec(make, seconds: float) -> float:
    """Agent-steps/s through the AEC API, reading observation and mask every step."""
    e = make()
    rng = np.random.default_rng(0)
    steps = 0
    ep = 0
    t0 = time.perf_counter()
    while True:
        e.reset(seed=ep)
        ep += 1
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _i = e.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            e.step(action)
            steps += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return steps / el


def bench_memory(variant: str = "classic") -> float:
    """Peak traced memory (KiB) of creating one env and playing one hand."""
    from . import raw_env

    tracemalloc.start()
    e = raw_env(variant=variant)
    e.reset(seed=0)
    rng = random.Random(0)
    while not e.terminations["player_0"]:
        la = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
        e.step(la[rng.randrange(len(la))])
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


def bench_rlcard(seconds: float) -> float | None:
    """RLCard gin-rummy random play: env steps/s (None when RLCard is missing)."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": 0})
    rng = np.random.default_rng(0)
    steps = 0
    t0 = time.perf_counter()
    while True:
        state, pid = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, pid = env.step(legal[rng.integers(len(legal))])
            steps += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return steps / el


def bench_openspiel(seconds: float) -> float | None:
    """OpenSpiel C++ gin_rummy: decisions/s reading the observation tensor and the legal
    actions at every decision (None when pyspiel is missing)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(0)
    decisions = 0
    t0 = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return decisions / el


def bench_vector(seconds: float, variant: str = "classic", num_games: int = 256,
                 cpu: bool = False):
    """Batched native core (:class:`canasta_env.native.VectorGames`): random legal play,
    observation and mask written for every decision, one process; decisions per second
    of wall time (and, with ``cpu``, also per second of this process's CPU time, which a
    busy shared machine disturbs less), or ``None`` when the native core is not built."""
    from .engine import preset
    from .native import VectorGames, available

    if not available:
        return None
    v = VectorGames(num_games, preset(variant), seed=0)
    acts = np.empty(num_games, dtype=np.int64)
    decisions = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while True:
        for _ in range(16):
            v.sample_actions(acts)
            v.step(acts)
        decisions += 16 * num_games
        el = time.perf_counter() - t0
        if el >= seconds:
            if cpu:
                return decisions / el, decisions / max(time.process_time() - c0, 1e-9)
            return decisions / el


def heuristic_positions(variant: str = "classic", count: int = 1024
                        ) -> tuple[np.ndarray, np.ndarray]:
    """``count`` decisions of seeded hands on the Python engine (observation float32
    ``[count, N]``, mask int8 ``[count, A]``), each with two legal actions or more,
    played 70% by the Python heuristic and 30% at random, so every phase occurs."""
    from .engine import Game, preset
    from .observation import encode
    from .policies import HeuristicPolicy

    options = preset(variant)
    ref = HeuristicPolicy(backend="python")
    rng = np.random.default_rng(0)
    obs, masks = [], []
    seed = 0
    while len(obs) < count:
        g = Game(options, seed=seed, scores=((-100, 0, 1600, 3100)[seed % 4], 0),
                 first_round=seed % max(options.rounds, 1))
        seed += 1
        while not g.hand_over and len(obs) < count:
            legal = g.legal_actions()
            if len(legal) == 1:
                g.apply(legal[0])
                continue
            o = encode(g, g.to_move)
            m = np.zeros(g.num_actions, dtype=np.int8)
            m[legal] = 1
            obs.append(o)
            masks.append(m)
            g.apply(ref.act(o, m) if rng.random() < 0.7 else legal[rng.integers(len(legal))])
    return np.array(obs), np.array(masks)


def measure_heuristic(seconds: float, variant: str = "classic", batch: int = 256) -> dict:
    """Microseconds per decision of the heuristic policy on the same 1,024 recorded
    positions (:func:`heuristic_positions`), each measured for about ``seconds``:

    - ``heuristic_us_per_decision``: the Python reference, ``HeuristicPolicy(backend=
      "python").act`` (input check, observation decoding, the rules of thumb);
    - ``fast_heuristic_us_per_decision``: ``HeuristicPolicy().act`` on the native core,
      one decision per call (only when the native core is built, as the two keys below);
    - ``fast_heuristic_batch_us_per_decision``: ``act_batch`` on ``batch`` rows per call;
    - ``fast_heuristic_speedup`` / ``fast_heuristic_batch_speedup``: the Python figure
      over each native one (measured in this run).

    Keys carry a ``hand_and_foot_`` prefix for ``variant="hand_and_foot"``.
    """
    from .policies import HeuristicPolicy

    obs, masks = heuristic_positions(variant)
    n = len(obs)

    def per_decision(fn, step: int) -> float:
        done = 0
        t0 = time.perf_counter()
        while True:
            for i in range(0, n, step):
                fn(i)
            done += n
            el = time.perf_counter() - t0
            if el >= seconds:
                return el / done * 1e6

    pre = "" if variant == "classic" else f"{variant}_"
    ref = HeuristicPolicy(backend="python")
    out = {f"{pre}heuristic_us_per_decision": per_decision(lambda i: ref.act(obs[i], masks[i]), 1)}
    fast = HeuristicPolicy()
    if fast.backend == "native":
        one = per_decision(lambda i: fast.act(obs[i], masks[i]), 1)
        many = per_decision(lambda i: fast.act_batch(obs[i:i + batch], masks[i:i + batch]), batch)
        py = out[f"{pre}heuristic_us_per_decision"]
        out[f"{pre}fast_heuristic_us_per_decision"] = one
        out[f"{pre}fast_heuristic_batch_us_per_decision"] = many
        out[f"{pre}fast_heuristic_speedup"] = py / one
        out[f"{pre}fast_heuristic_batch_speedup"] = py / many
    return out


def run(seconds: float = 3.0) -> dict:
    """All measurements; see the module docstring for the keys."""
    from . import env, raw_env

    out = bench_engine(seconds)
    vec = bench_vector(seconds, cpu=True)
    if vec is not None:
        vec, out["vector_decisions_per_cpu_s"] = vec
        out["vector_decisions_per_s"] = vec
        hf_vec = bench_vector(seconds, "hand_and_foot", cpu=True)
        out["hand_and_foot_vector_decisions_per_s"] = hf_vec[0]
        out["hand_and_foot_vector_decisions_per_cpu_s"] = hf_vec[1]
    out["raw_env_agent_steps_per_s"] = _bench_aec(raw_env, seconds)
    out["env_agent_steps_per_s"] = _bench_aec(env, seconds)
    out["env_peak_memory_kib"] = bench_memory()
    hf = bench_engine(seconds, "hand_and_foot")
    out["hand_and_foot_engine_decisions_per_s"] = hf["engine_decisions_per_s"]
    out["hand_and_foot_engine_hands_per_s"] = hf["engine_hands_per_s"]
    out["hand_and_foot_raw_env_agent_steps_per_s"] = _bench_aec(
        lambda: raw_env(variant="hand_and_foot"), seconds)
    out["hand_and_foot_env_agent_steps_per_s"] = _bench_aec(
        lambda: env(variant="hand_and_foot"), seconds)
    out["hand_and_foot_env_peak_memory_kib"] = bench_memory("hand_and_foot")
    out.update(measure_heuristic(seconds))
    out.update(measure_heuristic(seconds, "hand_and_foot"))
    rl = bench_rlcard(seconds)
    if rl is not None:
        out["rlcard_gin_rummy_steps_per_s"] = rl
        out["engine_vs_rlcard_ratio"] = out["engine_decisions_per_s"] / rl
    osp = bench_openspiel(seconds)
    if osp is not None:
        out["openspiel_gin_rummy_decisions_per_s"] = osp
        out["env_vs_openspiel_ratio"] = out["env_agent_steps_per_s"] / osp
        if vec is not None:
            out["vector_vs_openspiel_ratio"] = vec / osp
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m canasta_env.benchmark``; ``argv`` defaults to ``sys.argv[1:]``.
    Returns the exit code: 0, or 130 after Ctrl-C (one line on stderr).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog="python -m canasta_env.benchmark",
                       description="canasta_env throughput benchmark")
    p.add_argument("--seconds", type=positive_float, default=3.0,
                   help="wall time per measurement (a finite number > 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    try:
        res = run(args.seconds)
    except KeyboardInterrupt:
        return interrupted(p.prog, "nothing measured is printed")
    if args.json:
        print(json.dumps(res))
        return 0
    rows = [
        ("engine alone (Classic)", "decisions/s", res["engine_decisions_per_s"]),
        ("engine alone (Classic)", "hands/s", res["engine_hands_per_s"]),
        ("raw_env + obs + mask", "agent-steps/s", res["raw_env_agent_steps_per_s"]),
        ("env() + obs + mask", "agent-steps/s", res["env_agent_steps_per_s"]),
        ("one env, one hand", "peak KiB", res["env_peak_memory_kib"]),
        *([("native VectorGames + obs + mask", "decisions/s", res["vector_decisions_per_s"]),
           ("Hand and Foot native VectorGames", "decisions/s",
            res["hand_and_foot_vector_decisions_per_s"])]
          if "vector_decisions_per_s" in res else []),
        ("Hand and Foot engine alone", "decisions/s", res["hand_and_foot_engine_decisions_per_s"]),
        ("Hand and Foot engine alone", "hands/s", res["hand_and_foot_engine_hands_per_s"]),
        ("Hand and Foot raw_env + obs + mask", "agent-steps/s",
         res["hand_and_foot_raw_env_agent_steps_per_s"]),
        ("Hand and Foot env() + obs + mask", "agent-steps/s",
         res["hand_and_foot_env_agent_steps_per_s"]),
        ("Hand and Foot env, one hand", "peak KiB", res["hand_and_foot_env_peak_memory_kib"]),
    ]
    for pre, name in (("", ""), ("hand_and_foot_", "Hand and Foot ")):
        rows.append((f"{name}heuristic (Python) act", "us/decision",
                     res[f"{pre}heuristic_us_per_decision"]))
        if f"{pre}fast_heuristic_us_per_decision" in res:
            rows.append((f"{name}heuristic (native) act", "us/decision",
                         res[f"{pre}fast_heuristic_us_per_decision"]))
            rows.append((f"{name}heuristic (native) act_batch 256", "us/decision",
                         res[f"{pre}fast_heuristic_batch_us_per_decision"]))
    if "rlcard_gin_rummy_steps_per_s" in res:
        rows.append(("RLCard gin-rummy", "steps/s", res["rlcard_gin_rummy_steps_per_s"]))
    if "openspiel_gin_rummy_decisions_per_s" in res:
        rows.append(("OpenSpiel gin_rummy + obs tensor", "decisions/s",
                     res["openspiel_gin_rummy_decisions_per_s"]))
    print(f"{'measurement':44} {'unit':14} {'value':>12}")
    for name, unit, val in rows:
        print(f"{name:44} {unit:14} {val:12,.0f}" if val >= 100 else
              f"{name:44} {unit:14} {val:12,.2f}")
    for pre, name in (("", "Classic"), ("hand_and_foot_", "Hand and Foot")):
        if f"{pre}fast_heuristic_speedup" in res:
            print(f"heuristic, native / Python ({name}): act "
                  f"{res[f'{pre}fast_heuristic_speedup']:.1f}x, act_batch "
                  f"{res[f'{pre}fast_heuristic_batch_speedup']:.1f}x (target 5x)")
    if "engine_vs_rlcard_ratio" in res:
        print(f"engine / RLCard gin-rummy: {res['engine_vs_rlcard_ratio']:.2f}x (target 3x)")
    else:
        print("RLCard not installed: pip install -e '.[bench]' to compare")
    if "env_vs_openspiel_ratio" in res:
        print(f"env() / OpenSpiel gin_rummy: {res['env_vs_openspiel_ratio']:.2f}x (target 2x)")
        if "vector_vs_openspiel_ratio" in res:
            print(f"native VectorGames / OpenSpiel gin_rummy: "
                  f"{res['vector_vs_openspiel_ratio']:.1f}x (target 30x)")
    else:
        print("OpenSpiel not installed: pip install -e '.[bench]' to compare")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
