"""Train on Ray RLlib (PPO, env runners spread over a Ray cluster); needs the ``distributed``
extra (``pip install -e '.[training,service,distributed]'``).

    python -m training.rllib --config configs/rllib_classic.yaml [--address HOST:PORT]

Without ``--address`` a local Ray instance starts on this machine (stopped at the end);
with one, the driver joins that cluster and the env runners are placed on its nodes.

Reads top to bottom: the validated config (:class:`RLlibConfig`), the AEC env through
RLlib's PettingZoo wrapper (:class:`CanastaRLlibEnv`), per-partnership metrics
(``CanastaMetrics``), the PPO config (:func:`ppo_config`), the training loop
(:func:`train`).

Two envs, by ``env`` in the config, with the same agents' view of the game (observations,
masks, rewards, final observations; the tests compare them decision by decision):
``aec`` steps one game and one seat per env step (:class:`CanastaRLlibEnv`, agents
``player_0..3``, one RLlib episode per hand); ``vector`` steps
``env_runners.games_per_env`` games of the native batched core per env step, so the env
runner's module decides for all of them in one forward
(:class:`training.rllib.vector_env.CanastaVectorEnv`, agents ``g<game>h<hand>_p<seat>``,
several hands per game in one RLlib episode, each played whole; PPO counts agent steps).

Self-play: all four seats are learners. ``policies: shared`` maps every seat to one
masked module (``shared``); ``per_partnership`` gives each partnership its own
(``team_0``: seats 0 and 2, ``team_1``: seats 1 and 3). The module is
:class:`training.rllib.module.MaskedActorCritic`.

Outputs (a run directory that holds files is never written to again):
``checkpoints/<run>/config.yaml`` (the resolved config), ``iter_<n>/`` every
``checkpoint_every`` iterations and ``final/`` (RLlib algorithm checkpoints),
``final.onnx`` (``shared``) or ``final_team_0.onnx`` / ``final_team_1.onnx``
(``per_partnership``): the trained actor in the project's ONNX format, so
``python -m training.evaluate --a checkpoints/<run>/final.onnx`` and the bots load it like
any exported checkpoint (either variant, with its own sizes; the RLlib checkpoint itself
loads with :class:`training.rllib.module.RLlibPolicy`). TensorBoard logs in ``runs/<run>/``.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

from canasta_env.cli import ArgumentParser, fail
from training.common.cli import add_run_flags, refuse
from training.common.config import ConfigError, dump_config

from .config import RLlibConfig, load_rllib_config
from .env import ppo_config

REPO_ROOT = Path(__file__).resolve().parents[2]


def runtime_env(cfg: RLlibConfig) -> dict:
    """The Ray job's runtime env: this checkout first on ``PYTHONPATH`` (so the runners
    import the same ``canasta_env`` / ``training`` as the driver even when another
    checkout is pip-installed) and ``env_runners.torch_threads`` threads per runner."""
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    threads = str(cfg.env_runners.torch_threads)
    return {"env_vars": {"PYTHONPATH": path, "OMP_NUM_THREADS": threads,
                         "MKL_NUM_THREADS": threads}}


def keep_on_loopback() -> None:
    """Make a Ray instance on this one machine listen and connect on 127.0.0.1 only. Ray
    advertises the machine's network address by default, even when given 127.0.0.1;
    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` makes it use the loopback address. Ray reads it
    when it is imported, so call this before ``import ray`` (and never when joining a
    cluster of several machines)."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"


def init_ray(cfg: RLlibConfig, address: str | None = None,
             node_ip_address: str | None = None) -> None:
    """Join the cluster at ``address`` (from this machine's ``node_ip_address`` when
    given: the address its Ray node advertises, if not the one Ray would find), or start
    a local Ray instance (on 127.0.0.1 when :func:`keep_on_loopback` ran before ``ray``
    was imported, as ``main`` does)."""
    if not address:
        keep_on_loopback()
    import ray

    kw = {"runtime_env": runtime_env(cfg), "include_dashboard": False,
          "log_to_driver": True, "logging_level": "ERROR"}
    if address:
        if node_ip_address:
            kw["_node_ip_address"] = node_ip_address
        ray.init(address=address, **kw)
        return
    need = cfg.env_runners.num_env_runners * cfg.env_runners.num_cpus_per_env_runner
    cpus = cfg.ray.num_cpus or max(os.cpu_count() or 1, need, 1)
    ray.init(num_cpus=cpus, object_store_memory=cfg.ray.object_store_memory_mb * 2**20, **kw)


# ---------------------------------------------------------------------------- training
def _get(d: dict, *keys, default=None):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def _scalars(result: dict, module_ids: tuple[str, ...]) -> dict[str, float]:
    """The figures of one iteration worth logging (per partnership, not the zero mean)."""
    er = result.get("env_runners", {})
    out = {}
    for key in ("team_0_return", "team_1_return", "team_0_win", "abs_return", "hand_length",
                "episode_len_mean", "num_episodes", "num_env_steps_sampled_lifetime",
                "num_env_steps_sampled", "num_decisions_lifetime"):
        v = er.get(key)
        if isinstance(v, (int, float)) and math.isfinite(v):
            out[f"env_runners/{key}"] = float(v)
    for mid in module_ids:
        stats = _get(result, "learners", mid, default={}) or {}
        for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "curr_kl_coeff",
                    "vf_explained_var", "total_loss", "gradients_adam_global_norm"):
            v = stats.get(key)
            if isinstance(v, (int, float)) and math.isfinite(v):
                out[f"learner_{mid}/{key}"] = float(v)
    return out


def _check_run_dir(cfg: RLlibConfig) -> Path:
    run_dir = cfg.run_dir.resolve()
    if run_dir.exists() and any(run_dir.iterdir()):
        raise ConfigError(f"{cfg.run_dir} already holds files of a run; choose another run_name")
    return run_dir


def evaluate_module(module, hands: int, seed: int, variant: str) -> dict[str, dict]:
    """Duplicate-deal results of ``module`` (as :class:`~training.rllib.module.RLlibPolicy`)
    against random and heuristic (``training.evaluation.evaluate_policies``)."""
    from canasta_env.bots.loader import load_policy
    from training.evaluation import evaluate_policies

    from .module import RLlibPolicy

    pol = RLlibPolicy(module)
    return {name: evaluate_policies(pol, load_policy(name), hands=hands, seed=seed,
                                    variant=variant)
            for name in ("random", "heuristic")}


def _runner_info(runner) -> dict:
    """Where an env runner lives (runs inside the runner)."""
    import socket

    import ray

    import canasta_env

    return {"worker_index": runner.worker_index, "node_id": ray.get_runtime_context().get_node_id(),
            "hostname": socket.gethostname(), "pid": os.getpid(),
            "canasta_env": str(Path(canasta_env.__file__).parent)}


def progress_line(it: int, steps: int, scal: dict, elapsed: float) -> str:
    """One progress line of :func:`train`: iteration, env steps, steps/s, the mean return
    of team 0 and the mean hand length (decisions) over the finished hands, elapsed minutes
    (``elapsed`` in seconds). Before any hand finished the run has no returns yet, and the
    line says so instead of printing NaN."""
    ret = scal.get("env_runners/team_0_return")
    length = scal.get("env_runners/hand_length")
    if ret is None or length is None or not (math.isfinite(ret) and math.isfinite(length)):
        hands = "no hand finished yet"
    else:
        hands = f"team_0 return {ret:+.3f}  hand length {length:.0f}"
    return (f"iter {it:4d}  steps {steps:9,d}  {scal['time/env_steps_per_s']:7.0f} steps/s  "
            f"{hands}  {elapsed / 60:.1f} min")


def train(cfg: RLlibConfig, address: str | None = None, report: dict | None = None) -> Path:
    """Run one RLlib training; returns the final checkpoint directory. ``report``, when
    given, receives ``runners`` (:func:`_runner_info` of each remote env runner),
    ``hands_by_node`` (finished hands per Ray node id), ``env_steps`` (decisions of all
    seats),
    ``iterations`` and ``seconds``.

    Raises:
        ConfigError: the run directory already holds a run.
    """
    import torch

    torch.set_num_threads(cfg.torch_threads)
    os.environ["OMP_NUM_THREADS"] = str(cfg.torch_threads)
    run_dir = _check_run_dir(cfg)

    import ray
    from torch.utils.tensorboard import SummaryWriter

    from .module import load_module

    started = not ray.is_initialized()
    if started:  # before writing anything: a cluster that cannot be joined leaves no run
        init_ray(cfg, address)
    run_dir.mkdir(parents=True, exist_ok=True)
    dump_config(cfg, run_dir / "config.yaml")
    writer = SummaryWriter(str(Path(cfg.tensorboard_dir) / cfg.run_name))
    writer.add_text("config", "\n".join(f"    {line}" for line in
                                        (run_dir / "config.yaml").read_text().splitlines()))
    algo = None
    # the decisions of all seats: one per env step (aec), or counted by the callback
    steps_key = ("env_runners/num_decisions_lifetime" if cfg.env == "vector"
                 else "env_runners/num_env_steps_sampled_lifetime")
    try:
        algo = ppo_config(cfg).build_algo()
        t0 = time.time()
        it, steps = 0, 0
        while True:
            result = algo.train()
            it += 1
            scal = _scalars(result, cfg.module_ids)
            steps = int(scal.get(steps_key, steps))
            elapsed = time.time() - t0
            scal["time/env_steps_per_s"] = steps / max(elapsed, 1e-9)
            for k, v in scal.items():
                writer.add_scalar(k, v, steps)
            if cfg.progress:
                print(progress_line(it, steps, scal, elapsed), flush=True)
            done = steps >= cfg.total_timesteps or \
                (cfg.max_minutes is not None and elapsed >= cfg.max_minutes * 60)
            if it % cfg.checkpoint_every == 0 and not done:
                algo.save_to_path(str(run_dir / f"iter_{it:06d}"))
            if cfg.eval.every and it % cfg.eval.every == 0 and not done:
                for mid in cfg.module_ids:
                    res = evaluate_module(algo.get_module(mid), cfg.eval.hands, cfg.eval.seed,
                                          cfg.variant)
                    for name, r in res.items():
                        writer.add_scalar(f"eval_{mid}_{name}/win_rate", r["win_rate"], steps)
                        writer.add_scalar(f"eval_{mid}_{name}/mean_score_diff",
                                          r["mean_score_diff"], steps)
            if done:
                break
        seconds = time.time() - t0
        final = run_dir / "final"
        algo.save_to_path(str(final))
        nodes = dict(_get(result, "env_runners", "hands_by_node", default={}) or {})
        runners = algo.env_runner_group.foreach_env_runner(_runner_info, local_env_runner=False)
        print(f"trained {steps:,} env steps in {it} iterations, {seconds / 60:.1f} min "
              f"({steps / max(seconds, 1e-9):.0f} steps/s); saved {final}", flush=True)
        for r in runners:
            print(f"env runner {r['worker_index']}: node {r['node_id'][:12]} host {r['hostname']} "
                  f"pid {r['pid']}", flush=True)
        print(f"finished hands by node: { {k[:12]: int(v) for k, v in nodes.items()} }",
              flush=True)
        if report is not None:
            report.update(runners=runners, hands_by_node=nodes, env_steps=steps,
                          iterations=it, seconds=seconds)
    finally:
        if algo is not None:
            algo.stop()
        writer.flush()
        if started:
            ray.shutdown()

    from training.evaluation import format_table

    for mid in cfg.module_ids:
        module = load_module(final / "learner_group" / "learner" / "rl_module" / mid)
        if cfg.export_onnx:
            out = run_dir / ("final.onnx" if mid == "shared" else f"final_{mid}.onnx")
            export_and_check(module, out, source=f"{final.name}/{mid}")
        if cfg.eval.final_hands:
            res = evaluate_module(module, cfg.eval.final_hands, cfg.eval.seed, cfg.variant)
            for name, r in res.items():
                print(f"\n== {cfg.run_name} {mid} vs {name} ({cfg.eval.final_hands} hands) ==")
                print(format_table(r))
                writer.add_scalar(f"final_{mid}_{name}/win_rate", r["win_rate"], steps)
                writer.add_scalar(f"final_{mid}_{name}/mean_score_diff", r["mean_score_diff"],
                                  steps)
    writer.close()
    return final


def export_and_check(module, out: Path, source: str) -> Path:
    """Export ``module`` to ONNX and check that onnxruntime and torch pick the same moves
    on random masked inputs.

    Raises:
        RuntimeError: they disagree.
    """
    import numpy as np

    from canasta_env.bots.onnx_policy import OnnxPolicy

    from .module import RLlibPolicy, export_onnx

    export_onnx(module, out, source=source)
    torch_pol, onnx_pol = RLlibPolicy(module), OnnxPolicy(out)
    rng = np.random.default_rng(0)
    obs = rng.random((64, torch_pol.obs_size), dtype=np.float32)
    mask = (rng.random((64, torch_pol.num_actions)) < 0.2).astype(np.int8)
    mask[:, 0] = 1
    agree = int((torch_pol.logits(obs, mask).argmax(1) ==
                 onnx_pol.logits(obs, mask).argmax(1)).sum())
    if agree != 64:
        raise RuntimeError(f"{out}: ONNX and torch agree on {agree}/64 random inputs only")
    print(f"exported {out} (argmax agrees with the RLlib module on 64/64 random masked inputs)",
          flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m training.rllib``; ``argv`` defaults to ``sys.argv[1:]``. Returns the
    exit code: 0 trained, 2 refused input (a bad config, no cluster at ``--address``, an
    unwritable folder: one line on stderr).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog="python -m training.rllib",
                       description="Train a Canasta agent with Ray RLlib PPO.")
    add_run_flags(p, config_help="YAML config (configs/rllib_*.yaml)",
                  run_name_help="override the config", config_type=str)  # read by the loader
    p.add_argument("--address", default=None,
                   help="join the Ray cluster at HOST:PORT (default: start a local Ray)")
    args = p.parse_args(argv)
    if not args.address:
        keep_on_loopback()  # before anything imports ray
    try:
        cfg = load_rllib_config(args.config, total_timesteps=args.total_timesteps,
                                run_name=args.run_name)
        train(cfg, args.address)
    except ConnectionError as e:  # --address: no cluster there (before OSError: a subclass)
        return fail(p.prog, f"cannot join the Ray cluster at {args.address}: "
                            f"{str(e).splitlines()[0] if str(e) else type(e).__name__}")
    except (ConfigError, OSError) as e:  # OSError: e.g. an unwritable checkpoint_dir
        return refuse(p.prog, e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
