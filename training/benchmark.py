"""Training and evaluation speed, each figure beside a peer measured in the same run.

    python -m training.benchmark [--seconds 20] [--config configs/classic.yaml] [--json]

Figures (all on this machine, in this process, one after the other):

- ``ppo_env_steps_per_s``: learner decisions per second of real MaskablePPO training
  with the config's env and network (no warm start: a fresh network), over at least
  ``--seconds`` of wall time after one warm-up rollout + update, with the pool's
  snapshots present as in a training run past ``max_snapshots`` snapshots
  (``ppo_snapshots`` of them, each a copy of the fresh network: their forwards are part of
  a long run's cost). Peer:
  ``peer_ppo_env_steps_per_s``, the same network and PPO settings on the pre-batched
  recipe (2 ``PartnershipEnv`` in subprocesses, half the rollout each: ``n_steps *
  n_envs / 2`` steps, 16,384 for the default config), for ``--seconds / 2``. Each side
  plays at least one whole rollout after its warm-up, so with the default config's
  32,768-step rollouts a run lasts minutes whatever ``--seconds`` says.
- ``ppo_env_share``: of that training wall time, the fraction spent outside any network
  forward or backward pass and the optimiser (stepping games and deciding random and
  heuristic opponents), measured by the batched env's own timers;
  ``ppo_opponent_net_share`` the fraction spent in the opponents' network forwards
  (snapshots, fixed checkpoints, self-play); ``ppo_learner_rollout_share`` the rest of
  the rollouts (the learner's own forwards and SB3's collection loop: the rollout buffer,
  callbacks, ``VecMonitor``), ``ppo_update_share`` the rest of each ``learn`` call: the
  update (``model.train()``: the epochs of minibatch passes and optimiser steps) and SB3's
  logging between rollouts; the four add up to 1.
- ``update_samples_per_s``: minibatch samples per second through one epoch of the
  config's network update (``model.train()`` with one epoch on a full rollout buffer,
  best of 10 rounds, taken in turns with its peers' below), in the config's
  ``ppo.precision`` (``precision``: the one used, ``fp32`` when bf16 was asked for on a
  CPU without bfloat16 products).
  Peer: ``peer_update_samples_per_s``, a plain MLP of the same widths (``features:
  mlp``, no card-class extractor) on the same rollout buffer, in fp32 (stable-baselines3's
  own setting); with ``precision: bf16`` also ``plain_mlp_same_precision_samples_per_s``,
  that plain MLP in bf16 (for reference; not a ratio).
- ``eval_hands_per_s``: duplicate hands per second of ``reference`` vs ``random``
  (:func:`training.evaluation.measure_eval_hands_per_s`, one process, 64 deals in flight);
  peer: the same with one deal at a time, one decision per call (``peer_eval_hands_per_s``).
- ``heuristic_us_per_decision``: microseconds per heuristic decision on recorded
  positions, batched native heuristic; peer: the Python heuristic
  (``peer_heuristic_us_per_decision``).

Each ``ratio_*`` is figure / peer (for the heuristic: peer / figure, so > 1 is faster).
``torch_threads`` is the config's. Exit codes: 0 done, 2 a bad option or config.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np

from canasta_env.cli import ArgumentParser, existing_file, fail, positive_float, require_extra

require_extra("python -m training.benchmark", "training")  # before the config imports yaml
from training.sb3.config import ConfigError, load_config  # noqa: E402


def _model(cfg, vec):
    """The training run's model of ``cfg`` (network, precision, PPO settings), no logs."""
    from training.sb3.train import new_model

    return new_model(cfg, vec, tensorboard=False)


def _phase_clock():
    """An SB3 callback that adds up the wall time of the rollouts (collection: env steps,
    the learner's and the opponents' forwards) in ``.rollout_seconds``; the rest of a
    ``learn`` call is the update."""
    from stable_baselines3.common.callbacks import BaseCallback

    class PhaseClock(BaseCallback):
        rollout_seconds = 0.0

        def _on_rollout_start(self) -> None:
            self._t0 = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.rollout_seconds += time.perf_counter() - self._t0

        def _on_step(self) -> bool:
            return True

    return PhaseClock()


def _train_for(model, seconds: float, callback=None) -> tuple[int, float]:
    """Learn in whole rollouts until ``seconds`` have passed; (steps, wall seconds)."""
    per = model.n_steps * model.n_envs
    t0 = time.perf_counter()
    steps = 0
    while time.perf_counter() - t0 < seconds:
        model.learn(per, reset_num_timesteps=False, callback=callback)
        steps += per
    return steps, time.perf_counter() - t0


def measure_ppo(cfg, seconds: float) -> dict:
    """``ppo_env_steps_per_s``, ``ppo_env_share`` and ``update_samples_per_s`` (with its
    peer) of ``cfg`` (a :class:`training.sb3.config.TrainConfig` with ``vec_env: batched``)."""
    import torch

    from training.sb3.train import make_vec_env

    torch.set_num_threads(cfg.torch_threads)
    vec = make_vec_env(cfg)
    model = _model(cfg, vec)
    vec.env_method("set_learner", model.policy, indices=[0])
    env = vec.venv
    with tempfile.TemporaryDirectory(prefix="canasta-benchmark-") as folder:
        snapshots = _fill_snapshots(cfg, model, vec, folder)
        model.learn(model.n_steps * model.n_envs)  # warm-up: first rollout + update
        env0 = env.env_seconds - env.opponent_net_seconds
        net0 = env.opponent_net_seconds
        clock = _phase_clock()
        steps, wall = _train_for(model, seconds, clock)
    share = (env.env_seconds - env.opponent_net_seconds - env0) / wall
    net_share = (env.opponent_net_seconds - net0) / wall
    rollout_share = clock.rollout_seconds / wall
    out = {"ppo_env_steps_per_s": steps / wall, "ppo_env_share": share,
           "ppo_opponent_net_share": net_share,
           # the rest of the rollout: the learner's forwards and SB3's collection loop
           "ppo_learner_rollout_share": rollout_share - share - net_share,
           "ppo_update_share": 1.0 - rollout_share,
           "ppo_games": cfg.n_envs, "ppo_snapshots": snapshots, "ppo_seconds": wall}
    out["precision"] = model.policy.precision
    peers = {}
    if cfg.ppo.features != "mlp":  # peer: a plain MLP of the same widths, same buffer
        from stable_baselines3.common.logger import configure

        for key, precision in (("peer_update_samples_per_s", "fp32"),
                               ("plain_mlp_same_precision_samples_per_s", out["precision"])):
            if key != "peer_update_samples_per_s" and precision == "fp32":
                continue  # the peer is that already
            plain = cfg.model_copy(update={"ppo": cfg.ppo.model_copy(
                update={"features": "mlp", "precision": precision})})
            peer = _model(plain, vec)
            peer.set_logger(configure(None, []))
            peer.rollout_buffer = model.rollout_buffer
            peers[key] = peer
    rates = _update_rates([model, *peers.values()])
    out["update_samples_per_s"] = rates[0]
    out.update(zip(peers, rates[1:]))
    vec.close()
    return out


def _fill_snapshots(cfg, model, vec, folder: str) -> int:
    """The pool's snapshots as in a training run once ``max_snapshots`` have been taken
    (each a copy of ``model``'s fresh weights, saved in ``folder``, which must outlive the
    measurement: the subprocess envs load a snapshot when it first plays), so that the
    measured rollouts pay for their forwards as a long run does; the number of snapshots
    (0 when the config's pool has no snapshot weight)."""
    if cfg.opponents.snapshots <= 0:
        return 0
    paths = [str(Path(folder) / f"snapshot_{i}.zip") for i in range(cfg.opponents.max_snapshots)]
    for path in paths:
        model.save(path)
    vec.env_method("set_snapshots", paths, cfg.opponents.snapshots)
    return len(paths)


def _update_rates(models: list, rounds: int = 10) -> list[float]:
    """Minibatch samples per second through one epoch of ``model.train()`` on its full
    rollout buffer, for each of ``models`` in their order: the best of ``rounds`` (one
    epoch is short, under a second for the default config, so a few rounds are at the mercy
    of one interruption). The models take their epochs in turns, round ``k`` starting at
    model ``k mod n`` (0 1 2, 1 2 0, 2 0 1, ...), so that neither the instance's drift over
    the measurement nor a place in the turn favours one model, and no model follows itself.
    Each model's ``n_epochs`` is restored afterwards, also when an epoch raises.

    Raises:
        ValueError: no models, or ``rounds`` < 1.
    """
    if not models or rounds < 1:
        raise ValueError(f"_update_rates needs models and rounds >= 1, got {len(models)} "
                         f"models and {rounds} rounds")
    saved = [m.n_epochs for m in models]
    best = [float("inf")] * len(models)
    try:
        for m in models:
            m.n_epochs = 1
        n = len(models)
        for k in range(rounds):
            for i in ((k + j) % n for j in range(n)):
                t0 = time.perf_counter()
                models[i].train()
                best[i] = min(best[i], time.perf_counter() - t0)
    finally:
        for m, epochs in zip(models, saved):
            m.n_epochs = epochs
    return [m.rollout_buffer.buffer_size * m.rollout_buffer.n_envs / b
            for m, b in zip(models, best)]


def _update_rate(model, rounds: int = 10) -> float:
    """:func:`_update_rates` of ``model`` alone."""
    return _update_rates([model], rounds)[0]


def measure_ppo_peer(cfg, seconds: float) -> float:
    """Env steps per second of the same network on 2 ``PartnershipEnv`` subprocesses
    (the recipe before the batched env)."""
    from training.sb3.train import make_vec_env

    peer = cfg.model_copy(update={"vec_env": "subproc", "n_envs": 2})
    # the same rollout size: 2 x 16,384 for the default 64 games x 512 steps
    peer.ppo = cfg.ppo.model_copy(update={"n_steps": cfg.ppo.n_steps * cfg.n_envs // 2})
    vec = make_vec_env(peer)
    model = _model(peer, vec)
    with tempfile.TemporaryDirectory(prefix="canasta-benchmark-") as folder:
        _fill_snapshots(peer, model, vec, folder)
        model.learn(model.n_steps * model.n_envs)
        steps, wall = _train_for(model, seconds)
    vec.close()
    return steps / wall


def run(config: str, seconds: float) -> dict:
    """All figures (see the module docstring)."""
    cfg = load_config(config)
    if cfg.vec_env != "batched":
        raise ConfigError(f"{config}: the benchmark measures the batched env (vec_env: batched)")
    out: dict = {"config": str(config), "seconds": seconds, "torch_threads": cfg.torch_threads}
    out.update(measure_ppo(cfg, seconds))
    out["peer_ppo_env_steps_per_s"] = measure_ppo_peer(cfg, seconds / 2)
    from training.evaluation import measure_eval_hands_per_s

    out["eval_hands_per_s"] = measure_eval_hands_per_s(seconds=seconds / 4)
    out["peer_eval_hands_per_s"] = measure_eval_hands_per_s(seconds=seconds / 8, batch=1)
    from canasta_env.benchmark import measure_heuristic

    h = measure_heuristic(seconds / 8)
    if "fast_heuristic_us_per_decision" in h:  # the native heuristic, one call per decision
        out["heuristic_us_per_decision"] = h["fast_heuristic_us_per_decision"]
        out["heuristic_batch_us_per_decision"] = h["fast_heuristic_batch_us_per_decision"]
        out["peer_heuristic_us_per_decision"] = h["heuristic_us_per_decision"]
    else:  # no native core: the Python heuristic is all there is
        out["heuristic_us_per_decision"] = h["heuristic_us_per_decision"]
    for k in ("ppo_env_steps_per_s", "update_samples_per_s", "eval_hands_per_s"):
        if f"peer_{k}" in out:
            out[f"ratio_{k}"] = out[k] / out[f"peer_{k}"]
    if "peer_heuristic_us_per_decision" in out:
        out["ratio_heuristic_speed"] = (out["peer_heuristic_us_per_decision"]
                                        / out["heuristic_us_per_decision"])
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m training.benchmark``; returns the exit code."""
    p = ArgumentParser(prog="python -m training.benchmark", description=__doc__.split("\n")[0])
    p.add_argument("--config", default="configs/classic.yaml", type=existing_file)
    p.add_argument("--seconds", type=positive_float, default=20.0,
                   help="seconds of PPO training measured (default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    try:
        out = run(args.config, args.seconds)
    except ConfigError as e:
        return fail(p.prog, e)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    width = max(len(k) for k in out)
    for k, v in out.items():
        shown = f"{v:,.3f}" if isinstance(v, float) and abs(v) < 10 else (
            f"{v:,.0f}" if isinstance(v, (float, np.floating)) else str(v))
        print(f"{k:<{width}}  {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
