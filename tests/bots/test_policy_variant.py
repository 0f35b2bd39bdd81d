"""A policy is checked against the variant before the first deal, by one function
(canasta_env.bots.loader.check_policy_variant), in every entry point: the loader, the Bot,
terminal play, the service (game creation, /move, /turn), training.evaluate,
training.ratings, training.train's --resume and the training adapter's snapshots.
``reference`` is variant-aware: each variant's own network from checkpoints/reference/
(Classic and Hand and Foot), and the heuristic for a variant without one (tested with an
empty reference folder)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_env.bots import Bot, PolicySpecError, PolicyVariantError, loader
from canasta_env.bots.loader import (
    KNOWN_SIZES,
    check_policy_variant,
    check_variant_sizes,
    load_policy,
    policy_sizes,
    reference_note,
    variant_hint,
)
from canasta_env.engine import Game, OptionsError, preset, to_position
from canasta_env.observation import encode
from canasta_env.policies import HeuristicPolicy, RandomPolicy
from tests.helpers.opponent import ROOT

ort = pytest.importorskip("onnxruntime", reason="the bots extra is part of the test install")

CLASSIC_ONNX = "checkpoints/reference/classic.onnx"  # relative to ROOT, as a user types it
HF_ONNX = "checkpoints/reference/hand_and_foot.onnx"
#: the message for the Classic reference network asked to play Hand and Foot
HF_REFUSAL = ("is a Classic policy (observation 202, 91 actions); this game is Hand and Foot "
              "(observation 245, 98 actions)")


def run(module: str, *args: str, stdin: str = "", timeout: int = 120):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", module, *args], input=stdin, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


class Sized:
    """A policy built for given sizes (what a network exposes)."""

    name = "sized"

    def __init__(self, obs_size, num_actions):
        self.obs_size, self.num_actions = obs_size, num_actions

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


# ----------------------------------------------------------------------------- the check
def test_the_sizes_of_each_variant():
    assert KNOWN_SIZES == {(202, 91): "classic", (245, 98): "hand_and_foot"}


def test_classic_reference_refused_for_hand_and_foot_with_one_clear_line():
    onnx_policy = load_policy(str(ROOT / CLASSIC_ONNX))
    assert policy_sizes(onnx_policy) == (202, 91)
    assert (onnx_policy.obs_size, onnx_policy.num_actions, onnx_policy.variant) == \
        (202, 91, "classic")
    with pytest.raises(PolicyVariantError) as e:
        check_policy_variant(onnx_policy, "hand_and_foot", "reference")
    assert str(e.value) == f"policy 'reference' {HF_REFUSAL}"
    assert isinstance(e.value, PolicySpecError) and isinstance(e.value, ValueError)
    check_policy_variant(onnx_policy, "classic")  # fits
    check_policy_variant(onnx_policy, preset("classic"))
    check_policy_variant(onnx_policy, Game(seed=1))  # anything holding rules options


def test_policies_without_sizes_play_any_variant():
    for policy in (RandomPolicy(0), HeuristicPolicy()):
        assert policy_sizes(policy) is None
        for variant in ("classic", "hand_and_foot"):
            check_policy_variant(policy, variant)


def test_a_variant_that_is_not_one_is_refused():
    with pytest.raises(OptionsError, match="unknown variant"):
        check_policy_variant(RandomPolicy(0), "canasta_deluxe")
    with pytest.raises(TypeError, match="variant name"):
        check_policy_variant(RandomPolicy(0), 3)


def test_custom_rules_that_change_the_sizes_are_named():
    rules = preset("classic", wild_melds=True)  # Hand and Foot's 98 actions in Classic
    with pytest.raises(PolicyVariantError) as e:
        check_policy_variant(Sized(202, 91), rules)
    assert str(e.value) == ("policy 'sized' is a Classic policy (observation 202, 91 actions); "
                            "this game is Classic with these rules (observation 245, 98 actions)")
    with pytest.raises(PolicyVariantError, match="is a policy for no variant of this package "
                                                 r"\(observation 10, 5 actions\)"):
        check_policy_variant(Sized(10, 5), "classic")


@settings(max_examples=200, deadline=None)
@given(obs=st.integers(1, 400), n=st.integers(1, 200),
       variant=st.sampled_from(["classic", "hand_and_foot"]))
def test_refused_exactly_when_the_sizes_differ(obs, n, variant):
    want = (202, 91) if variant == "classic" else (245, 98)
    policy = Sized(obs, n)
    if (obs, n) == want:
        check_policy_variant(policy, variant)
        return
    with pytest.raises(PolicyVariantError) as e:
        check_policy_variant(policy, variant)
    text = str(e.value)
    assert "\n" not in text and text.startswith("policy 'sized' is a")
    assert f"(observation {obs}, {n} actions)" in text
    assert f"(observation {want[0]}, {want[1]} actions)" in text


@settings(max_examples=50, deadline=None)
@given(sizes=st.one_of(st.none(), st.tuples(st.integers(1, 300), st.integers(1, 120))),
       variant=st.sampled_from(["classic", "hand_and_foot"]))
def test_the_sizes_check_agrees_with_the_policy_check(sizes, variant):
    policy = Sized(*sizes) if sizes else RandomPolicy(0)
    outcomes = []
    for check in (lambda: check_policy_variant(policy, variant, "p"),
                  lambda: check_variant_sizes(sizes, variant, "policy 'p'")):
        try:
            check()
            outcomes.append(None)
        except PolicyVariantError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


def test_checkpoint_policy_sizes_come_from_its_model():
    pytest.importorskip("sb3_contrib")
    import training  # noqa: F401 - registers the .zip loader
    from training.checkpoint import CheckpointPolicy

    ck = CheckpointPolicy(loader.REFERENCE_CHECKPOINT)
    assert policy_sizes(ck) == (202, 91)
    with pytest.raises(PolicyVariantError) as e:
        load_policy(str(loader.REFERENCE_CHECKPOINT), variant="hand_and_foot")
    assert str(e.value) == f"policy '{loader.REFERENCE_CHECKPOINT}' {HF_REFUSAL}"


# ----------------------------------------------------------------------------- reference
def test_reference_is_variant_aware():
    assert reference_note("classic") is None
    assert reference_note("hand_and_foot") is None
    hf = load_policy("reference", variant="hand_and_foot")
    assert policy_sizes(hf) == (245, 98) and hf.name == str(ROOT / HF_ONNX)
    assert policy_sizes(load_policy("reference")) == (202, 91)  # Classic without a variant
    assert policy_sizes(load_policy("reference", variant="classic")) == (202, 91)
    assert policy_sizes(load_policy(" Reference ", variant=preset("hand_and_foot"))) == (245, 98)


@pytest.fixture
def no_hf_reference(monkeypatch, tmp_path):
    """A reference folder with Classic's files only: Hand and Foot then has no reference
    (the state before its network was shipped, and of a variant without one)."""
    import shutil

    for name in ("classic.onnx", "classic.zip"):
        shutil.copy(ROOT / "checkpoints" / "reference" / name, tmp_path / name)
    monkeypatch.setattr(loader, "REFERENCE_DIR", tmp_path)
    return tmp_path


def test_a_variant_without_a_reference_plays_the_heuristic(no_hf_reference):
    assert reference_note("hand_and_foot") == \
        "no Hand and Foot reference policy yet: 'reference' plays the heuristic"
    assert type(load_policy("reference", variant="hand_and_foot")) is HeuristicPolicy
    assert load_policy(" Reference ", variant=preset("hand_and_foot")).name == "heuristic"
    assert reference_note("classic") is None  # Classic's files are its own constants


def test_hand_and_foot_reference_file_is_used_once_it_exists(monkeypatch, tmp_path):
    """Once checkpoints/reference/hand_and_foot.onnx exists, ``reference`` loads it (here a
    Classic model in its place: refused, which shows the file is the one read)."""
    import shutil

    shutil.copy(ROOT / CLASSIC_ONNX, tmp_path / "hand_and_foot.onnx")
    monkeypatch.setattr(loader, "REFERENCE_DIR", tmp_path)
    assert reference_note("hand_and_foot") is None
    with pytest.raises(PolicyVariantError, match=re.escape(f"policy 'reference' {HF_REFUSAL}")):
        load_policy("reference", variant="hand_and_foot")


def test_missing_classic_reference_stays_an_error(monkeypatch, tmp_path):
    monkeypatch.setattr(loader, "REFERENCE_ONNX", tmp_path / "classic.onnx")
    monkeypatch.setattr(loader, "REFERENCE_CHECKPOINT", tmp_path / "classic.zip")
    with pytest.raises(PolicySpecError, match="reference policy is not available"):
        load_policy("reference", variant="classic")
    assert policy_sizes(load_policy("reference", variant="hand_and_foot")) == (245, 98)
    monkeypatch.setattr(loader, "REFERENCE_DIR", tmp_path)
    assert type(load_policy("reference", variant="hand_and_foot")) is HeuristicPolicy


# ------------------------------------------------------------------------ apprentice
def test_apprentice_is_the_variants_file_and_refused_where_there_is_none(monkeypatch, tmp_path):
    """``apprentice`` reads checkpoints/reference/<variant>_apprentice.onnx of the game's
    variant (here a Classic model in Hand and Foot's place: refused as Classic, which shows
    that file is the one read), and a variant without one gets one line naming the
    variants that have one."""
    import shutil

    monkeypatch.setattr(loader, "REFERENCE_DIR", tmp_path)
    with pytest.raises(PolicySpecError) as e:
        load_policy("apprentice", variant="hand_and_foot")
    assert str(e.value) == (f"policy 'apprentice' has no network here: Hand and Foot has no "
                            f"apprentice network (no file "
                            f"{tmp_path / 'hand_and_foot_apprentice.onnx'})")
    shutil.copy(ROOT / CLASSIC_ONNX, tmp_path / "hand_and_foot_apprentice.onnx")
    with pytest.raises(PolicyVariantError, match=re.escape(f"policy 'Apprentice' {HF_REFUSAL}")):
        load_policy(" Apprentice ", variant="hand_and_foot")
    with pytest.raises(PolicySpecError) as e:
        load_policy("apprentice", variant="classic")
    assert str(e.value) == (f"policy 'apprentice' plays Hand and Foot only: Classic has no "
                            f"apprentice network (no file {tmp_path / 'classic_apprentice.onnx'})")
    with pytest.raises(PolicySpecError, match="Classic has no apprentice network"):
        load_policy("apprentice")  # without a variant: Classic's


def test_the_shipped_apprentice_plays_hand_and_foot_as_its_file_does():
    path = ROOT / "checkpoints" / "reference" / "hand_and_foot_apprentice.onnx"
    assert loader.apprentice_file("hand_and_foot") == path
    assert policy_sizes(load_policy("apprentice", variant="hand_and_foot")) == (245, 98)
    bot = Bot("apprentice", variant="hand_and_foot")
    game = Game(preset("hand_and_foot"), seed=3)
    while len(game.legal_actions()) < 5:  # past the forced opening moves
        game.apply(HeuristicPolicy().act(encode(game, game.to_move),
                                         np.isin(np.arange(98), game.legal_actions())))
    mask = np.zeros(98, np.int8)
    mask[game.legal_actions()] = 1
    action = bot.choose(to_position(game), game.to_move)["action"]
    assert action == load_policy(str(path)).act(encode(game, game.to_move), mask)
    assert action in game.legal_actions()
    with pytest.raises(PolicySpecError, match=re.escape(
            "policy 'apprentice' plays Hand and Foot only: Classic has no apprentice network")):
        Bot("apprentice")  # without a variant a bot starts as Classic's


# ----------------------------------------------------------------------------- the Bot
def test_bot_refuses_another_variant_at_construction_and_per_position():
    path = str(ROOT / CLASSIC_ONNX)
    with pytest.raises(PolicyVariantError) as e:
        Bot(path, variant="hand_and_foot")
    assert str(e.value) == f"policy {path!r} {HF_REFUSAL}"
    bot = Bot(path)
    game = Game(preset("hand_and_foot"), seed=3)
    with pytest.raises(PolicyVariantError, match=re.escape(HF_REFUSAL)):
        bot.choose(to_position(game), game.to_move)
    with pytest.raises(PolicyVariantError, match=re.escape(HF_REFUSAL)):
        Bot(Sized(202, 91), variant="hand_and_foot")


def test_reference_bot_plays_each_variant_with_its_reference():
    bot = Bot("reference")
    assert policy_sizes(bot.policy) == (202, 91)
    game = Game(preset("hand_and_foot"), seed=3)
    move = bot.choose(to_position(game), game.to_move)
    assert move["action"] in game.legal_actions()
    assert policy_sizes(bot.policy_for("hand_and_foot")) == (245, 98)
    assert bot.policy_for("classic") is bot.policy
    hf = Bot("reference", variant="hand_and_foot")
    assert policy_sizes(hf.policy) == (245, 98)
    # the same move as the Hand and Foot network itself
    net = load_policy(str(ROOT / HF_ONNX))
    from canasta_env.observation import encode
    mask = np.zeros(98, np.int8)
    mask[game.legal_actions()] = 1
    assert move["action"] == net.act(encode(game, game.to_move), mask)


def test_reference_bot_without_a_variant_reference_plays_the_heuristic(no_hf_reference):
    bot = Bot("reference")
    assert type(bot.policy_for("hand_and_foot")) is HeuristicPolicy
    assert type(Bot("reference", variant="hand_and_foot").policy) is HeuristicPolicy


# ----------------------------------------------------------------------------- terminal play
def test_play_refuses_a_classic_network_for_hand_and_foot_before_dealing():
    r = run("training.play", "--variant", "hand_and_foot", "--policy", CLASSIC_ONNX,
            stdin="1\n" * 5)
    assert r.returncode == 2
    assert r.stderr == (f"python -m training.play: error: policy '{CLASSIC_ONNX}' {HF_REFUSAL}"
                        f"; pass --variant classic to play it\n")
    assert r.stdout == ""  # nothing dealt, no table printed


def test_play_function_refuses_before_printing_anything():
    from canasta_env.bots.play import play

    out: list[str] = []
    with pytest.raises(PolicyVariantError, match=re.escape(HF_REFUSAL)):
        play(0, Bot(str(ROOT / CLASSIC_ONNX)), 3, False, read=lambda p: "1", out=out.append,
             variant="hand_and_foot")
    assert out == []


def test_play_reference_in_hand_and_foot_plays_its_network():
    r = run("training.play", "--variant", "hand_and_foot", "--policy", "reference", "--seed", "7",
            stdin="1\n" * 5 + "quit\n")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    first = r.stdout.splitlines()[0]
    assert first == ("Hand and Foot: you are seat 0 (partnership A, partner seat 2); bots: "
                     "reference; seed 7. Type 'quit' to stop.")
    assert "Stopped. Bye." in r.stdout


def test_play_says_when_reference_plays_the_heuristic(no_hf_reference):
    from canasta_env.bots.play import play

    out: list[str] = []
    play(0, Bot("reference"), 7, False, read=lambda p: "quit", out=out.append,
         variant="hand_and_foot")
    assert out[0] == ("Hand and Foot: you are seat 0 (partnership A, partner seat 2); bots: "
                      "reference (no Hand and Foot reference policy yet: 'reference' plays "
                      "the heuristic); seed 7. Type 'quit' to stop.")


# ----------------------------------------------------------------------------- the service
@pytest.fixture(scope="module")
def onnx_client(tmp_path_factory):
    pytest.importorskip("fastapi")
    from canasta_env.bots.service import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    app = create_app(str(ROOT / CLASSIC_ONNX),
                     db=str(tmp_path_factory.mktemp("db") / "games.sqlite3"))
    return app, TestClient(app)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_service_refuses_a_game_its_policy_cannot_play_and_stores_nothing(onnx_client):
    app, client = onnx_client
    n = app.state.service.count()
    r = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"],
                                    "variant": "hand_and_foot", "seed": 3})
    assert r.status_code == 400
    path = str(ROOT / CLASSIC_ONNX)
    assert r.json()["detail"] == (f"bot policy {path!r} cannot play this game: policy "
                                  f"{path!r} {HF_REFUSAL}")
    assert app.state.service.count() == n
    # a Classic game with the same policy, and a Hand and Foot game with reference, start
    assert client.post("/games", json={"seats": ["bot"] * 4, "seed": 3}).status_code == 201
    r = client.post("/games", json={"seats": ["bot"] * 4, "variant": "hand_and_foot",
                                    "seed": 3, "bot_policy": "reference"})
    assert r.status_code == 201, r.text
    assert app.state.service.count() == n + 2
    # only human seats: no bot plays, so no policy is checked
    r = client.post("/games", json={"seats": ["human"] * 4, "variant": "hand_and_foot"})
    assert r.status_code == 201


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("endpoint", ["/move", "/turn"])
def test_stateless_endpoints_check_the_position_variant(onnx_client, endpoint):
    _, client = onnx_client
    game = Game(preset("hand_and_foot"), seed=5)
    body = {"position": to_position(game), "seat": game.to_move}
    r = client.post(endpoint, json=body)
    assert r.status_code == 400
    assert r.json()["detail"].endswith(f"cannot play this game: policy "
                                       f"{str(ROOT / CLASSIC_ONNX)!r} {HF_REFUSAL}")
    r = client.post(endpoint, json={**body, "policy": "reference"})
    assert r.status_code == 200, r.text
    assert r.json()["policy"] == "reference"
    classic = Game(seed=5)
    r = client.post(endpoint, json={"position": to_position(classic), "seat": classic.to_move})
    assert r.status_code == 200, r.text


# ----------------------------------------------------------------------------- training
def test_evaluate_and_ratings_refuse_before_the_first_deal(monkeypatch):
    pytest.importorskip("tqdm")
    from training import evaluate as E
    from training import ratings as R

    def no_deal(*a, **k):
        raise AssertionError("a deal was played")

    from training.evaluation import duplicate  # where the match looks play_deals up

    monkeypatch.setattr(duplicate, "play_deals", no_deal)
    onnx = str(ROOT / CLASSIC_ONNX)
    with pytest.raises(PolicyVariantError, match=re.escape(f"policy '{onnx}' {HF_REFUSAL}")):
        E.evaluate_policies(onnx, "random", hands=2, variant="hand_and_foot")
    with pytest.raises(PolicyVariantError, match=re.escape(HF_REFUSAL)):
        E.evaluate_policies(load_policy(onnx), "random", hands=2, variant="hand_and_foot")
    with pytest.raises(PolicyVariantError, match=re.escape(HF_REFUSAL)):
        E.evaluate_policies("random", onnx, hands=2, variant="hand_and_foot", workers=2)
    with pytest.raises(PolicyVariantError, match=re.escape(HF_REFUSAL)):
        R.round_robin(["random", onnx], hands=2, variant="hand_and_foot")


def test_evaluate_cli_refuses_with_one_line():
    r = run("training.evaluate", "--a", CLASSIC_ONNX, "--b", "random", "--variant",
            "hand_and_foot", "--hands", "2", "--no-progress")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"python -m training.evaluate: error: policy '{CLASSIC_ONNX}' "
                        f"{HF_REFUSAL}; pass --variant classic to play it\n")


def test_evaluate_cli_names_the_variant_a_hand_and_foot_network_plays():
    r = run("training.evaluate", "--a", "random", "--b", HF_ONNX, "--hands", "2",
            "--no-progress")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"python -m training.evaluate: error: policy '{HF_ONNX}' is a Hand and "
                        f"Foot policy (observation 245, 98 actions); this game is Classic "
                        f"(observation 202, 91 actions); pass --variant hand_and_foot to play "
                        f"it\n")


def test_ratings_cli_names_the_variant_of_a_policy_it_refuses():
    r = run("training.ratings", "--policies", "random", HF_ONNX, "--hands", "2",
            "--no-progress")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.endswith("; pass --variant hand_and_foot to play it\n")
    assert r.stderr.count("\n") == 1


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_evaluate_cli_says_when_the_two_policies_play_different_variants(variant):
    # no --variant fits both: the message says so instead of sending the user back and forth
    r = run("training.evaluate", "--a", HF_ONNX, "--b", CLASSIC_ONNX, "--variant", variant,
            "--hands", "2", "--no-progress")
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert r.stderr.endswith("; the policies given play different variants, so they cannot "
                             "play each other\n")
    assert "pass --variant" not in r.stderr


def test_variant_hint_checks_the_other_policies_given():
    with pytest.raises(PolicyVariantError) as e:
        check_policy_variant(Sized(245, 98), "classic", "hf")
    assert variant_hint(e.value, specs=("random", "reference", str(ROOT / HF_ONNX))) == \
        f"{e.value}; pass --variant hand_and_foot to play it"
    assert variant_hint(e.value, specs=("random", str(ROOT / CLASSIC_ONNX))) == \
        f"{e.value}; the policies given play different variants, so they cannot play each other"
    # another fault of another spec (no such policy) is left for when it is met
    assert variant_hint(e.value, specs=("no_such_policy",)) == \
        f"{e.value}; pass --variant hand_and_foot to play it"


def test_variant_hint_only_for_a_policy_of_another_known_variant():
    with pytest.raises(PolicyVariantError) as e:
        check_policy_variant(Sized(245, 98), "classic")
    assert e.value.policy_variant == "hand_and_foot"
    assert variant_hint(e.value) == f"{e.value}; pass --variant hand_and_foot to play it"
    assert variant_hint(e.value, "--rules") == f"{e.value}; pass --rules hand_and_foot to play it"
    with pytest.raises(PolicyVariantError) as e:  # sizes of no variant: nothing to suggest
        check_policy_variant(Sized(10, 5), "classic")
    assert e.value.policy_variant is None and variant_hint(e.value) == str(e.value)
    with pytest.raises(PolicyVariantError) as e:  # Classic sizes, Classic with other rules
        check_policy_variant(Sized(202, 91), preset("classic", wild_melds=True))
    assert e.value.policy_variant is None and variant_hint(e.value) == str(e.value)
    assert variant_hint(ValueError("bad count")) == "bad count"


def test_evaluate_reference_in_hand_and_foot_is_its_network():
    from training.evaluate import evaluate_policies

    a = evaluate_policies("reference", "heuristic", hands=4, variant="hand_and_foot", seed=4)
    b = evaluate_policies(str(ROOT / HF_ONNX), "heuristic", hands=4, variant="hand_and_foot",
                          seed=4)
    for key in ("wins", "mean_score_diff", "decisions_per_hand"):
        assert a[key] == b[key]


def test_evaluate_reference_without_a_variant_reference_is_the_heuristic(no_hf_reference):
    from training.evaluate import evaluate_policies

    a = evaluate_policies("reference", "random", hands=2, variant="hand_and_foot", seed=4)
    b = evaluate_policies("heuristic", "random", hands=2, variant="hand_and_foot", seed=4)
    for key in ("wins", "mean_score_diff", "decisions_per_hand"):
        assert a[key] == b[key]


def test_resume_of_another_variant_is_refused_before_the_run_starts(tmp_path):
    pytest.importorskip("sb3_contrib")
    from training.checkpoint import CheckpointError
    from training.config import load_config
    from training.train import check_checkpoint_variant, train

    ck = str(loader.REFERENCE_CHECKPOINT)
    check_checkpoint_variant(ck, "classic")
    cfg = load_config(ROOT / "configs" / "hand_and_foot.yaml",
                      checkpoint_dir=str(tmp_path / "ck"), tensorboard_dir=str(tmp_path / "tb"))
    with pytest.raises(CheckpointError) as e:
        train(cfg, resume=ck)
    assert str(e.value) == (f"checkpoint {ck} {HF_REFUSAL}; resume it with a config of that "
                            f"variant (variant: classic)")
    assert not (tmp_path / "ck").exists()  # nothing was made


def test_adapter_refuses_a_snapshot_of_another_variant():
    pytest.importorskip("sb3_contrib")
    from training.adapter import PartnershipEnv

    env = PartnershipEnv([(1.0, lambda rng: RandomPolicy(0))], variant="hand_and_foot")
    ck = str(loader.REFERENCE_CHECKPOINT)
    env.set_snapshots([ck], 1.0)
    with pytest.raises(PolicyVariantError, match=re.escape(f"snapshot {ck} {HF_REFUSAL}")):
        env._snapshot(ck, np.random.default_rng(0))
