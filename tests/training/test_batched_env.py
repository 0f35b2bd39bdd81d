"""The batched training env (training/batched.py) and the VectorGames options it needs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from canasta_env import raw_env
from canasta_env.aec import SCORE_BANDS
from canasta_env.engine import preset
from canasta_env.native import VectorGames, available
from canasta_env.policies import HeuristicPolicy
from tests.helpers.batched import end_rewards

pytestmark = pytest.mark.skipif(not available, reason="the native core is not built")

ROOT = Path(__file__).resolve().parents[2]

from training.batched import HEURISTIC, RANDOM, SELF, SNAPSHOT, BatchedPartnershipVecEnv, check_batched  # noqa: E402


# -- VectorGames: subsets, redeal, starting points -------------------------------------
def test_step_with_active_moves_only_the_active_games():
    vg = VectorGames(4, seed=9)
    before = [vg.position(i) for i in range(4)]
    obs_before = vg.observations.copy()
    acts = vg.sample_actions()
    active = np.array([True, False, True, False])
    vg.step(acts, active=active)
    assert vg.position(1) == before[1] and vg.position(3) == before[3]
    assert np.array_equal(vg.observations[[1, 3]], obs_before[[1, 3]])
    assert vg.position(0) != before[0] and vg.position(2) != before[2]
    assert not vg.dones.any() and not vg.rewards.any()
    # an inactive game's action is not read: even an out-of-range one
    acts = vg.sample_actions()
    acts[1] = 10_000
    vg.step(acts, active=active)
    with pytest.raises(ValueError, match="game 1: action 10000 is outside 0..90"):
        vg.step(acts)
    with pytest.raises(ValueError, match=r"active must be a bool array of shape \(4,\)"):
        vg.step(acts, active=np.ones(4, np.int8))


def test_redeal_starts_the_next_episode_of_those_games_only():
    vg = VectorGames(3, seed=2)
    for _ in range(5):
        vg.step(vg.sample_actions())
    keep = vg.position(1)
    vg.redeal([0, 2])
    fresh = VectorGames(3, seed=2)
    # episode 1 of a game is what it deals after its first hand: not its episode 0
    assert vg.position(0)["hands"] != fresh.position(0)["hands"]
    assert vg.position(1) == keep
    assert vg.position(0)["decisions"] == 0 and vg.position(2)["decisions"] == 0
    assert vg.position(1)["decisions"] == 5
    with pytest.raises(IndexError, match="game index 3 is outside 0..2"):
        vg.redeal([3])


def test_redeal_refuses_a_bool_mask_or_floats_and_changes_nothing():
    # a bool mask read as indices would redeal games 0 and 1 instead of game 2
    vg = VectorGames(4, seed=2)
    before = [vg.position(i) for i in range(4)]
    with pytest.raises(TypeError, match=r"games must be integer indices, got dtype bool"):
        vg.redeal(np.array([False, False, True, False]))
    with pytest.raises(TypeError, match=r"games must be integer indices, got dtype float64"):
        vg.redeal([1.7])
    with pytest.raises(IndexError, match="game index 18446744073709551615 is outside 0..3"):
        vg.redeal(np.array([2**64 - 1], np.uint64))
    assert [vg.position(i) for i in range(4)] == before
    vg.redeal([])  # nothing to redeal
    vg.redeal(np.array([], np.int64))
    assert [vg.position(i) for i in range(4)] == before


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), 0.0, -0.001])
def test_a_reward_scale_that_is_not_a_positive_number_is_refused(scale):
    with pytest.raises(ValueError, match=r"reward_scale must be a positive finite number, got"):
        VectorGames(2, reward_scale=scale)
    with pytest.raises(ValueError, match=r"reward_scale must be a positive finite number, got"):
        BatchedPartnershipVecEnv(2, reward_scale=scale)


def test_sampled_starting_scores_cover_every_band_and_minimum():
    assert SCORE_BANDS == ((-1000, -5), (0, 1495), (1500, 2995), (3000, 4995))
    vg = VectorGames(400, seed=1, starting_scores="sample")
    seen_bands = set()
    for i in range(400):
        for s in vg.position(i)["scores"]:
            assert s % 5 == 0
            band = [k for k, (lo, hi) in enumerate(SCORE_BANDS) if lo <= s <= hi]
            assert len(band) == 1, s
            seen_bands.add(band[0])
    assert seen_bands == {0, 1, 2, 3}
    again = VectorGames(400, seed=1, starting_scores="sample")
    assert [again.position(i)["scores"] for i in range(5)] == \
        [vg.position(i)["scores"] for i in range(5)]


def test_sampled_starting_round_covers_every_round():
    vg = VectorGames(200, preset("hand_and_foot"), seed=4, starting_round="sample")
    rounds = {vg.position(i)["hand_number"] for i in range(200)}
    assert rounds == {0, 1, 2, 3}  # hand_number is 0-based: rounds 1..4
    assert {VectorGames(3, preset("hand_and_foot"), starting_round=3).position(i)["hand_number"]
            for i in range(3)} == {2}


@pytest.mark.parametrize("kw, message", [
    ({"starting_scores": "zero"}, "starting_scores must be 'sample' or two ints"),
    ({"starting_scores": (1, 2, 3)}, "starting_scores must be 'sample' or two ints"),
    ({"starting_scores": (True, 0)}, "starting_scores must be 'sample' or two ints"),
    ({"starting_round": 0}, r"starting_round must be 'sample' or a round 1..1"),
])
def test_bad_starting_points_are_refused(kw, message):
    with pytest.raises(ValueError, match=message):
        VectorGames(2, **kw)


# -- the VecEnv: credit, observations, rewards -----------------------------------------
def _replay_against_python_engine(variant: str, reward: str) -> int:
    """One game, heuristic everywhere: every learner transition's observation and mask
    are the learner seat's in the Python engine's copy of the game, and the reward at
    the end is the learner partnership's. Returns the number of hands checked."""
    env = BatchedPartnershipVecEnv(1, variant, {"heuristic": 1.0}, seed=21, reward=reward,
                                   starting_scores=(0, 0))
    h = HeuristicPolicy()
    obs = env.reset()
    ref = raw_env(variant=variant, backend="python", reward=reward)
    ref.reset(options={"position": env.vg.position(0)})
    team = int(env.team[0])
    hands = 0
    for _ in range(3000):
        agent = ref.agent_selection
        assert int(agent[-1]) % 2 == team, "the slot's decision is the learner's"
        o = ref.observe(agent)
        assert np.array_equal(o["observation"], obs[0])
        assert np.array_equal(o["action_mask"].astype(bool), env.action_masks()[0])
        a = h.act(obs[0], env.vg.masks[0])
        env.step_async(np.array([a]))
        obs, rew, done, infos = env.step_wait()
        ref.step(a)
        me = f"player_{team}"
        total = ref.rewards[me]
        while not (ref.terminations[me] or ref.truncations[me]) and \
                int(ref.agent_selection[-1]) % 2 != team:
            oo = ref.observe(ref.agent_selection)
            ref.step(h.act(oo["observation"], oo["action_mask"]))
            total += ref.rewards[me]
        if done[0]:
            assert ref.terminations[me]
            assert rew[0] == pytest.approx(total, abs=1e-6)
            assert rew[0] != 0 or reward == "win_loss"
            if reward == "win_loss":
                assert rew[0] in (-1.0, 0.0, 1.0)
            hands += 1
            if hands == 2:
                return hands
            ref.reset(options={"position": env.vg.position(0)})
            team = int(env.team[0])
        else:
            assert rew[0] == 0.0 and not ref.terminations[me]
    raise AssertionError("two hands did not finish in 3,000 learner decisions")


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_transitions_are_the_learner_seats_and_rewards_its_partnerships(variant):
    assert _replay_against_python_engine(variant, "score_diff") == 2


def test_win_loss_rewards():
    assert _replay_against_python_engine("classic", "win_loss") == 2


def test_the_learner_is_on_turn_in_every_game_after_each_step_and_sides_vary():
    env = BatchedPartnershipVecEnv(32, "classic", {"random": 0.5, "heuristic": 0.5}, seed=5)
    env.reset()
    rng = np.random.default_rng(0)
    teams, kinds = set(), set()
    for _ in range(300):
        assert ((env.vg.to_move % 2) == env.team).all()
        teams |= set(env.team.tolist())
        kinds |= set(env.opponent_kind.tolist())
        m = env.action_masks()
        env.step_async(np.array([rng.choice(np.flatnonzero(r)) for r in m]))
        env.step_wait()
    assert teams == {0, 1} and kinds == {RANDOM, HEURISTIC}
    assert env.hands_finished > 0


def test_same_seed_same_rollout():
    def run():
        env = BatchedPartnershipVecEnv(8, "classic", {"random": 0.5, "heuristic": 0.5}, seed=3)
        out = [env.reset()]
        for _ in range(150):
            m = env.action_masks()
            env.step_async(m.argmax(axis=1))
            o, r, d, _ = env.step_wait()
            out += [o, r, d]
        return out
    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_max_decisions_truncates_and_deals_again():
    env = BatchedPartnershipVecEnv(4, "classic", {"random": 1.0}, seed=1, max_decisions=30)
    obs = env.reset()
    seen = 0
    for _ in range(40):
        m = env.action_masks()
        last = obs
        env.step_async(m.argmax(axis=1))
        obs, rew, done, infos = env.step_wait()
        for i in np.flatnonzero(done):
            assert infos[i]["TimeLimit.truncated"] is True
            assert np.array_equal(infos[i]["terminal_observation"], last[i])
            assert rew[i] == 0.0
            seen += 1
        assert (env.hand_decisions < 30).all()
    assert seen >= 4


def test_self_play_and_snapshot_opponents_use_networks(tmp_path):
    from sb3_contrib import MaskablePPO

    env = BatchedPartnershipVecEnv(16, "classic", {"self": 1.0}, seed=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    env.set_learner(model.policy)
    env.reset()
    assert set(env.opponent_kind.tolist()) == {SELF}
    for _ in range(50):
        env.step_async(env.action_masks().argmax(axis=1))
        env.step_wait()
    assert env.opponent_net_seconds > 0
    path = tmp_path / "snap.zip"
    model.save(path)
    env.set_snapshots([str(path)], 1.0)
    env._weights = {RANDOM: 0.0, HEURISTIC: 0.0, SELF: 0.0}
    env.reset()
    assert set(env.opponent_kind.tolist()) == {SNAPSHOT}
    for _ in range(50):
        env.step_async(env.action_masks().argmax(axis=1))
        env.step_wait()
    assert ((env.vg.to_move % 2) == env.team).all()


def test_a_snapshot_of_the_other_variant_is_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    from canasta_env.bots.loader import PolicyVariantError

    hf = BatchedPartnershipVecEnv(2, "hand_and_foot", {"random": 1.0})
    MaskablePPO("MlpPolicy", hf, n_steps=8, batch_size=16, device="cpu",
                policy_kwargs={"net_arch": [8]}).save(tmp_path / "hf.zip")
    env = BatchedPartnershipVecEnv(2, "classic", {"random": 1.0})
    with pytest.raises(PolicyVariantError, match="Hand and Foot policy"):
        env.set_snapshots([str(tmp_path / "hf.zip")], 1.0)


@pytest.mark.parametrize("args, message", [
    (("classic", 0, 64, 64), "n_envs must be >= 1 game, got 0"),
    (("classic", 64, 64, 500), r"ppo.batch_size 500 does not divide the rollout "
                                r"n_steps\*n_envs = 64\*64 = 4096"),
    (("classic", 10_000, 4096, 512), "more than half this machine's memory"),
])
def test_layouts_that_cannot_run_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        check_batched(*args, memory_bytes=8 * 2**30)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="num_games must be an int >= 1, got 0"):
        BatchedPartnershipVecEnv(0)
    with pytest.raises(ValueError, match=r"unknown opponent kinds \['league'\]"):
        BatchedPartnershipVecEnv(2, pool={"league": 1.0})
    with pytest.raises(ValueError, match="opponent weights must be finite and >= 0"):
        BatchedPartnershipVecEnv(2, pool={"random": -1.0})
    with pytest.raises(ValueError, match="reward must be one of score_diff, win_loss, "
                                         "win_loss_score, got 'points'"):
        BatchedPartnershipVecEnv(2, reward="points")
    with pytest.raises(ValueError, match=r"pool must be a dict of weights such as \{'random'"):
        BatchedPartnershipVecEnv(2, pool=[(0.5, None)])
    with pytest.raises(ValueError, match=r"call set_learner\(model.policy\) before reset"):
        BatchedPartnershipVecEnv(2, pool={"self": 1.0}).reset()
    with pytest.raises(ValueError, match="max_decisions must be an int >= 1, got True"):
        BatchedPartnershipVecEnv(2, max_decisions=True)  # raw_env refuses a bool too


def test_win_loss_survives_a_tiny_reward_scale_and_reset_replays_sides():
    """win_loss is the sign of the unscaled score difference (a reward_scale of 1e-50
    would underflow in float32), and a second reset replays the same deals with the same
    learner sides and opponents."""
    env = BatchedPartnershipVecEnv(16, "classic", {"random": 0.5, "heuristic": 0.5}, seed=4,
                                   reward="win_loss", reward_scale=1e-50)
    env.reset()
    first = (env.team.copy(), env.opponent_kind.copy(), env.vg.observations.copy())
    ends = end_rewards(env, 400)
    assert ends and set(ends) <= {-1.0, 0.0, 1.0} and {-1.0, 1.0} <= set(ends)
    env.reset()
    assert np.array_equal(env.team, first[0]) and np.array_equal(env.opponent_kind, first[1])
    assert np.array_equal(env.vg.observations, first[2])
    with pytest.raises(ValueError, match="reward_scale must be a positive finite number"):
        BatchedPartnershipVecEnv(2, reward="win_loss", reward_scale=float("nan"))
    # win_loss_score takes its sign from the unscaled points too: +-1 plus a vanishing part
    env = BatchedPartnershipVecEnv(16, "classic", {"random": 0.5, "heuristic": 0.5}, seed=4,
                                   reward="win_loss_score", reward_scale=1e-50)
    assert end_rewards(env, 400) == ends  # the same games, so the same signs


def test_the_batched_env_takes_every_reward_a_config_offers():
    from typing import get_args

    from training.sb3.batched import REWARDS
    from training.sb3.config import TrainConfig

    assert get_args(TrainConfig.model_fields["reward"].annotation) == REWARDS


def test_win_loss_score_is_the_sign_plus_the_scaled_score_difference():
    """``reward="win_loss_score"``: at the end of each hand +1 / -1 / 0 plus the score
    difference times ``reward_scale``, on the same games as ``score_diff`` (0 before)."""
    envs = {kind: BatchedPartnershipVecEnv(16, "classic", {"random": 0.5, "heuristic": 0.5},
                                           seed=4, reward=kind, reward_scale=0.001)
            for kind in ("score_diff", "win_loss_score")}
    for env in envs.values():
        env.reset()
    ends = 0
    for _ in range(400):
        out = {}
        for kind, env in envs.items():
            env.step_async(env.action_masks().argmax(axis=1))
            out[kind] = env.step_wait()
        diff, mixed = out["score_diff"][1], out["win_loss_score"][1]
        assert np.array_equal(out["score_diff"][2], out["win_loss_score"][2])
        np.testing.assert_allclose(mixed, np.sign(diff) + diff, rtol=1e-6, atol=1e-6)
        ends += int(out["score_diff"][2].sum())
        assert np.all(mixed[~out["score_diff"][2]] == 0.0)
    assert ends >= 16  # every game ended a hand at least once on average


def test_vector_games_seed_types_and_duplicate_redeals():
    vg = VectorGames(2, seed=5)
    for bad in ("12", [1.5, 2.5], 2.0, True, [True, 1]):
        with pytest.raises(TypeError, match="seed must be an int or a sequence of 2 ints"):
            vg.reset(bad)
    vg.reset([7, 8])
    once = VectorGames(2, seed=0)
    once.reset([7, 8])
    vg.redeal([0, 0])  # listed twice, dealt once
    once.redeal([0])
    assert vg.position(0) == once.position(0)


def test_fixed_opponents_play_from_the_first_hand_with_their_weights(tmp_path):
    """opponents.fixed: a checkpoint in the pool from the first hand on (a best response's
    frozen opponent), drawn with its weight, decided by its network."""
    import torch

    from training.sb3.batched import SNAPSHOT, BatchedPartnershipVecEnv
    from training.sb3.checkpoint import load_model

    ref = str(ROOT / "checkpoints" / "reference" / "classic.zip")
    env = BatchedPartnershipVecEnv(64, pool={"heuristic": 1.0}, seed=4)
    env.set_fixed({ref: 3.0})
    env.reset()
    share = float(np.mean(env.opponent_kind == SNAPSHOT))
    assert 0.6 < share < 0.9  # 3 : 1 against the heuristic
    assert all(env._game_snapshot[g] == ref for g in np.flatnonzero(env.opponent_kind == SNAPSHOT))
    rows = np.flatnonzero(env.opponent_kind == SNAPSHOT)
    # the network's rows are decided by the reference: its greedy move is legal there
    policy = load_model(ref).policy
    torch.manual_seed(0)
    acts = env._network_actions(policy, rows)
    assert env.vg.masks[rows, acts].all()
    for _ in range(50):
        env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
    with pytest.raises(ValueError, match="weight must be a finite number >= 0"):
        env.set_fixed({ref: -1.0})
    env.close()


def test_a_fixed_opponent_config_is_checked(tmp_path):
    from training.sb3.config import ConfigError, load_config

    text = (ROOT / "configs" / "smoke.yaml").read_text()
    missing = tmp_path / "missing.yaml"
    missing.write_text(text.replace("opponents:\n", "opponents:\n  fixed: {nope.zip: 1.0}\n"))
    with pytest.raises(ConfigError, match="nope.zip is not a checkpoint file"):
        load_config(missing)
    only = tmp_path / "only.yaml"
    ref = ROOT / "checkpoints" / "reference" / "classic.zip"
    only.write_text(text.replace("  random: 0.5\n  heuristic: 0.5\n  snapshots: 0.5\n",
                                 f"  random: 0\n  heuristic: 0\n  snapshots: 0\n  fixed: {{{ref}: 1.0}}\n"))
    cfg = load_config(only)  # a fixed opponent alone is a pool from the first hand
    assert cfg.opponents.fixed == {str(ref): 1.0}
    sub = tmp_path / "sub.yaml"
    sub.write_text(only.read_text().replace("vec_env: batched", "vec_env: dummy"))
    with pytest.raises(ConfigError, match="opponents.fixed needs vec_env: batched"):
        load_config(sub)


def test_styles_opponents_are_the_heuristics_styles():
    """``styles`` spreads its weight over the six styles of the heuristic; each style's
    rows are decided by that style (checked against the Python heuristic with the style's
    parameters), and the styles do not all decide alike."""
    from canasta_env.policies.styles import STYLES, style_policy
    from training.sb3.batched import STYLE

    env = BatchedPartnershipVecEnv(48, "classic", {"styles": 1.0}, seed=4)
    env.reset()
    seen = set()
    for _ in range(60):
        seen |= set(env.opponent_kind.tolist())
        env.step_async(env.action_masks().argmax(axis=1))
        env.step_wait()
    assert seen == {STYLE + j for j in range(len(STYLES))}
    rows = np.flatnonzero(env.action_masks().sum(1) > 1)
    assert len(rows) >= 20
    need = np.zeros(env.num_envs, bool)
    need[rows] = True
    answers = []
    for j, name in enumerate(STYLES):
        env.opponent_kind[:] = STYLE + j
        got = env._opponent_actions(need)[rows].copy()
        python = style_policy(name, backend="python")
        want = [python.act(env.vg.observations[r], env.vg.masks[r]) for r in rows]
        assert got.tolist() == want, name
        answers.append(tuple(got.tolist()))
    assert len(set(answers)) >= 2


def test_styles_opponents_are_refused_outside_classic():
    with pytest.raises(ValueError, match="styles opponents play Classic only"):
        BatchedPartnershipVecEnv(4, "hand_and_foot", {"styles": 0.5, "heuristic": 0.5})
    with pytest.raises(ValueError, match="unknown opponent kinds \\['style'\\]"):
        BatchedPartnershipVecEnv(4, "classic", {"style": 1.0})


def test_a_styles_opponent_config_is_checked(tmp_path):
    from training.sb3.config import ConfigError, load_config
    from training.sb3.train import make_vec_env

    text = (ROOT / "configs" / "smoke.yaml").read_text()
    only = tmp_path / "only.yaml"
    only.write_text(text.replace("  random: 0.5\n  heuristic: 0.5\n  snapshots: 0.5\n",
                                 "  random: 0\n  heuristic: 0\n  snapshots: 0.5\n  styles: 1.0\n"))
    cfg = load_config(only)  # styles alone are a pool from the first hand
    assert cfg.opponents.styles == 1.0
    env = make_vec_env(cfg).venv
    assert set(env._weights.values()) == {0.0, 1.0 / 6}
    hf = tmp_path / "hf.yaml"
    hf.write_text("variant: hand_and_foot\n" + only.read_text())
    with pytest.raises(ConfigError, match="the heuristic's styles play Classic only"):
        load_config(hf)
    sub = tmp_path / "sub.yaml"
    sub.write_text(only.read_text().replace("vec_env: batched", "vec_env: dummy"))
    with pytest.raises(ConfigError, match="opponents.styles needs vec_env: batched"):
        load_config(sub)
