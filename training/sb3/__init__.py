"""Training with sb3-contrib's MaskablePPO (``python -m training.train``, ``training.main``).

- :mod:`training.sb3.config`: the run's config (:class:`~training.sb3.config.TrainConfig`).
- :mod:`training.sb3.train`: :func:`~training.sb3.train.train`, read top to bottom, and the
  command.
- :mod:`training.sb3.runs`: the run folder and resuming (what a run may write, what a
  resumed run sets aside).
- :mod:`training.sb3.interrupt`: a stopped run (what it saves, the command that continues).
- :mod:`training.sb3.callbacks`: snapshots, checkpoints, throughput, evaluation.
- :mod:`training.sb3.adapter`, :mod:`training.sb3.batched`: the single-agent view of the
  partnership game, one env per process or many games on the native core.
- :mod:`training.sb3.stacked`: the batched env's network opponents in one stacked pass.
- :mod:`training.sb3.features`: the card-class features extractor.
- :mod:`training.sb3.pretrain`: the warm start (behaviour cloning, DAgger).
- :mod:`training.sb3.checkpoint`: loading a ``.zip`` as a model or a policy.

Nothing is imported here: torch and sb3-contrib load only with the module that needs them.
"""
