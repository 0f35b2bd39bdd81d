"""Training, evaluation and ONNX export for canasta_env (needs the ``training`` extra).

By role: :mod:`training.sb3` (MaskablePPO: config, train loop, run folders, envs,
checkpoints), :mod:`training.evaluation` (duplicate deals, figures, ratings),
:mod:`training.rllib` (Ray RLlib), :mod:`training.search` (decision-time search and its
distillation), :mod:`training.export` (ONNX), :mod:`training.common` (the config base,
the PPO settings both trainers share, the command-line helpers). The modules at the top
(``training.main``, ``training.train``, ``training.evaluate``, ``training.serve``,
``training.play``, ...) are the ``python -m`` entry points and the old import paths.

Importing this package registers the loader of MaskablePPO checkpoints (``.zip``) with
:func:`canasta_env.bots.register_loader`, so that every policy spec in the bots
(:class:`canasta_env.bots.Bot`, the service, terminal play, ``load_policy``) may name a
``.zip`` once ``training`` is imported. The registration itself is light: torch and
sb3-contrib are imported only when a ``.zip`` is loaded
(:func:`training.sb3.checkpoint.load_policy_checkpoint`).
"""

from canasta_env.bots.loader import register_loader


def _load_checkpoint(path: str):
    """A ``.zip`` checkpoint as a deterministic policy (``training.sb3.checkpoint``).

    Raises:
        ImportError: torch / sb3-contrib (the training extra) are missing.
        training.sb3.checkpoint.CheckpointError: a bad checkpoint.
    """
    from .sb3.checkpoint import load_policy_checkpoint

    return load_policy_checkpoint(path)


register_loader(".zip", _load_checkpoint)
