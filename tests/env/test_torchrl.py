"""TorchRL's ``PettingZooWrapper`` on ``canasta_env.env(numeric_infos=True)`` as TorchRL
documents it: ``check_env_specs``, a rollout to the end of a hand, a collector; both
variants."""

from __future__ import annotations

import numpy as np
import pytest

torchrl = pytest.importorskip("torchrl", reason="TorchRL: pip install -e '.[interop]'")
import torch  # noqa: E402
from torchrl.collectors import Collector  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import canasta_env  # noqa: E402
from canasta_env.aec import SHEET_ROWS  # noqa: E402

SIZES = {"classic": (202, 91), "hand_and_foot": (245, 98)}


def _wrapped(variant: str, seed: int = 0) -> PettingZooWrapper:
    return PettingZooWrapper(env=canasta_env.env(variant=variant, numeric_infos=True),
                             use_mask=True, seed=seed)


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_check_env_specs_and_a_whole_hand(variant):
    env = _wrapped(variant, seed=5)
    check_env_specs(env)
    n_obs, n_act = SIZES[variant]
    td = env.rollout(5000, break_when_any_done=True)
    assert td["next", "done"][-1].item() and not td["next", "done"][:-1].any()
    last = td[-1]["next"]
    rewards = torch.stack([last[a, "reward"].reshape(()) for a in canasta_env.AGENTS])
    assert rewards[0] == rewards[2] and rewards[1] == rewards[3]
    assert rewards[0] == -rewards[1]
    info = last["player_0", "info"]
    assert info["hand_over"].item() == 1
    sheets = info["score_sheets"].reshape(2, len(SHEET_ROWS))
    hand = SHEET_ROWS.index("hand_score")
    assert torch.equal(info["hand_scores"].reshape(2), sheets[:, hand])
    diff = float(sheets[0, hand] - sheets[1, hand])
    assert rewards[0].item() == pytest.approx(diff / 1000, abs=1e-6)
    obs = td["player_0", "observation", "observation"]
    assert obs.shape[-1] == n_obs and td["player_0", "action_mask"].shape[-1] == n_act
    # every action the random policy chose was legal for the seat on turn
    for a in canasta_env.AGENTS:
        on_turn = td[a, "mask"].reshape(-1)
        actions = td[a, "action"].reshape(-1)[on_turn]
        masks = td[a, "action_mask"].reshape(-1, n_act)[on_turn]
        assert masks[torch.arange(len(actions)), actions].all()


def _masked_policy(env):
    """One shared MLP per seat, sampling with ``MaskedCategorical`` over the seat's mask."""
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

    n_act = env.full_action_spec["player_0", "action"].space.n
    n_obs = env.observation_spec["player_0", "observation", "observation"].shape[-1]
    net = MLP(in_features=n_obs, out_features=n_act, num_cells=[16])
    return TensorDictSequential(*[ProbabilisticActor(
        TensorDictModule(net, in_keys=[(a, "observation", "observation")], out_keys=[(a, "logits")]),
        in_keys={"logits": (a, "logits"), "mask": (a, "action_mask")}, out_keys=[(a, "action")],
        distribution_class=MaskedCategorical) for a in canasta_env.AGENTS])


def test_collector_plays_whole_hands_with_legal_actions_only():
    torch.manual_seed(0)
    env = _wrapped("classic", seed=1)
    collector = Collector(env, policy=_masked_policy(env), frames_per_batch=256, total_frames=768)
    batches = [b for b in collector]
    collector.shutdown()
    assert [b.numel() for b in batches] == [256, 256, 256]
    data = torch.cat(batches)
    assert int(data["next", "done"].sum()) >= 2  # whole hands, then reset by the collector
    for a in canasta_env.AGENTS:
        acted = data[a, "mask"].reshape(-1)
        actions = data[a, "action"].reshape(-1)[acted]
        masks = data[a, "action_mask"].reshape(acted.shape[0], -1)[acted]
        assert len(actions) > 0 and masks[torch.arange(len(actions)), actions].all()
    ends = data["next", "player_0", "info", "hand_over"].reshape(-1) == 1
    assert torch.equal(ends, data["next", "done"].reshape(-1))
    phases = data["player_0", "info", "phase"].reshape(-1)
    assert set(np.unique(phases.numpy()).tolist()) <= {0.0, 1.0, 2.0, 3.0}
