"""Pieces every training role shares: the config base and the PPO settings
(:mod:`training.common.config`), the command-line helpers (:mod:`training.common.cli`)."""
