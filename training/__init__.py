"""Training, evaluation and ONNX export for canasta_env (needs the ``training`` extra).

Importing this package registers the loader of MaskablePPO checkpoints (``.zip``) with
:func:`canasta_env.bots.register_loader`, so that every policy spec in the bots
(:class:`canasta_env.bots.Bot`, the service, terminal play, ``load_policy``) may name a
``.zip`` once ``training`` is imported. The registration itself is light: torch and
sb3-contrib are imported only when a ``.zip`` is loaded
(:func:`training.checkpoint.load_policy_checkpoint`).
"""

from canasta_env.bots.loader import register_loader


def _load_checkpoint(path: str):
    """A ``.zip`` checkpoint as a deterministic policy (``training.checkpoint``).

    Raises:
        ImportError: torch / sb3-contrib (the training extra) are missing.
        training.checkpoint.CheckpointError: a bad checkpoint.
    """
    from .checkpoint import load_policy_checkpoint

    return load_policy_checkpoint(path)


register_loader(".zip", _load_checkpoint)
