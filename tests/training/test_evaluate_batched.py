"""Batched evaluation (``training.evaluate.play_deals``, ``act_batch``): the records are
exactly those of the unbatched loop, one ``act`` call per decision and one episode after
another, whatever the batch size and the number of workers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import training  # noqa: F401 - registers the .zip loader
from canasta_env import AGENTS
from canasta_env.batching import act_rows, check_policy_batch, fork, is_stateless
from canasta_env.bots.loader import PolicyVariantError, load_policy
from canasta_env.bots.onnx_policy import OnnxPolicy
from canasta_env.policies import HeuristicPolicy, RandomPolicy
from training import evaluate as E
from training import ratings as R
from training.checkpoint import CheckpointPolicy

ROOT = Path(__file__).resolve().parents[2]
ZIP = ROOT / "checkpoints" / "reference" / "classic.zip"
ONNX = ROOT / "checkpoints" / "reference" / "classic.onnx"
DEALS = 40


# ------------------------------------------------------- the unbatched loop, as it was
def reference_episode(env, seat_policies, seed, deal=0, seating=0):
    """``training.evaluate.play_episode`` before batching (commit 74d5157), verbatim."""
    seat_of = {a: i for i, a in enumerate(AGENTS)}
    a_team = seating
    env.reset(seed=seed)
    seen: set[int] = set()
    for s, p in enumerate(seat_policies):
        if id(p) not in seen:
            seen.add(id(p))
            p.reset(random.Random(f"{seed}/{seating}/{s}").getrandbits(63))
    hands = []
    hand_no, minimum, _ = env.openings()
    decisions = 0
    stuck = False
    terms, truncs, infos = env.terminations, env.truncations, env.infos
    while True:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs = env.observe(agent)
        if not obs["action_mask"].any():
            stuck = True
            break
        action = seat_policies[seat_of[agent]].act(obs["observation"], obs["action_mask"])
        opened = env.openings()[2]
        env.step(action)
        decisions += 1
        terms, truncs, infos = env.terminations, env.truncations, env.infos
        if any(truncs.values()):
            break
        number, new_minimum, _ = env.openings()
        if number != hand_no or any(terms.values()):
            sheets = infos[AGENTS[0]]["score_sheets"]
            out = [sheets[t]["going_out"] > 0 for t in (0, 1)]
            a, b = a_team, 1 - a_team
            hands.append(E.HandRecord(
                deal=deal, seating=seating,
                score_a=sheets[a]["hand_score"], score_b=sheets[b]["hand_score"],
                minimum_a=minimum[a], minimum_b=minimum[b],
                opened_a=opened[a] or out[a], opened_b=opened[b] or out[b],
                went_out="A" if out[a] else "B" if out[b] else "", decisions=decisions))
            decisions = 0
            hand_no, minimum = number, new_minimum
    truncated = stuck or any(env.truncations.values())
    if truncated or not hands:
        return E.EpisodeRecord(deal, seating, tuple(hands), 0, 0, True, stuck)
    if env.episode == "hand":
        h = hands[-1]
        return E.EpisodeRecord(deal, seating, tuple(hands), h.score_a, h.score_b, False)
    sheets = infos[AGENTS[0]]["score_sheets"]
    return E.EpisodeRecord(deal, seating, tuple(hands), sheets[a_team]["total"],
                           sheets[1 - a_team]["total"], False)


def reference_deals(policy_a, policy_b, deals, seed, variant="classic", games=False):
    """``training.evaluate.play_deals`` before batching: one env, deal after deal."""
    env = E.make_env(variant, games)
    out = []
    for d in deals:
        s = E.deal_seed(seed, d)
        for seating in (0, 1):
            seats = [policy_a if p % 2 == seating else policy_b for p in range(4)]
            out.append(reference_episode(env, seats, s, d, seating))
    return out


@pytest.fixture(scope="module")
def hf_zip(tmp_path_factory):
    """An untrained Hand and Foot MaskablePPO checkpoint (no trained one is shipped)."""
    from sb3_contrib import MaskablePPO

    from training.adapter import PartnershipEnv

    env = PartnershipEnv([(1.0, lambda rng: RandomPolicy(seed=0))], variant="hand_and_foot")
    path = tmp_path_factory.mktemp("hf") / "hf.zip"
    MaskablePPO("MlpPolicy", env, seed=0, policy_kwargs={"net_arch": [32]},
                device="cpu").save(path)
    return path


def _spec(name: str, hf_zip: Path) -> str:
    return {"checkpoint": str(ZIP), "checkpoint_hf": str(hf_zip)}.get(name, name)


CASES = [("checkpoint", "classic", 12), ("heuristic", "classic", 13),
         ("checkpoint_hf", "hand_and_foot", 14), ("heuristic", "hand_and_foot", 15)]


@pytest.mark.parametrize("a, variant, seed", CASES)
def test_batched_records_equal_the_unbatched_loop(a, variant, seed, hf_zip):
    """Checkpoint (the .zip, deterministic) and heuristic against random, both variants,
    40 deals: every record equals the unbatched loop's, for batch sizes 1, 7 and 64, in
    one process and in two workers."""
    spec = _spec(a, hf_zip)
    pol_a, pol_b = load_policy(spec, variant=variant), load_policy("random", variant=variant)
    with E._torch_single_thread():  # the loop's speed only; the decisions are the same
        want = reference_deals(pol_a, pol_b, range(DEALS), seed, variant)
    assert len(want) == 2 * DEALS and not any(e.truncated for e in want)
    for batch in (1, 7, 64):
        got = E.play_deals(pol_a, pol_b, range(DEALS), seed, variant, batch=batch)
        assert got == want, f"batch {batch}"
    got = E.play_match(spec, "random", DEALS, seed=seed, variant=variant, workers=2, batch=5)
    assert got == want, "2 workers"
    # the figures as well (evaluate_policies over the same deals)
    one = E.evaluate_policies(spec, "random", 2 * DEALS, seed=seed, variant=variant, batch=3)
    assert E.summarize(want, E.opening_levels(variant))["win_rate"] == one["win_rate"]


def test_onnx_export_evaluates_like_its_checkpoint():
    """The shipped .onnx evaluates (batched, one session.run per step) with the records
    of the unbatched loop and of its .zip."""
    onnx, rnd = OnnxPolicy(ONNX), RandomPolicy(0)
    want = reference_deals(onnx, rnd, range(20), seed=5)
    assert E.play_deals(onnx, rnd, range(20), seed=5, batch=16) == want
    assert E.play_deals(load_policy(str(ZIP)), rnd, range(20), seed=5, batch=16) == want
    r = E.evaluate_policies(str(ONNX), "heuristic", hands=20, seed=5, workers=2, batch=4)
    assert r["hands"] == 20 and r["truncated"] == 0


def test_same_policy_object_on_both_sides_and_games_mode():
    """One stateful object playing A and B is forked once per slot (not per side), and
    whole games batch too."""
    rnd = RandomPolicy(0)
    assert E.play_deals(rnd, rnd, range(6), 3, batch=4) == reference_deals(rnd, rnd, range(6), 3)
    h, r = HeuristicPolicy(), RandomPolicy(0)
    want = reference_deals(h, r, range(2), 1, games=True)
    assert E.play_deals(h, r, range(2), 1, games=True, batch=2) == want


def test_stateless_policies_get_one_call_per_step():
    """The decisions waiting for a stateless policy with act_batch go in one call."""
    calls = []

    class Counting(HeuristicPolicy):
        def act_batch(self, observations, masks):
            calls.append(observations.shape)
            assert observations.dtype == np.float32 and masks.dtype == np.int8
            return np.array([self.act(o, m) for o, m in zip(observations, masks)])

    h = Counting()
    got = E.play_deals(h, RandomPolicy(0), range(8), 2, batch=8)
    assert got == reference_deals(HeuristicPolicy(), RandomPolicy(0), range(8), 2)
    assert max(rows for rows, _ in calls) > 1
    decisions_a = sum(h_.decisions for e in got for h_ in e.hands)  # all seats
    assert len(calls) < decisions_a / 4


def test_other_variants_checkpoint_is_refused_before_the_first_deal(capsys, monkeypatch):
    def no_play(*args, **kwargs):
        raise AssertionError("a deal was played")

    from training.evaluation import episodes  # where play_deals looks _play_deals up

    monkeypatch.setattr(episodes, "_play_deals", no_play)
    for spec in (str(ZIP), str(ONNX)):
        assert E.main(["--a", spec, "--b", "random", "--hands", "8", "--variant",
                       "hand_and_foot", "--batch", "4", "--no-progress"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        assert "is a Classic policy (observation 202, 91 actions); this game is Hand and " \
               "Foot (observation 245, 98 actions)" in err
    with pytest.raises(PolicyVariantError):
        E.play_match(CheckpointPolicy(ZIP), "random", 4, variant="hand_and_foot", batch=2)
    with pytest.raises(PolicyVariantError):
        R.round_robin(["random", str(ONNX)], 4, variant="hand_and_foot", batch=2)


def test_batch_option_is_validated(capsys):
    for bad in (0, -1, 1.5, True, "8"):
        with pytest.raises(ValueError, match="batch must be an int >= 1"):
            E.evaluate_policies("heuristic", "random", hands=2, batch=bad)
    with pytest.raises(ValueError, match="batch must be an int >= 1"):
        R.round_robin(["random", "heuristic"], 2, batch=0)
    with pytest.raises(SystemExit) as e:
        E.main(["--a", "heuristic", "--b", "random", "--batch", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--batch" in err and len(err.strip().splitlines()) == 1
    assert E.main(["--a", "heuristic", "--b", "random", "--hands", "6", "--batch", "2",
                   "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["hands"] == 6
    assert R.main(["--policies", "random", "heuristic", "--hands", "4", "--batch", "3",
                   "--no-progress", "--json"]) == 0


def test_ratings_do_not_depend_on_batch():
    a = R.round_robin(["random", "heuristic"], 12, seed=4, batch=1)
    b = R.round_robin(["random", "heuristic"], 12, seed=4, batch=64, workers=2)
    assert a == b


def test_interrupt_keeps_the_finished_deals():
    """Ctrl-C in the middle of a batch: every deal finished (both seatings) is kept, in
    deal order, and equals the unbatched records."""
    finished = []

    def stop_after_five(deal):
        finished.append(deal)
        if len(finished) == 5:
            raise KeyboardInterrupt

    out: list = []
    with pytest.raises(KeyboardInterrupt):
        E.play_deals(HeuristicPolicy(), RandomPolicy(0), range(30), 9, out=out, batch=10,
                     on_deal=stop_after_five)
    assert sorted({e.deal for e in out}) == sorted(finished)
    assert [(e.deal, e.seating) for e in out] == [(d, s) for d in sorted(finished)
                                                  for s in (0, 1)]
    want = {(e.deal, e.seating): e for e in
            reference_deals(HeuristicPolicy(), RandomPolicy(0), sorted(finished), 9)}
    assert all(e == want[e.deal, e.seating] for e in out)


# ------------------------------------------------------------------- act_batch itself
def _decisions(n: int, seed: int = 0):
    env = E.make_env()
    env.reset(seed=seed)
    obs, masks = [], []
    pol = HeuristicPolicy()
    while len(obs) < n:
        o = env.observe(env.agent_selection)
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        env.step(pol.act(o["observation"], o["action_mask"]))
        if any(env.terminations.values()):
            env.reset(seed=seed + len(obs))
    return np.stack(obs), np.stack(masks)


def test_act_batch_matches_act_row_by_row():
    obs, masks = _decisions(300)
    ck, ox = CheckpointPolicy(ZIP), OnnxPolicy(ONNX)
    for pol in (ck, ox):
        got = pol.act_batch(obs, masks)
        assert got.dtype == np.int64 and got.shape == (300,)
        assert got.tolist() == [pol.act(o, m) for o, m in zip(obs, masks)]
        assert masks[np.arange(300), got].all()
    np.testing.assert_allclose(ck.logits_batch(obs, masks)[:5],
                               np.stack([ck.logits(o, m) for o, m in zip(obs[:5], masks[:5])]),
                               rtol=1e-5, atol=1e-4)
    # sampling mode: row by row from the policy's one generator, like act
    s1, s2 = CheckpointPolicy(ck.model, deterministic=False), CheckpointPolicy(ck.model, deterministic=False)
    s1.reset(3)
    s2.reset(3)
    assert s1.act_batch(obs[:50], masks[:50]).tolist() == \
        [s2.act(o, m) for o, m in zip(obs[:50], masks[:50])]
    # a policy without act_batch: act row by row, in row order
    r1, r2 = RandomPolicy(1), RandomPolicy(1)
    assert act_rows(r1, obs[:20], masks[:20]).tolist() == \
        [r2.act(o, m) for o, m in zip(obs[:20], masks[:20])]


def test_stateless_and_fork():
    ck = CheckpointPolicy(ZIP)
    assert is_stateless(ck) and is_stateless(OnnxPolicy(ONNX)) and is_stateless(HeuristicPolicy())
    assert not is_stateless(RandomPolicy(0))
    sampler = CheckpointPolicy(ck.model, deterministic=False)
    assert not is_stateless(sampler)
    other = fork(sampler)
    assert other.model is sampler.model and other._gen is not sampler._gen
    obs, masks = _decisions(40)
    other.reset(8)
    first = other.act_batch(obs, masks).tolist()
    sampler.reset(8)
    sampler.act_batch(obs[:7], masks[:7])  # the original's draws do not move the fork's
    other.reset(8)
    assert other.act_batch(obs, masks).tolist() == first


def test_bad_batches_are_refused_with_the_row():
    obs, masks = _decisions(4)
    ox, ck = OnnxPolicy(ONNX), CheckpointPolicy(ZIP)
    for pol in (ox, ck):
        with pytest.raises(ValueError, match="2-D"):
            pol.act_batch(obs[0], masks[0])
        bad = masks.copy()
        bad[2] = 0
        with pytest.raises(ValueError, match="row 2: action_mask has no legal action"):
            pol.act_batch(obs, bad)
        nan = obs.copy()
        nan[1, 3] = np.nan
        with pytest.raises(ValueError, match="row 1: observation has 1 non-finite"):
            pol.act_batch(nan, masks)
        with pytest.raises(ValueError, match="^observation has 245 entries, this Classic policy expects 202"):
            pol.act_batch(np.zeros((4, 245), np.float32), masks)
        with pytest.raises(ValueError, match="rows"):
            pol.act_batch(obs[:3], masks)
    with pytest.raises(ValueError, match="empty batch"):
        check_policy_batch(obs[:0], masks[:0])


def test_measure_eval_hands_per_s():
    rate = E.measure_eval_hands_per_s(hands=8)
    assert rate > 0
    assert E.measure_eval_hands_per_s(seconds=0.5) > 0
    with pytest.raises(ValueError):
        E.measure_eval_hands_per_s(hands=0)
