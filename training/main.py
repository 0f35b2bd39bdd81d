"""The project's main job: train the default agent on a config, then evaluate it.

    python -m training.main --config configs/classic.yaml [--total-timesteps N] [--run-name NAME]
        [--seed N] [--torch-threads N]

Trains with :mod:`training.sb3.train` (a run that already finished is not retrained: its
``final.zip`` is evaluated again), then plays ``eval.final_hands`` duplicate hands of the
trained policy against the random and the heuristic baselines and prints both tables,
after the SHA-256 of the final weights (:func:`training.sb3.checkpoint.weights_digest`:
two runs with the same seed on the same machine print the same digest).

Exit codes: 0 done, 2 refused input (a bad option or config, a checkpoint that cannot be
loaded or is of another variant, an unwritable folder: one line on stderr), 130
interrupted (Ctrl-C, or SIGTERM during training: PPO first saves ``model_<steps>.zip``
and prints the ``training.train`` command that finishes the run; the same
``training.main`` command then evaluates its ``final.zip``; during the evaluation the
deals finished are summed up as in ``training.evaluate``).
"""

from __future__ import annotations

import time

from canasta_env.cli import (
    ArgumentParser,
    fail,
    ignore_signals_while_exiting,
    interrupted,
    positive_int,
    require_extra,
    sigterm_as_interrupt,
)

require_extra("python -m training.main", "training")  # before the config imports yaml
from training.common.cli import add_run_flags, add_torch_threads_flag, refuse  # noqa: E402
from training.sb3.config import ConfigError, load_config  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """``python -m training.main`` (``canasta-train``); ``argv`` defaults to
    ``sys.argv[1:]``. Returns the exit code (see the module docstring).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog="python -m training.main", description=__doc__.split("\n")[0])
    add_run_flags(p, config_default="configs/classic.yaml",
                  config_help="YAML training config (default: configs/classic.yaml)")
    add_torch_threads_flag(p)
    p.add_argument("--eval-hands", type=positive_int, default=None,
                   help="override eval.final_hands")
    p.add_argument("--workers", type=positive_int, default=2, help="evaluation processes")
    args = p.parse_args(argv)
    from canasta_env.bots.loader import PolicySpecError
    from training.evaluation import EvaluationInterrupted, evaluate_policies, format_table
    from training.sb3.checkpoint import CheckpointError, weights_digest
    from training.sb3.train import stopped_message, train

    t0 = time.time()
    from training.common.progress import interval

    try:  # a bad progress interval is refused now, not when the first phase starts
        interval()
    except ValueError as e:
        return fail(p.prog, e)
    try:
        with sigterm_as_interrupt():
            cfg = load_config(args.config, total_timesteps=args.total_timesteps,
                              run_name=args.run_name, torch_threads=args.torch_threads,
                              seed=args.seed)
            final = cfg.run_dir / "final.zip"
            trained = not final.exists()
            if not trained:
                print(f"{final} exists: evaluating it (to retrain, train under another "
                      f"name: --run-name NAME, or delete the run's folder {cfg.run_dir}/)")
            else:
                final = train(cfg)
    except (ConfigError, CheckpointError, OSError) as e:  # OSError: an unwritable folder
        return refuse(p.prog, e)
    except KeyboardInterrupt as stop:
        ignore_signals_while_exiting()  # saved: a second Ctrl-C must not cut the exit short
        said = stopped_message(stop, args.config, args.run_name, args.total_timesteps,
                               args.torch_threads, args.seed)
        return interrupted(p.prog, f"training stopped; {said}")
    t_train = time.time() - t0
    hands = args.eval_hands or cfg.eval.final_hands
    what = f"trained {final} in {t_train / 60:.1f} min; evaluating it" if trained else \
        f"evaluating {final}"
    print(f"\n{what} on {hands} duplicate hands")
    try:
        print(f"final weights sha256: {weights_digest(final)}")
    except CheckpointError as e:  # an existing final.zip that is not a checkpoint
        return refuse(p.prog, e)
    for opponent in ("random", "heuristic"):
        try:
            res = evaluate_policies(str(final), opponent, hands, seed=cfg.eval.seed,
                                    variant=cfg.variant, workers=args.workers, progress=True)
        except EvaluationInterrupted as stop:
            print(f"\n== {final} vs {opponent} (interrupted: "
                  f"{len(stop.episodes) // 2} of {stop.deals} deals) ==")
            print(format_table(stop.result))
            return interrupted(p.prog, "evaluation stopped")
        except (PolicySpecError, ValueError) as e:  # a final.zip of another variant
            return fail(p.prog, e)
        print(f"\n== {final} vs {opponent} ==")
        print(format_table(res))
    print(f"\nmain job wall time: {(time.time() - t0) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
