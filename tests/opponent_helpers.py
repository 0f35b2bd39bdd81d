"""Shared pieces of the opponent / service / ONNX / play tests: one tiny trained
checkpoint per test session, and positions from real play."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from canasta_env.engine import Game, to_position
from canasta_env.policies import HeuristicPolicy

ROOT = Path(__file__).resolve().parents[1]
_SMOKE: dict[str, Path] = {}


def smoke_checkpoint(tmp_path_factory) -> Path:
    """A MaskablePPO checkpoint trained with configs/smoke.yaml for one rollout (512
    steps, about 10 s), trained once per test session however many modules ask."""
    if "path" not in _SMOKE:
        from training.config import load_config
        from training.train import train

        tmp = tmp_path_factory.mktemp("smoke_checkpoint")
        cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp / "ck"),
                          tensorboard_dir=str(tmp / "tb"), total_timesteps=512)
        _SMOKE["path"] = train(cfg)
    return _SMOKE["path"]


def heuristic_positions(seed: int, every: int = 7, limit: int = 40) -> list[dict]:
    """Positions (seat on turn = ``current`` or the answering partner) met while four
    heuristic players play a hand of ``Game(seed=seed)``; every ``every``-th decision."""
    from canasta_env.engine import NUM_ACTIONS
    from canasta_env.observation import encode

    pol = HeuristicPolicy()
    game = Game(seed=seed)
    out = []
    n = 0
    while not game.hand_over and len(out) < limit:
        if n % every == 0:
            out.append(to_position(game))
        seat = game.to_move
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions()] = 1
        game.apply(pol.act(encode(game, seat), mask))
        n += 1
    return out
