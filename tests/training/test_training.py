"""Training pipeline: config validation, the partnership adapter, a smoke run that
trains, saves, reloads, resumes and evaluates, and checkpoint errors."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")

from canasta_env import OBS_SIZE  # noqa: E402
from canasta_env.engine import NUM_ACTIONS  # noqa: E402
from canasta_env.policies import RandomPolicy  # noqa: E402
from training.adapter import PartnershipEnv  # noqa: E402
from training.checkpoint import CheckpointError, load_model, load_policy_checkpoint  # noqa: E402
from training.config import ConfigError, TrainConfig, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- config
def test_shipped_configs_validate():
    for name in ("classic", "smoke", "hand_and_foot", "classic_reference",
                 "hand_and_foot_reference", "hand_and_foot_long"):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        assert isinstance(cfg, TrainConfig)
    assert load_config(ROOT / "configs" / "classic.yaml").starting_scores == "sample"
    assert load_config(ROOT / "configs" / "classic.yaml").ppo.features == "card_classes"


@pytest.mark.parametrize("text, needle", [
    ("run_name: x\nlearning_rat: 0.1\n", "learning_rat"),
    ("ppo: {learning_rate: -1}\n", "ppo.learning_rate"),
    ("n_envs: 0\n", "n_envs"),
    ("ppo: {n_steps: 16, batch_size: 64}\nn_envs: 1\n", "batch_size"),
    ("opponents: {random: 0, heuristic: 0, snapshots: 0}\n", "weights"),
    ("- a\n- b\n", "mapping"),
    ("run_name: [unclosed\n", "not valid YAML"),
    ("run_name: 'bad/name'\n", "run_name"),
    ("run_name: '..'\n", "run_name"),
    ("ppo: {learning_rate: .inf}\n", "ppo.learning_rate"),
    ("pretrain: {decisions: 100, dagger_learning_rate: .nan, dagger_rounds: 1}\n",
     "pretrain.dagger_learning_rate"),
    ("seed: -3\n", "seed"),
    ("pretrain: {decisions: 0, dagger_rounds: 2}\n", "dagger_rounds needs pretrain.decisions"),
    ("pretrain: {decisions: 100, dagger_rounds: -1}\n", "pretrain.dagger_rounds"),
    ("reward: points\n", "reward"),
    ("ppo: {features: cnn}\n", "ppo.features"),
    ("ppo: {features: card_classes, class_channels: 0}\n", "ppo.class_channels"),
    ("ppo: {class_hidden: 100000000}\n", "ppo.class_hidden"),
    ("ppo: {class_channels: true}\n", "ppo.class_channels"),
    ("ppo: {class_layers: 0}\n", "ppo.class_layers"),
    ("ppo: {class_layers: 1.5}\n", "ppo.class_layers"),
    # the learning-rate anneal: an end rate to anneal to, and a start before the end
    ("ppo: {anneal_from: 100}\n",
     "ppo.anneal_from is set but ppo.learning_rate_final is not"),
    ("total_timesteps: 1000\nppo: {learning_rate_final: 0, anneal_from: 1000}\n",
     r"ppo.anneal_from \(1,000 steps\) must be below total_timesteps \(1,000\)"),
    ("ppo: {learning_rate_final: -0.1}\n", "ppo.learning_rate_final"),
    ("ppo: {learning_rate_final: .nan}\n", "ppo.learning_rate_final"),
    ("ppo: {learning_rate_final: 0, anneal_from: -5}\n", "ppo.anneal_from"),
    ("ppo: {learning_rate_final: true, anneal_from: 1}\n",
     "ppo.learning_rate_final: expected a number, not true or false"),
    # every number refuses true / false (pydantic alone reads them as 1 / 0), and a
    # number too large for the thread count is refused before torch sees it
    ("ppo: {learning_rate: true}\n", "ppo.learning_rate: expected a number, not true"),
    ("seed: false\n", "seed: expected a number, not true or false"),
    ("torch_threads: 100000\n", r"torch_threads: .*less than or equal to 256 \(got 100000\)"),
    ("ppo: {learning_rate: 0}\n", r"ppo.learning_rate: .*greater than 0 \(got 0\)"),
    ("vec_env: " + "x" * 1000 + "\n", r"vec_env: .*\(got 'x{78}… \(1,002 characters\)\)"),
    ("torch_threads: " + "9" * 5000 + "\n", "holds a value this reader refuses"),
    ("ppo: {learning_rate_final: 0.0, anneal_from: true}\n", "ppo.anneal_from"),
    ("ppo: {learning_rate_final: 0.0, anneal_from: 1024.5}\n",
     r"ppo.anneal_from: .*fractional part \(got 1024.5\)"),
    ("ppo: {learning_rate: abc}\n", "ppo.learning_rate: expected a number, not the text 'abc'"),
    # text where a number is expected is refused, not read (pydantic alone takes '0.5')
    ("opponents: {random: '0.5'}\n", "opponents.random: expected a number, not the text "
     "'0.5' \\(write it without quotes\\)"),
    ("seed: '7'\n", "seed: expected a number, not the text '7'"),
    # relative weights whose sum overflows would fail at the first draw
    ("opponents: {random: 1.0e308, heuristic: 1.0e308}\n",
     "opponents weights must have a finite sum|opponent weights must have a finite sum"),
    ("ppo: {learning_rate: 1.0e-4, learning_rate_final: 2.0e-4}\n",
     r"ppo.learning_rate_final \(0.0002\) is above ppo.learning_rate \(0.0001\): an anneal "
     r"only lowers the learning rate"),
    # the batched env (the default vec_env): zero games, a batch that does not divide the
    # rollout, a rollout buffer larger than memory allows; self-play only there
    ("n_envs: 64\nppo: {n_steps: 64, batch_size: 500}\n",
     "ppo.batch_size 500 does not divide the rollout n_steps.n_envs = 64.64 = 4096"),
    ("n_envs: 65536\nppo: {n_steps: 100000}\n", "more than half this machine's memory"),
    ("n_envs: 65537\n", "n_envs"),
    ("vec_env: subproc\nn_envs: 65\n", "at most 64 processes"),
    ("vec_env: subproc\nopponents: {self: 0.5}\n", "opponents.self needs vec_env: batched"),
    ("opponents: {random: 0, heuristic: 0, snapshots: 0, self: -1}\n", "opponents.self"),
    # snapshots alone: nothing to play the first hands (no snapshot is saved yet)
    ("opponents: {random: 0, heuristic: 0, snapshots: 1}\n",
     "opponents.snapshots cannot be the only opponent"),
    ("vec_env: subproc\nopponents: {random: 0, heuristic: 0, snapshots: 1}\n",
     "opponents.snapshots cannot be the only opponent"),
])
def test_bad_config_is_a_clear_error(tmp_path, text, needle):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=needle.replace("[", r"\[")):
        load_config(p)


def test_linear_anneal_values(tmp_path):
    """The schedule: constant until anneal_from, then linear to the final rate at the
    run's total steps, as SB3 calls it (progress_remaining = 1 - steps / total)."""
    from training.config import LinearAnneal

    s = LinearAnneal(start=1e-4, final=0.0, anneal_from=1_000, total=3_000)
    assert [s.at(n) for n in (0, 500, 1_000)] == [1e-4, 1e-4, 1e-4]
    assert s.at(2_000) == pytest.approx(5e-5) and s.at(2_500) == pytest.approx(2.5e-5)
    assert s.at(3_000) == 0.0 and s.at(4_000) == 0.0  # past the target: the final rate
    assert s(1.0) == 1e-4 and s(0.5) == pytest.approx(1e-4 * 0.75) and s(0.0) == 0.0
    for bad in ((3_000, 3_000), (-1, 3_000), (4_000, 3_000)):
        with pytest.raises(ValueError, match="need 0 <= anneal_from < total"):
            LinearAnneal(1e-4, 0.0, *bad)
    # YAML 1.1 reads 1e-5 (no dot) as a string: accepted as the number, as learning_rate is
    p = tmp_path / "c.yaml"
    p.write_text("ppo: {learning_rate_final: 1e-5, anneal_from: 1024.0}\n")
    assert (load_config(p).ppo.learning_rate_final, load_config(p).ppo.anneal_from) == \
        (1e-5, 1024)
    # and an integral 1e7 / 3.2e6 is the integer (a fraction stays refused)
    p.write_text("total_timesteps: 1e7\nppo: {learning_rate_final: 0.0, anneal_from: 3.2e6}\n")
    assert (load_config(p).total_timesteps, load_config(p).ppo.anneal_from) == \
        (10_000_000, 3_200_000)
    p.write_text("total_timesteps: 1.5e0\n")
    with pytest.raises(ConfigError, match="total_timesteps: .*integer"):
        load_config(p)
    cfg = TrainConfig(total_timesteps=3_000, ppo={"learning_rate": 1e-4,
                                                  "learning_rate_final": 0.0,
                                                  "anneal_from": 1_000})
    assert cfg.learning_rate() == s
    assert TrainConfig(ppo={"learning_rate": 2e-4}).learning_rate() == 2e-4


def test_a_check_across_fields_names_the_command_line(tmp_path):
    """A value from the command line that breaks a check across fields is named, and the
    message has no empty field name in front."""
    p = tmp_path / "c.yaml"
    p.write_text("total_timesteps: 5000\nppo: {learning_rate_final: 0.0, anneal_from: 2000}\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, total_timesteps=1500)
    assert str(e.value) == (
        f"invalid config {p}:\n  ppo.anneal_from (2,000 steps) must be below total_timesteps "
        f"(1,500), where the anneal ends (total_timesteps=1500 given on the command line)")
    p.write_text("pretrain: {decisions: 0, dagger_rounds: 2}\n")
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert str(e.value).startswith(f"invalid config {p}:\n  pretrain.dagger_rounds needs")


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")


# ----------------------------------------------------------------------------- adapter
def test_adapter_transitions_belong_to_the_learner_seat():
    pool = [(1.0, lambda rng: RandomPolicy(seed=int(rng.integers(1000))))]
    env = PartnershipEnv(pool, starting_scores="sample")
    rng = np.random.default_rng(0)
    for ep in range(20):
        obs, _ = env.reset(seed=ep)
        done = False
        steps = 0
        while not done:
            raw = env.raw
            seat = int(raw.agent_selection[-1])
            assert seat % 2 == env.team
            own = raw.observe(raw.agent_selection)
            np.testing.assert_array_equal(obs, own["observation"])
            mask = env.action_masks()
            np.testing.assert_array_equal(mask, own["action_mask"].astype(bool))
            assert mask.any()
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
            steps += 1
            if not done:
                assert reward == 0.0
        hs = info["hand_scores"]
        mine, theirs = hs[env.team], hs[1 - env.team]
        assert reward == pytest.approx((mine - theirs) * 0.001)
        assert steps > 5


def test_adapter_spaces():
    env = PartnershipEnv([(1.0, lambda rng: RandomPolicy(seed=0))])
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == NUM_ACTIONS


# ----------------------------------------------------------------------------- smoke run
def _events(tb_dir: Path) -> tuple[set[str], set[str]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    scalars: set[str] = set()
    texts: set[str] = set()
    for run in tb_dir.iterdir():
        acc = EventAccumulator(str(run), size_guidance={"tensors": 0})
        acc.Reload()
        scalars |= set(acc.Tags()["scalars"])
        texts |= set(acc.Tags()["tensors"])
    return scalars, texts


def test_smoke_config_trains_saves_resumes_and_evaluates(tmp_path):
    from training.evaluate import evaluate_policies
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"))
    final = train(cfg)
    run = tmp_path / "ck" / "smoke"
    assert final == run / "final.zip" and final.is_file()
    assert (run / "config.yaml").is_file()
    assert load_model(run / "pretrained.zip").num_timesteps == 0  # the warm start, kept
    from training.features import CardClassFeatures

    reloaded = load_model(final)  # the smoke config's extractor survives save / load
    assert isinstance(reloaded.policy.features_extractor, CardClassFeatures)
    assert reloaded.policy.features_extractor.features_dim == 202 + 15 * 4
    assert load_config(run / "config.yaml") == cfg
    assert sorted(p.name for p in run.glob("model_*.zip")), "periodic checkpoints written"
    assert list((run / "snapshots").glob("snapshot_*.zip")), "snapshots join the opponent pool"
    assert final.stat().st_size < 5_000_000
    tb_runs = list((tmp_path / "tb").iterdir())
    assert len(tb_runs) == 1
    scalars, texts = _events(tmp_path / "tb")
    for tag in ("eval_random/win_rate", "eval_heuristic/win_rate",
                "eval_random/mean_score_diff", "eval_heuristic/decisions_per_hand",
                "time/env_steps_per_s", "time/ppo_env_share"):
        assert tag in scalars, tag
    assert any(t.startswith("eval_random/opening_success_") for t in scalars)
    assert {"pretrain/accuracy", "pretrain/dagger_agreement_0"} <= scalars
    assert "hyperparameters/text_summary" in texts

    # a second run with the same name does not overwrite the first one
    with pytest.raises(ConfigError, match="already holds"):
        train(cfg)

    # resume continues the same TensorBoard run and the step count
    # with the config's PPO settings (the config.yaml written beside it is true)
    before = load_model(final).num_timesteps
    ppo2 = cfg.ppo.model_copy(update={"learning_rate": 2.5e-4, "ent_coef": 0.02,
                                      "clip_range": 0.15, "n_epochs": 3})
    cfg2 = cfg.model_copy(update={"total_timesteps": before + 512, "ppo": ppo2})
    assert (cfg.ppo.learning_rate, cfg.ppo.ent_coef, cfg.ppo.clip_range, cfg.ppo.n_epochs) != \
        (2.5e-4, 0.02, 0.15, 3)
    final2 = train(cfg2, resume=str(final))
    resumed = load_model(final2)
    assert resumed.num_timesteps >= before + 512
    assert (resumed.learning_rate, resumed.ent_coef, resumed.n_epochs) == (2.5e-4, 0.02, 3)
    assert resumed.clip_range(1.0) == 0.15 and resumed.lr_schedule(1.0) == 2.5e-4
    assert resumed.policy.optimizer.param_groups[0]["lr"] == 2.5e-4
    assert load_config(run / "config.yaml") == cfg2
    assert load_config(run / f"config_{before:09d}.yaml") == cfg  # what ran up to there
    import yaml

    assert yaml.safe_load((run / "resumes.yaml").read_text()) == [
        {"checkpoint": str(run / f"final_{before:09d}.zip"), "steps": before,
         "total_timesteps": before + 512,
         "time": yaml.safe_load((run / "resumes.yaml").read_text())[0]["time"]}]

    assert load_model(run / f"final_{before:09d}.zip").num_timesteps == before  # kept
    assert len(list((tmp_path / "tb").iterdir())) == 1

    # resuming from an earlier checkpoint would write over later files: refused, and
    # nothing in the run folder changes
    earliest = sorted(run.glob("model_*.zip"))[0]
    saved = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    cfg3 = cfg2.model_copy(update={"seed": 5})
    newest = load_model(final2).num_timesteps
    with pytest.raises(ConfigError, match=r"holds files saved after the .* resuming from it "
                                          r"would overwrite them: resume from the run's newest "
                                          rf"checkpoint \({run / 'final.zip'}, {newest:,} "
                                          r"steps\), or branch off under another run name "
                                          r"\(--run-name NAME\)"):
        train(cfg3, resume=str(earliest))
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == saved
    # a target the checkpoint has already reached trains nothing: refused, nothing written
    with pytest.raises(ConfigError, match=f"has trained {newest:,} steps already, and the "
                                          f"target .* is {newest:,}: nothing to train"):
        train(cfg2.model_copy(update={"total_timesteps": newest}), resume=str(final2))
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == saved
    # under another run name (--run-name) it branches off, with the config's seed
    from training.config import dump_config
    from training.train import main as train_main

    dump_config(cfg3, tmp_path / "cfg3.yaml")
    assert train_main(["--config", str(tmp_path / "cfg3.yaml"), "--resume", str(earliest),
                       "--run-name", "smoke_branch", "--torch-threads", "2"]) == 0
    import torch

    assert torch.get_num_threads() == 2
    torch.set_num_threads(cfg.torch_threads)
    branch = tmp_path / "ck" / "smoke_branch" / "final.zip"
    assert load_model(branch).seed == 5
    assert load_config(branch.parent / "config.yaml").run_name == "smoke_branch"
    assert load_config(branch.parent / "config.yaml").torch_threads == 2 != cfg.torch_threads
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == saved

    # reload as a policy and evaluate on duplicate deals
    pol = load_policy_checkpoint(final2)
    res = evaluate_policies(pol, "random", hands=4, seed=3)
    assert res["hands"] == 4
    assert 0.0 <= res["win_rate"] <= 1.0
    res2 = evaluate_policies(str(final2), "random", hands=4, seed=3)
    assert res2["win_rate"] == res["win_rate"]
    assert res2["mean_score_diff"] == res["mean_score_diff"]


# ----------------------------------------------------------------------------- errors
def test_resume_keeps_every_file_and_never_points_back_at_itself(tmp_path):
    """Found by a break-it review: an interrupted run's snapshots past its newest
    checkpoint blocked every resume, and the refusal named the refused checkpoint as the
    one to resume from; an unreadable final.zip lost the resumed run's final model; a
    resume into another run's folder mixed the two runs."""
    import shutil

    from training.train import main as train_main
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"))
    final = train(cfg)
    run = final.parent
    steps = load_model(final).num_timesteps
    newest_model = max(run.glob("model_*.zip"))
    assert load_model(newest_model).num_timesteps == steps

    # an interrupted run: snapshots saved after its newest checkpoint, no final.zip
    final.rename(tmp_path / "away.zip")
    snap = next((run / "snapshots").glob("snapshot_*.zip"))
    late = run / "snapshots" / f"snapshot_{steps + 64:09d}.zip"
    shutil.copy(snap, late)
    late_bytes = late.read_bytes()
    out = train(cfg.model_copy(update={"total_timesteps": steps + 512}),
                resume=str(newest_model))
    assert load_model(out).num_timesteps >= steps + 512
    aside = run / "snapshots" / f"after_{steps:09d}" / late.name
    assert aside.read_bytes() == late_bytes  # kept, out of the opponent pool
    assert not late.exists() or late.read_bytes() != late_bytes

    # a later checkpoint file that does not load: refused, and the refusal does not send
    # the user back to the checkpoint it refused
    junk = run / "model_999999999.zip"
    junk.write_bytes(b"")
    with pytest.raises(ConfigError) as e:
        train(cfg.model_copy(update={"total_timesteps": 10**9 + 1}), resume=str(out))
    assert "model_999999999.zip" in str(e.value) and "resume from" not in str(e.value)
    assert str(e.value).endswith("branch off under another run name (--run-name NAME)")
    junk.unlink()

    # an unreadable final.zip is kept aside, and the resumed run's final model is saved
    out.write_bytes(b"not a checkpoint")
    newest_model = max(run.glob("model_*.zip"))
    n = load_model(newest_model).num_timesteps
    out2 = train(cfg.model_copy(update={"total_timesteps": n + 256}), resume=str(newest_model))
    assert load_model(out2).num_timesteps >= n + 256
    assert (run / "final_unreadable.zip").read_bytes() == b"not a checkpoint"

    # another run's checkpoint into this folder: refused, nothing written
    saved = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    with pytest.raises(ConfigError, match="holds files of another run, and .* is not one of "
                                          r"its checkpoints: .*--run-name NAME"):
        train(cfg.model_copy(update={"total_timesteps": 10**6}),
              resume=str(tmp_path / "away.zip"))
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == saved

    # too long a run name is refused before anything is written
    from training.config import dump_config

    dump_config(cfg, tmp_path / "c.yaml")
    assert train_main(["--config", str(tmp_path / "c.yaml"), "--run-name", "L" * 101]) == 2
    assert sorted(p.name for p in (tmp_path / "ck").iterdir()) == ["smoke"]


def test_corrupt_checkpoint_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"this is not a zip file")
    with pytest.raises(CheckpointError, match="not a MaskablePPO .zip"):
        load_model(bad)
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("data", "{not json")
    with pytest.raises(CheckpointError, match="could not be loaded|does not match"):
        load_model(broken)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_model(tmp_path / "missing.zip")


def test_mismatched_checkpoint_is_a_clear_error(tmp_path):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    class Other(gym.Env):
        observation_space = gym.spaces.Box(0, 1, (7,), np.float32)
        action_space = gym.spaces.Discrete(3)

        def reset(self, *, seed=None, options=None):
            return np.zeros(7, np.float32), {}

        def step(self, a):
            return np.zeros(7, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(3, bool)

    path = tmp_path / "other.zip"
    MaskablePPO("MlpPolicy", Other(), n_steps=8, batch_size=8).save(path)
    with pytest.raises(CheckpointError, match=r"observation shape \(7,\) and 3 actions"):
        load_model(path)


def test_config_path_that_is_a_directory(tmp_path):
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)


def test_an_interrupted_run_is_not_overwritten(tmp_path):
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"))
    snap = cfg.run_dir / "snapshots" / "snapshot_000000016.zip"
    snap.parent.mkdir(parents=True)
    snap.write_bytes(b"left by an interrupted run")
    with pytest.raises(ConfigError, match="already holds"):
        train(cfg)
    assert snap.read_bytes() == b"left by an interrupted run"


def test_a_classic_checkpoint_refuses_another_variants_observation(tmp_path):
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"), total_timesteps=256)
    pol = load_policy_checkpoint(train(cfg))
    with pytest.raises(ValueError, match=r"observation has 245 entries, this Classic policy "
                       r"expects 202 \(a Hand and Foot observation: another variant\)"):
        pol.act(np.zeros(245, np.float32), np.ones(98, np.int8))


def _hand_and_foot_positions(n: int):
    """``n`` real Hand and Foot (observation, mask) rows of heuristic play with at least
    two legal actions."""
    from canasta_env.engine import preset
    from canasta_env.native import VectorGames
    from canasta_env.policies import HeuristicPolicy

    h = HeuristicPolicy()
    vg = VectorGames(8, preset("hand_and_foot"), seed=3)
    obs, masks = [], []
    while len(obs) < n:
        keep = vg.masks.sum(1) >= 2
        obs += list(vg.observations[keep].copy())
        masks += list(vg.masks[keep].copy())
        vg.step(h.act_batch(vg.observations, vg.masks))
    return np.stack(obs[:n]), np.stack(masks[:n])

def test_hand_and_foot_trains_and_evaluates(tmp_path):
    from training.evaluate import evaluate_policies
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"), total_timesteps=512,
                      variant="hand_and_foot", run_name="smoke_hf",
                      progress_bar=True)  # as the shipped configs: SB3's bar needs tqdm + rich
    final = train(cfg)
    model = load_model(final)
    assert model.observation_space.shape == (245,) and model.action_space.n == 98
    res = evaluate_policies(load_policy_checkpoint(final), "random", hands=2, seed=1,
                            variant="hand_and_foot")
    assert res["hands"] == 2
    from canasta_env.bots.onnx_policy import OnnxPolicy
    from training.checkpoint import CheckpointPolicy
    from training.export_onnx import export_onnx

    onnx = OnnxPolicy(export_onnx(final, tmp_path / "hf.onnx"))   # either variant exports
    assert (onnx.obs_size, onnx.num_actions, onnx.variant) == (245, 98, "hand_and_foot")
    torch_policy = CheckpointPolicy(str(final))
    obs, masks = _hand_and_foot_positions(40)
    np.testing.assert_array_equal(onnx.act_batch(obs, masks),
                                  [torch_policy.act(o, m) for o, m in zip(obs, masks)])


def test_resume_with_another_network_is_a_clear_error(tmp_path):
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"), total_timesteps=256,
                      pretrain={"decisions": 0})
    final = train(cfg)
    steps = load_model(final).num_timesteps
    more = cfg.model_copy(update={"total_timesteps": steps + 1024})
    for ppo in ({"features": "mlp"}, {"class_hidden": 32}, {"class_layers": 1},
                {"net_arch": [32]}):
        other = more.model_copy(update={"ppo": cfg.ppo.model_copy(update=ppo)})
        with pytest.raises(ConfigError, match="network differs"):
            train(other, resume=str(final))
    assert load_model(final).num_timesteps == steps  # nothing saved was touched


def test_snapshot_opponents_are_loaded_once_per_snapshot(tmp_path):
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"), total_timesteps=256)
    snap = str(train(cfg))
    env = PartnershipEnv([(1e-9, lambda rng: RandomPolicy(seed=0))])
    env.set_snapshots([snap], 1.0)
    opponents = set()
    for ep in range(4):
        env.reset(seed=ep)
        opponents.add(id(env.opponent))
    assert len(opponents) == 1 and list(env._loaded) == [snap]
    env.set_snapshots([], 0.0)
    env.reset(seed=9)
    assert isinstance(env.opponent, RandomPolicy)


def test_a_resumed_run_follows_the_learning_rate_anneal(tmp_path):
    """A run resumed with ``learning_rate_final`` / ``anneal_from`` anneals over the run's
    own step count: the first leg (2,048 steps, constant 3e-4) is resumed under a config
    annealing from 2,048 to 0 at 4,096 steps; its two updates (rollouts of 8 x 128 = 1,024
    steps) run at 1.5e-4 (after 3,072 steps) and 0 (after 4,096)."""
    from training.train import train

    cfg = _no_warm_start(tmp_path, 2048)
    first = train(cfg)
    assert load_model(first).policy.optimizer.param_groups[0]["lr"] == 3e-4
    ppo = cfg.ppo.model_copy(update={"learning_rate_final": 0.0, "anneal_from": 2048})
    cfg2 = TrainConfig(**{**cfg.model_dump(), "total_timesteps": 4096,
                          "ppo": ppo.model_dump()})
    final = train(cfg2, resume=str(first))
    run = tmp_path / "ck" / "smoke"
    # a checkpoint is saved during the next rollout, after the update before it
    assert load_model(run / "model_000004096.zip").policy.optimizer.param_groups[0]["lr"] \
        == pytest.approx(1.5e-4)
    model = load_model(final)
    assert model.num_timesteps == 4096
    assert model.policy.optimizer.param_groups[0]["lr"] == 0.0
    assert model.lr_schedule(0.25) == pytest.approx(1.5e-4)  # saved with the model
    assert load_config(run / "config.yaml") == cfg2
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    rates = []
    for events in sorted((tmp_path / "tb").rglob("events.out.tfevents.*")):
        acc = EventAccumulator(str(events))
        acc.Reload()
        if "train/learning_rate" in acc.Tags()["scalars"]:
            rates += [(e.step, e.value) for e in acc.Scalars("train/learning_rate")]
    # SB3 writes an update's train/* values at the next rollout's end (its log step), and
    # the last update's never: the update after 3,072 steps shows at 4,096
    assert [(n, round(v, 9)) for n, v in rates if n > 2048] == [(4096, 1.5e-4)]


def test_a_run_records_what_auto_resolved_to_and_its_resume_keeps_it(tmp_path, monkeypatch,
                                                                      capsys):
    """``ppo.precision: auto`` is resolved once, when the run starts: config.yaml records
    the arithmetic used, and a resume into the same folder takes it from there instead of
    measuring again (here the measurement would say the opposite)."""
    import training.sb3.precision as precision
    from training.train import train

    cfg = _no_warm_start(tmp_path, 1024)
    cfg = cfg.model_copy(update={"ppo": cfg.ppo.model_copy(update={"precision": "auto"})})
    monkeypatch.setattr(precision, "bf16_fast", lambda: True)
    first = train(cfg)
    run = tmp_path / "ck" / "smoke"
    assert load_config(run / "config.yaml").ppo.precision == "bf16"
    assert "network arithmetic: bf16 (ppo.precision: auto" in capsys.readouterr().out
    monkeypatch.setattr(precision, "bf16_fast", lambda: False)
    train(cfg.model_copy(update={"total_timesteps": 2048}), resume=str(first))
    assert "network arithmetic: bf16 (ppo.precision: bf16)" in capsys.readouterr().out
    assert load_config(run / "config.yaml").ppo.precision == "bf16"
    assert load_config(run / "config_000001024.yaml").ppo.precision == "bf16"
    # a new run of the same config measures: fp32 now
    other = cfg.model_copy(update={"run_name": "smoke_other"})
    train(other)
    assert load_config(tmp_path / "ck" / "smoke_other" / "config.yaml").ppo.precision == "fp32"


@pytest.mark.parametrize("vec_env", ["subproc", "dummy"])
def test_the_unbatched_envs_train(tmp_path, vec_env):
    """``vec_env: subproc`` / ``dummy`` (one PartnershipEnv per process / all in this one)
    train, snapshot and save; their envs do not time themselves, so TensorBoard has the
    throughput but no ``time/ppo_env_share`` (the subprocess crashed when asked for its
    timers before)."""
    from training.train import train

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"), vec_env=vec_env, n_envs=2,
                      total_timesteps=512, checkpoint_every=256)
    cfg = cfg.model_copy(update={
        "pretrain": cfg.pretrain.model_copy(update={"decisions": 0, "dagger_rounds": 0}),
        "ppo": cfg.ppo.model_copy(update={"n_steps": 128, "batch_size": 128}),
        "opponents": cfg.opponents.model_copy(update={"snapshot_every": 256})})
    final = train(cfg)
    assert load_model(final).num_timesteps == 512
    run = tmp_path / "ck" / "smoke"
    assert [p.name for p in sorted(run.glob("model_*.zip"))] == [
        "model_000000256.zip", "model_000000512.zip"]
    scalars, _ = _events(tmp_path / "tb")
    assert "time/env_steps_per_s" in scalars and "time/ppo_env_share" not in scalars


def test_win_loss_reward_config_reaches_the_learner(tmp_path):
    """``reward: win_loss`` in a config: the learner's end-of-hand reward is the sign of
    its partnership's hand-score difference (+1 / -1 / 0), 0 before."""
    from training.train import env_kwargs

    cfg = TrainConfig(reward="win_loss")
    pool = [(1.0, lambda rng: RandomPolicy(seed=int(rng.integers(1000))))]
    env = PartnershipEnv(pool, **env_kwargs(cfg))
    rng = np.random.default_rng(1)
    signs = set()
    for ep in range(12):
        env.reset(seed=100 + ep)
        done = False
        while not done:
            mask = env.action_masks()
            _, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
            if not done:
                assert reward == 0.0
        hs = info["hand_scores"]
        diff = hs[env.team] - hs[1 - env.team]
        assert reward == float(np.sign(diff))
        signs.add(reward)
    assert signs >= {1.0, -1.0}
    bad = tmp_path / "bad.yaml"
    bad.write_text("reward: points\n")
    with pytest.raises(ConfigError, match="reward"):
        load_config(bad)



def test_dagger_data_is_the_clones_positions_labelled_by_the_heuristic():
    """DAgger: every recorded position is one the model reached on its own turn, the
    label is what the heuristic plays there, and the reported agreement is the share of
    positions where the model's own choice equalled that label."""
    import torch
    from sb3_contrib import MaskablePPO

    from canasta_env.policies import HeuristicPolicy
    from training.pretrain import collect_on_policy

    env = PartnershipEnv([(1.0, lambda rng: RandomPolicy(seed=0))])
    model = MaskablePPO("MlpPolicy", env, seed=0, policy_kwargs={"net_arch": [32]},
                        device="cpu")
    obs, masks, acts, rets, agreement = collect_on_policy(model, 300, seed=4, gamma=0.99)
    assert len(obs) == len(masks) == len(acts) == len(rets) >= 300
    assert obs.dtype == np.float32 and masks.dtype == bool and acts.dtype == np.int64
    teacher = HeuristicPolicy()
    own = []
    for o, m, a in zip(obs, masks, acts):
        assert m[a], "the label is a legal action of the recorded position"
        assert a == teacher.act(o, m.astype(np.int8))
        with torch.no_grad():
            d = model.policy.get_distribution(torch.as_tensor(o)[None], action_masks=m[None])
        own.append(int(d.distribution.logits[0].argmax()) == a)
    assert agreement == pytest.approx(np.mean(own))
    assert 0.0 < agreement < 1.0  # an untrained net agrees sometimes, not always
    assert np.all(np.abs(rets) <= 10.0) and np.any(rets != 0.0)


def test_dagger_learning_rates_step_geometrically():
    from training.pretrain import dagger_learning_rates

    assert dagger_learning_rates(3, 3e-4) == [3e-4, 3e-4, 3e-4]
    rates = dagger_learning_rates(5, 3e-4, 1e-4)
    assert rates[0] == pytest.approx(3e-4) and rates[-1] == pytest.approx(1e-4)
    ratios = [b / a for a, b in zip(rates, rates[1:])]
    assert ratios == pytest.approx([(1 / 3) ** 0.25] * 4)
    assert dagger_learning_rates(1, 3e-4, 1e-4) == [3e-4]


@pytest.mark.parametrize("precision, threads", [("fp32", 1), ("bf16", 2)])
def test_the_same_config_trains_the_same_policy(tmp_path, precision, threads):
    """Determinism under a seed: the smoke config (warm start, DAgger, PPO on the batched
    env with random, heuristic and snapshot opponents) trained twice gives bit-identical
    weights, and a different seed does not; in fp32 on one torch thread and, as the main
    job trains, in bf16 on two."""
    import torch

    from training.sb3.precision import bf16_available
    from training.train import train

    if precision == "bf16" and not bf16_available():
        pytest.skip("this CPU has no bfloat16 products (the run would train in fp32)")

    def weights(run: str, seed: int):
        cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / run),
                          tensorboard_dir=str(tmp_path / f"tb_{run}"), seed=seed,
                          total_timesteps=1024, torch_threads=threads)
        cfg = cfg.model_copy(update={"ppo": cfg.ppo.model_copy(update={"precision": precision})})
        final = train(cfg)
        return load_model(final).policy.state_dict(), weights_digest(final)

    from training.sb3.checkpoint import weights_digest

    (a, da), (b, db), (c, dc) = weights("a", 0), weights("b", 0), weights("c", 1)
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert da == db != dc and len(da) == 64  # what training.main prints


def test_the_weights_digest_reads_only_the_weights(tmp_path):
    """Two saves of the same weights give one digest, the loaded policy's own state; a
    changed weight, a file that is not a checkpoint and a zip without policy.pth are told apart."""
    import zipfile

    import torch
    from sb3_contrib import MaskablePPO

    from training.sb3.checkpoint import CheckpointError, weights_digest

    model = MaskablePPO.load(ROOT / "checkpoints" / "reference" / "classic.zip")
    model.save(tmp_path / "one.zip")
    model.save(tmp_path / "two.zip")
    assert weights_digest(tmp_path / "one.zip") == weights_digest(tmp_path / "two.zip") == \
        weights_digest(ROOT / "checkpoints" / "reference" / "classic.zip")
    with torch.no_grad():
        next(model.policy.parameters()).view(-1)[0] += 1e-6
    model.save(tmp_path / "three.zip")
    assert weights_digest(tmp_path / "three.zip") != weights_digest(tmp_path / "one.zip")
    (tmp_path / "text.zip").write_text("not a zip")
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
        z.writestr("data", "{}")
    for name, payload in (("list.zip", [torch.zeros(2)]), ("bare.zip", torch.zeros(2)),
                          ("none.zip", None), ("nested.zip", {"a": {"b": torch.zeros(2)}}),
                          ("number.zip", {"w": torch.zeros(2), "n": 5}), ("nothing.zip", {}),
                          ("sparse.zip", {"w": torch.eye(2).to_sparse()})):
        buf = io.BytesIO()
        torch.save(payload, buf)
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            z.writestr("policy.pth", buf.getvalue())
    with zipfile.ZipFile(tmp_path / "garbled.zip", "w") as z:
        z.writestr("policy.pth", b"\x80\x02garbage")
    for name, message in (("text.zip", "is not a MaskablePPO .zip"),
                          ("missing.zip", "is not a MaskablePPO .zip"),
                          ("empty.zip", "no readable policy.pth"),
                          ("garbled.zip", "no readable policy.pth"),
                          *((n, "policy.pth is not a state dict") for n in (
                              "list.zip", "bare.zip", "none.zip", "nested.zip", "number.zip",
                              "nothing.zip", "sparse.zip"))):
        with pytest.raises(CheckpointError, match=message) as e:
            weights_digest(tmp_path / name)
        assert "\n" not in str(e.value)


def test_the_weights_digest_hashes_each_shape(tmp_path):
    import zipfile

    import torch

    from training.sb3.checkpoint import weights_digest

    def digest(state: dict, name: str) -> str:
        buf = io.BytesIO()
        torch.save(state, buf)
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            z.writestr("policy.pth", buf.getvalue())
        return weights_digest(tmp_path / name)

    w = torch.arange(6.0)
    assert digest({"w": w.reshape(2, 3)}, "a.zip") != digest({"w": w.reshape(3, 2)}, "b.zip")
    assert digest({"w": torch.tensor(1.0)}, "c.zip") != digest({"w": torch.tensor([1.0])}, "d.zip")
    assert digest({"w": w.reshape(2, 3).t()}, "e.zip") == digest(
        {"w": w.reshape(2, 3).t().contiguous()}, "f.zip")  # a strided view: its values


def test_the_main_job_refuses_an_existing_final_zip_that_is_not_a_checkpoint(tmp_path, capsys):
    from training.main import main

    ck = tmp_path / "ck"
    (ck / "x").mkdir(parents=True)
    (ck / "x" / "final.zip").write_text("junk")
    config = tmp_path / "c.yaml"
    config.write_text((ROOT / "configs" / "smoke.yaml").read_text()
                      + f"\ncheckpoint_dir: {ck}\ntensorboard_dir: {tmp_path / 'tb'}\n")
    assert main(["--config", str(config), "--run-name", "x", "--eval-hands", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m training.main: error: checkpoint ") and \
        "is not a MaskablePPO .zip" in err and err.count("\n") == 1


def _no_warm_start(tmp_path, total: int, **update):
    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"), total_timesteps=total)
    return cfg.model_copy(update={"pretrain": cfg.pretrain.model_copy(
        update={"decisions": 0, "dagger_rounds": 0}), **update})


def _weights(model):
    return [p.detach().clone() for p in model.policy.parameters()]


def _same(a, b) -> bool:
    import torch

    return len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))


def _stopped_by(monkeypatch, cfg, callback):
    """Train ``cfg`` with ``callback`` after the run's own callbacks; it raises
    ``KeyboardInterrupt`` as Ctrl-C would. Returns the ``TrainingInterrupted`` raised."""
    from stable_baselines3.common.callbacks import CallbackList

    import training.sb3.train as tt  # where train() looks build_callbacks up

    real = tt.build_callbacks
    monkeypatch.setattr(tt, "build_callbacks",
                        lambda *a, **k: CallbackList([real(*a, **k), callback]))
    with pytest.raises(tt.TrainingInterrupted) as stop:
        tt.train(cfg)
    return stop.value


def test_an_interrupt_during_a_rollout_saves_a_checkpoint_to_resume(tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM, which the training commands turn into one) in the middle of the
    second rollout saves ``model_<steps>.zip``: the weights of the first update, with the
    steps played so far; the printed command (shell-quoted) resumes and finishes the run."""
    from stable_baselines3.common.callbacks import BaseCallback

    import training.train as tt

    cfg = _no_warm_start(tmp_path, 4096, checkpoint_every=100_000)
    weights = {}

    class CtrlC(BaseCallback):  # 8 games x 128 steps per rollout: stop at 1,024 + 400
        def _on_rollout_start(self) -> None:
            weights[self.num_timesteps] = _weights(self.model)

        def _on_step(self) -> bool:
            if self.num_timesteps >= 1024 + 400:
                raise KeyboardInterrupt
            return True

    stop = _stopped_by(monkeypatch, cfg, CtrlC())
    saved = stop.checkpoint
    assert saved == cfg.run_dir / "model_000001424.zip" and saved.is_file()
    assert not (cfg.run_dir / "final.zip").exists()
    assert tt.stopped_message(stop, "my configs/x.yaml", "r1", None, 1) == (
        f"saved {saved}; continue with python -m training.train --config 'my configs/x.yaml' "
        f"--run-name r1 --torch-threads 1 --resume {saved}")
    assert tt.stopped_message(stop, "c.yaml", None, None, None, 3) == (
        f"saved {saved}; continue with python -m training.train --config c.yaml "
        f"--seed 3 --resume {saved}")
    model = load_model(saved)
    assert model.num_timesteps == 1424
    assert _same(_weights(model), weights[1024])  # after the first update
    monkeypatch.undo()
    final = tt.train(cfg, resume=str(saved))
    assert load_model(final).num_timesteps >= 4096


def _cut_update(monkeypatch, after: int):
    """Make the PPO update that starts with ``after`` steps played do its work, then stop
    as Ctrl-C would before it returns; returns the weights from before that update."""
    from sb3_contrib import MaskablePPO

    real, seen = MaskablePPO.train, {}

    def train(self):
        if self.num_timesteps == after:
            seen["before"] = _weights(self)
            real(self)
            raise KeyboardInterrupt
        real(self)

    monkeypatch.setattr(MaskablePPO, "train", train)
    return seen


def test_an_interrupt_in_an_update_saves_the_weights_from_before_it(tmp_path, monkeypatch):
    """A stop in the middle of a PPO update saves the weights of the update before; the
    periodic checkpoint of the same steps (saved just before the update, with those
    weights) is kept as it is, not written over."""
    import training.train as tt

    cfg = _no_warm_start(tmp_path, 4096, checkpoint_every=1024)
    seen = _cut_update(monkeypatch, 2048)
    with pytest.raises(tt.TrainingInterrupted) as stop:
        tt.train(cfg)
    path = cfg.run_dir / "model_000002048.zip"
    assert stop.value.checkpoint == path
    model = load_model(path)
    assert model.num_timesteps == 2048 and _same(_weights(model), seen["before"])
    assert not list(cfg.run_dir.glob("*stopped*")) and not list(cfg.run_dir.glob(".*"))


def test_an_interrupt_in_the_last_update_raises_the_target_by_a_rollout(tmp_path,
                                                                        monkeypatch):
    """Cut in its last update, a run has played its target: the printed command raises
    the target by one rollout (8 x 128), and that command finishes the run."""
    import training.train as tt

    cfg = _no_warm_start(tmp_path, 2048, checkpoint_every=100_000)
    _cut_update(monkeypatch, 2048)
    with pytest.raises(tt.TrainingInterrupted) as stop:
        tt.train(cfg)
    saved = cfg.run_dir / "model_000002048.zip"
    assert stop.value.checkpoint == saved
    assert tt.stopped_message(stop.value, "c.yaml", None, 2048) == (
        f"saved {saved}; continue with python -m training.train --config c.yaml "
        f"--total-timesteps 3072 --resume {saved} (its last update was cut short: the "
        f"target is raised by one rollout)")
    monkeypatch.undo()
    final = tt.train(cfg.model_copy(update={"total_timesteps": 3072}), resume=str(saved))
    assert load_model(final).num_timesteps == 3072


def test_an_interrupt_after_the_last_update_saves_final(tmp_path, monkeypatch):
    from stable_baselines3.common.callbacks import BaseCallback

    import training.train as tt

    cfg = _no_warm_start(tmp_path, 1024, checkpoint_every=100_000)

    class CtrlC(BaseCallback):
        def _on_step(self) -> bool:
            return True

        def _on_training_end(self) -> None:
            raise KeyboardInterrupt

    stop = _stopped_by(monkeypatch, cfg, CtrlC())
    final = cfg.run_dir / "final.zip"
    assert stop.checkpoint == final and load_model(final).num_timesteps == 1024
    assert tt.stopped_message(stop, "c.yaml") == \
        f"the run had reached its target: saved {final}"


def test_an_interrupt_in_the_warm_start_saves_nothing(tmp_path, monkeypatch):
    import training.sb3.pretrain
    import training.train as tt

    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"))

    def stop(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(training.sb3.pretrain, "collect", stop)  # where the warm start looks it up
    with pytest.raises(tt.TrainingInterrupted) as caught:
        tt.train(cfg)
    assert caught.value.warm_start and caught.value.checkpoint is None
    assert tt.stopped_message(caught.value, "c.yaml") == (
        "stopped before PPO's first step: nothing saved; run the same command again to "
        "start over")
    assert not cfg.run_dir.exists() or not any(cfg.run_dir.iterdir())


def test_an_interrupt_before_any_step_saves_nothing():
    from training.train import TrainingInterrupted, stopped_message

    assert stopped_message(TrainingInterrupted(None)) == \
        "checkpoints saved so far are kept (--resume one)"
    assert stopped_message(KeyboardInterrupt()) == \
        "checkpoints saved so far are kept (--resume one)"


def test_save_atomic_leaves_no_file_a_glob_would_take(tmp_path, monkeypatch):
    """A save cut short (Ctrl-C, a full disk) leaves only a hidden ``.NAME.partial``:
    neither the checkpoint globs (``model_*.zip``) nor the snapshot pool (``*.zip``) see
    it, and an earlier file of that name is untouched."""
    from training.train import save_atomic

    class Model:
        def save(self, path):
            Path(path).write_bytes(b"half")
            raise KeyboardInterrupt

    target = tmp_path / "model_000001024.zip"
    target.write_bytes(b"earlier")
    with pytest.raises(KeyboardInterrupt):
        save_atomic(Model(), target)
    assert target.read_bytes() == b"earlier"
    assert sorted(p.name for p in tmp_path.glob("*.zip")) == ["model_000001024.zip"]
    assert (tmp_path / ".model_000001024.zip.partial").read_bytes() == b"half"


def test_an_interrupt_with_subprocess_envs_whose_workers_are_gone(tmp_path, monkeypatch):
    """A terminal's Ctrl-C reaches ``vec_env: subproc`` workers too, and they exit: closing
    the envs then fails (EOFError); the run still saves its checkpoint and stops cleanly
    (found by a break-it review: a traceback and exit code 1)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from training.train import subproc_of


    cfg = _no_warm_start(tmp_path, 100_000, checkpoint_every=100_000, vec_env="subproc",
                         n_envs=2)

    class CtrlC(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= 400:
                for proc in subproc_of(self.training_env).processes:  # as SIGINT does
                    proc.kill()
                    proc.join()
                raise KeyboardInterrupt
            return True

    stop = _stopped_by(monkeypatch, cfg, CtrlC())
    assert stop.checkpoint == cfg.run_dir / "model_000000400.zip"
    assert load_model(stop.checkpoint).num_timesteps == 400


def test_a_broken_snapshot_is_refused_before_the_folder_changes(tmp_path):
    """A snapshot of the pool that does not load (a disk error, a file put there) is
    refused before the resume renames config.yaml or writes resumes.yaml."""
    from training.train import train

    cfg = _no_warm_start(tmp_path, 1024, checkpoint_every=100_000)
    final = train(cfg)
    held = final.with_name("held.zip")
    final.replace(held)
    bad = cfg.run_dir / "snapshots" / "snapshot_000000512.zip"
    bad.write_bytes(b"")
    before = {p: p.read_bytes() for p in cfg.run_dir.rglob("*") if p.is_file()}
    with pytest.raises(CheckpointError, match=r"snapshot .*snapshot_000000512.zip of the "
                       r"opponent pool is not a MaskablePPO .zip \(corrupt or wrong file\)"):
        train(cfg.model_copy(update={"total_timesteps": 2048}), resume=str(held))
    assert {p: p.read_bytes() for p in cfg.run_dir.rglob("*") if p.is_file()} == before


def test_an_interrupt_in_the_last_steps_callbacks_is_not_a_finished_run(tmp_path,
                                                                         monkeypatch):
    """Found by a second break-it review: a stop at the last step of the last rollout
    (its evaluation, checkpoint or snapshot), before the last update, saved ``final.zip``
    and called the run finished. It saves ``model_<steps>.zip`` (the periodic checkpoint
    of those steps, same weights) and raises the target by a rollout."""
    from stable_baselines3.common.callbacks import BaseCallback

    import training.train as tt

    cfg = _no_warm_start(tmp_path, 2048, checkpoint_every=1024)
    weights = {}

    class CtrlC(BaseCallback):
        def _on_rollout_start(self) -> None:
            weights[self.num_timesteps] = _weights(self.model)

        def _on_step(self) -> bool:
            if self.num_timesteps >= 2048:
                raise KeyboardInterrupt
            return True

    stop = _stopped_by(monkeypatch, cfg, CtrlC())
    path = cfg.run_dir / "model_000002048.zip"
    assert stop.checkpoint == path and not (cfg.run_dir / "final.zip").exists()
    assert _same(_weights(load_model(path)), weights[1024])
    assert "--total-timesteps 3072" in tt.stopped_message(stop, "c.yaml")
    assert not list(cfg.run_dir.glob("*stopped*"))


def test_a_stop_before_the_first_ppo_step_leaves_a_folder_to_start_again(tmp_path,
                                                                         monkeypatch):
    """Found by a second break-it review: stopped after config.yaml was written but
    before PPO played, a new run said "--resume one" with nothing to resume, and the same
    command was then refused (the folder held a run). Without a warm start the folder is
    left empty, so the command runs again; with one, ``pretrained.zip`` is kept and the
    message resumes from it."""
    from stable_baselines3.common.callbacks import BaseCallback

    import training.train as tt

    class CtrlC(BaseCallback):
        def _on_training_start(self) -> None:
            raise KeyboardInterrupt

        def _on_step(self) -> bool:
            return True

    cfg = _no_warm_start(tmp_path, 2048)
    stop = _stopped_by(monkeypatch, cfg, CtrlC())
    assert stop.checkpoint is None and stop.warm_start
    assert not cfg.run_dir.exists() or not any(cfg.run_dir.iterdir())
    monkeypatch.undo()
    assert tt.train(cfg).name == "final.zip"  # the same command again

    warm = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck2"),
                       tensorboard_dir=str(tmp_path / "tb2"))
    stop = _stopped_by(monkeypatch, warm, CtrlC())
    kept = warm.run_dir / "pretrained.zip"
    assert stop.checkpoint == kept and kept.is_file()
    assert tt.stopped_message(stop, "c.yaml") == (
        f"stopped before PPO's first step: the warm start is in {kept}; continue with "
        f"python -m training.train --config c.yaml --resume {kept}")
    monkeypatch.undo()
    assert load_model(tt.train(warm, resume=str(kept))).num_timesteps >= 2048


def test_closing_subprocess_envs_after_a_stop_never_waits_for_a_lost_reply(tmp_path):
    """Found by a second break-it review: a Ctrl-C inside ``step_wait``, after some
    workers' replies were read, left SB3's ``close`` waiting for replies that never come
    (a hang only ``kill -9`` ended). The stopped run's close terminates the workers."""
    import threading

    from training.train import _close_after_stop, make_vec_env, subproc_of

    cfg = _no_warm_start(tmp_path, 2048, vec_env="subproc", n_envs=2)
    vec = make_vec_env(cfg)
    env = subproc_of(vec)
    vec.reset()
    masks = np.stack(vec.env_method("action_masks"))
    vec.step_async(masks.argmax(axis=1))
    env.remotes[0].recv()  # one reply read, then the stop: the other is never read
    closer = threading.Thread(target=_close_after_stop, args=(vec,), daemon=True)
    closer.start()
    closer.join(30)
    assert not closer.is_alive(), "closing waited on a worker"
    assert all(not p.is_alive() for p in env.processes)


@pytest.mark.parametrize("module", ["training.main", "training.train"])
def test_seed_on_the_command_line_overrides_the_config(monkeypatch, tmp_path, module):
    """``--seed N`` trains the config with ``seed: N`` (the main job's three training
    seeds are one config and three commands); without it the config's seed stands."""
    import importlib

    import training.sb3.train as tt

    seen = []

    def fake_train(cfg, resume=None):
        seen.append(cfg.seed)
        raise OSError(28, "stop here", str(tmp_path))

    monkeypatch.setattr(tt, "train", fake_train)
    cli = importlib.import_module(module)
    ck = tmp_path / "ck"
    for extra, expected in ((["--seed", "3"], 3), ([], load_config("configs/smoke.yaml").seed)):
        assert cli.main(["--config", "configs/smoke.yaml", "--run-name", f"s{len(seen)}",
                         *extra]) == 2
        assert seen[-1] == expected
    assert expected == 0 and not ck.exists()


def test_win_loss_score_config_reaches_the_batched_env(tmp_path):
    """``reward: win_loss_score`` with ``vec_env: batched`` builds an env that rewards the
    sign plus the scaled difference; any other ``vec_env`` is refused with one line."""
    from tests.helpers.batched import end_rewards
    from training.sb3.batched import BatchedPartnershipVecEnv
    from training.train import env_kwargs

    cfg = TrainConfig(reward="win_loss_score", reward_scale=0.0005, vec_env="batched")
    kw = env_kwargs(cfg)
    assert kw["reward"] == "win_loss_score" and kw["reward_scale"] == 0.0005
    ends = end_rewards(BatchedPartnershipVecEnv(8, pool={"random": 1.0}, seed=3, **kw), 300)
    # a hand won or lost by d points: sign(d) + 0.0005 d, so |r| >= 1.0005 (a draw: 0)
    assert ends and all(r == 0.0 or abs(r) >= 1.0005 - 1e-6 for r in ends)
    assert {r > 0 for r in ends if r} == {True, False}
    bad = tmp_path / "bad.yaml"
    bad.write_text("reward: win_loss_score\nvec_env: subproc\n")
    with pytest.raises(ConfigError, match="reward: win_loss_score needs vec_env: batched"):
        load_config(bad)
