"""training.export_onnx: the exported model's masked argmax equals the torch policy's on
1,000 observations from real games; the CLI; canasta_env.bots.onnx_policy.OnnxPolicy as
a bot."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")
ort = pytest.importorskip("onnxruntime", reason="the service extra is part of the test install")
onnx = pytest.importorskip("onnx")

from canasta_env import OBS_SIZE  # noqa: E402
from canasta_env.bots import Bot  # noqa: E402
from canasta_env.bots.onnx_policy import OnnxPolicy  # noqa: E402
from canasta_env.engine import NUM_ACTIONS, from_position  # noqa: E402
from tests.helpers.opponent import heuristic_positions, observations_from_play, smoke_checkpoint  # noqa: E402
from training.checkpoint import CheckpointPolicy  # noqa: E402
from training.export_onnx import export_onnx, main  # noqa: E402


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    ck = smoke_checkpoint(tmp_path_factory)
    out = export_onnx(ck, tmp_path_factory.mktemp("onnx") / "policy.onnx")
    return ck, out


def test_onnx_argmax_equals_torch_on_1000_real_observations(exported):
    ck, path = exported
    obs, masks = observations_from_play(1000)
    assert obs.shape == (1000, OBS_SIZE) and masks.shape == (1000, NUM_ACTIONS)
    torch_policy = CheckpointPolicy(ck, deterministic=True)
    want_logits = np.stack([torch_policy.logits(o, m) for o, m in zip(obs, masks)])
    want = np.array([torch_policy.act(o, m) for o, m in zip(obs, masks)])
    assert (want == want_logits.argmax(axis=1)).all()

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got_logits = sess.run(["logits"], {"observation": obs,
                                       "action_mask": masks.astype(np.int8)})[0]
    assert got_logits.shape == (1000, NUM_ACTIONS) and got_logits.dtype == np.float32
    got = got_logits.argmax(axis=1)
    assert (got == want).all(), f"{int((got != want).sum())} of 1000 disagree"
    assert masks[np.arange(1000), got].all()  # always a legal action
    legal = masks.astype(bool)
    assert np.abs(got_logits[legal] - want_logits[legal]).max() < 1e-4
    assert (got_logits[~legal] < -1e7).all()
    # batch size 1 and the OnnxPolicy wrapper give the same moves
    pol = OnnxPolicy(path)
    assert [pol.act(o, m) for o, m in zip(obs[:50], masks[:50])] == want[:50].tolist()


def test_onnx_model_metadata_and_inputs(exported):
    _, path = exported
    model = onnx.load(str(path))
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["obs_size"] == str(OBS_SIZE) and meta["num_actions"] == str(NUM_ACTIONS)
    names = [i.name for i in model.graph.input]
    assert names == ["observation", "action_mask"]
    assert [o.name for o in model.graph.output] == ["logits"]


def test_bot_runs_an_onnx_model_like_the_checkpoint(exported):
    ck, path = exported
    onnx_bot, torch_bot = Bot(str(path)), Bot(str(ck))
    for pos in heuristic_positions(seed=51, every=6, limit=15):
        seat = from_position(pos).to_move
        assert onnx_bot.choose(pos, seat) == torch_bot.choose(pos, seat)


def test_export_cli(exported, tmp_path, capsys):
    ck, _ = exported
    out = tmp_path / "cli.onnx"
    assert main([str(ck), str(out)]) == 0
    assert out.is_file() and "64/64" in capsys.readouterr().out
    assert main([str(tmp_path / "missing.zip"), str(tmp_path / "x.onnx")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(ValueError, match="cannot load ONNX model"):
        OnnxPolicy(ck)  # a zip is not an ONNX model
