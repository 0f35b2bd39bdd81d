"""Shared pieces of the bot / service / ONNX / play tests: one tiny trained checkpoint
per test session, and positions and observations from real play."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import canasta_env
from canasta_env.engine import Game, to_position
from canasta_env.policies import HeuristicPolicy, RandomPolicy

ROOT = Path(__file__).resolve().parents[2]
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


def heuristic_positions(seed: int, every: int = 7, limit: int = 40,
                        variant: str = "classic") -> list[dict]:
    """Positions (seat on turn = ``current`` or the answering partner) met while four
    heuristic players play a hand of ``Game(preset(variant), seed=seed)``; every
    ``every``-th decision."""
    from canasta_env.engine import preset
    from canasta_env.observation import encode

    pol = HeuristicPolicy()
    game = Game(preset(variant), seed=seed)
    out = []
    n = 0
    while not game.hand_over and len(out) < limit:
        if n % every == 0:
            out.append(to_position(game))
        seat = game.to_move
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[game.legal_actions()] = 1
        game.apply(pol.act(encode(game, seat), mask))
        n += 1
    return out


def observations_from_play(n: int, variant: str = "classic") -> tuple[np.ndarray, np.ndarray]:
    """``n`` (observation, mask) pairs of the agent on turn while random and heuristic
    players play hands of ``variant`` through ``canasta_env.raw_env`` (seat kinds
    alternate by hand)."""
    env = canasta_env.raw_env(variant=variant, starting_scores="sample")
    obs, masks = [], []
    hand = 0
    while len(obs) < n:
        env.reset(seed=hand)
        players = [RandomPolicy(seed=hand), HeuristicPolicy()]
        for agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            seat = env.possible_agents.index(agent)
            env.step(players[(seat + hand) % 2].act(o["observation"], o["action_mask"]))
            if len(obs) == n:
                break
        hand += 1
    return np.stack(obs), np.stack(masks)
