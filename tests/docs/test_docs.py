"""The repository explains itself: every ``docs/RULES.md §N.M`` cited in the code exists as
a heading of docs/RULES.md (``## 2 Classic Canasta``, ``### 2.10 Taking the pile``), no
Python file cites texts outside the repository, the LICENSE is there, and the README's
``PartnershipEnv`` example runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "RULES.md"
README = ROOT / "README.md"
SKIP_DIRS = {"build", "dist", "venv", "node_modules", "site-packages", "__pycache__"}

#: a section heading of docs/RULES.md: "## 2 Classic Canasta", "### 2.10 Taking the pile"
HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)?) \S", re.M)
#: a section number after "§", optionally a range: "§2.10", "§3", "§2.3-2.5", "§3.1-§3.9"
SECTION = re.compile(r"§\s*(\d+(?:\.\d+)?)(?:\s*[-–]\s*§?\s*(\d+(?:\.\d+)?))?")


def python_files() -> list[Path]:
    """The repository's .py files (hidden directories, virtual environments and build
    output skipped)."""
    out = []
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT).parts[:-1]
        if any(d.startswith(".") or d in SKIP_DIRS or d.endswith(".egg-info") for d in parts):
            continue
        out.append(p)
    return sorted(out)


def rules_sections() -> set[str]:
    """Section numbers of docs/RULES.md headings; a heading's level must match its number
    (``##`` for "2", ``###`` for "2.10")."""
    found = set()
    for level, number in HEADING.findall(RULES.read_text(encoding="utf-8")):
        assert len(level) == 2 + number.count("."), f"heading level of §{number} in docs/RULES.md"
        found.add(number)
    return found


def cited_sections(text: str) -> set[str]:
    """Section numbers cited in ``text`` (a file that mentions docs/RULES.md: its "§"
    numbers are RULES.md sections)."""
    if "RULES.md" not in text:
        return set()
    out = set()
    for first, last in SECTION.findall(text):
        out.add(first)
        if last:
            out.add(last)
    return out


def test_rules_has_the_agreed_sections():
    sections = rules_sections()
    expected = {str(n) for n in range(1, 8)} | {"1.1", "1.2"} | \
        {f"2.{i}" for i in range(1, 17)} | {f"3.{i}" for i in range(1, 10)}
    assert expected <= sections, f"missing: {sorted(expected - sections)}"


def test_every_cited_rules_section_exists():
    sections = rules_sections()
    missing = []
    for path in python_files():
        for number in cited_sections(path.read_text(encoding="utf-8")):
            if number not in sections:
                missing.append(f"{path.relative_to(ROOT)}: docs/RULES.md §{number}")
    assert not missing, "cited sections that are not headings of docs/RULES.md:\n" + \
        "\n".join(missing)


def test_citation_parsing():
    assert cited_sections("see docs/RULES.md §2.10 and §3") == {"2.10", "3"}
    assert cited_sections("docs/RULES.md\n    §2.3-2.5, §3.1-§3.9") == {"2.3", "2.5", "3.1", "3.9"}
    assert cited_sections("§2.10 without the file name") == set()


def test_no_python_file_cites_texts_outside_the_repository():
    # built from pieces so that this file does not match itself
    outside = ("../" + "shared", "seeds" + "/", "SPEC" + ".md")
    offenders = []
    for path in python_files():
        text = path.read_text(encoding="utf-8")
        for needle in outside:
            if needle in text:
                offenders.append(f"{path.relative_to(ROOT)}: {needle!r}")
    assert not offenders, "cite docs/RULES.md sections instead:\n" + "\n".join(offenders)


def test_license_exists_and_matches_pyproject():
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


#: the pages whose python code blocks are examples that must run: the README and the guide
#: (the API reference has no code blocks; the results pages show commands, not examples)
EXAMPLE_PAGES = [README, *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "RULES.md")]
#: examples with a test of their own below (``# example: <marker>`` as a line of the block)
MARKED = {"partnership-env", "batched-env", "bot", "vector-games"}


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)\n```", page.read_text(encoding="utf-8"), re.S)


def marker(block: str) -> str | None:
    for line in block.splitlines():
        if line.strip().startswith("# example: "):
            return line.strip()[len("# example: "):]
    return None


def readme_example(name: str) -> str:
    """The python code block of the README or a guide page marked ``# example: <name>``."""
    for page in EXAMPLE_PAGES:
        for block in python_blocks(page):
            if marker(block) == name:
                return block
    raise AssertionError(f"no python block of the README or docs/*.md is marked '# example: {name}'")


def run_example(code: str, page: str = "README.md") -> dict:
    namespace: dict = {"__name__": "docs_example"}
    exec(compile(code, page, "exec"), namespace)
    return namespace


UNMARKED = [pytest.param(block, id=f"{page.relative_to(ROOT)}[{i}]")
            for page in EXAMPLE_PAGES for i, block in enumerate(python_blocks(page))
            if marker(block) is None]


def test_every_example_is_run_by_a_test():
    markers = [marker(b) for page in EXAMPLE_PAGES for b in python_blocks(page)]
    assert sorted(m for m in markers if m) == sorted(MARKED), "each marker has its own test"
    assert len(UNMARKED) >= 10 and python_blocks(README)


@pytest.mark.parametrize("code", UNMARKED)
def test_readme_and_guide_examples_run(code, monkeypatch, capsys):
    """Every python block of the README and the guide pages runs as written (from the
    repository's root); the ones with a ``# example:`` marker have their own test below."""
    if "sb3_contrib" in code or "training" in code:
        pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(ROOT)
    run_example(code)


def test_readme_quick_start_plays_a_hand(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    namespace = run_example(python_blocks(README)[0])
    sheets = namespace["info"]["score_sheets"]
    assert len(sheets) == 2 and all("hand_score" in s for s in sheets)
    assert "Score sheet us" in capsys.readouterr().out
    assert namespace["env"].agents == []                 # the hand is over


def test_readme_partnership_env_example_runs(capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    code = readme_example("partnership-env")
    monkeypatch.chdir(ROOT)
    namespace = run_example(code)
    out = capsys.readouterr().out
    assert "hand scores (A, B)" in out
    assert namespace["done"] or namespace["truncated"]
    assert len(namespace["info"]["hand_scores"]) == 2


def test_readme_bot_example_runs(monkeypatch):
    """The Bot snippet runs as written (it once used a position it never made)."""
    code = readme_example("bot")
    monkeypatch.chdir(ROOT)
    namespace = run_example(code)
    assert namespace["seat"] == 2
    assert namespace["move"] == {"action": 0, "description": "draw from stock"}
    assert namespace["moves"][0] == {**namespace["move"], "seat": 2} and len(namespace["moves"]) >= 2


def test_readme_batched_env_example_runs(capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from canasta_env.native import available

    if not available:
        pytest.fail("the native core is not built (pip install -e . builds it)")
    code = readme_example("batched-env")
    monkeypatch.chdir(ROOT)
    namespace = run_example(code)
    out = capsys.readouterr().out
    assert "hands finished; learner sides {0, 1}" in out
    assert namespace["model"].num_timesteps == 2048
    assert namespace["env"].hands_finished > 0


def test_vector_games_example_runs(capsys, monkeypatch):
    from canasta_env.native import available

    if not available:
        pytest.fail("the native core is not built (pip install -e . builds it)")
    monkeypatch.chdir(ROOT)
    namespace = run_example(readme_example("vector-games"))
    assert namespace["obs"].shape == (64, 202) and namespace["masks"].shape == (64, 91)
    assert namespace["hands"] > 0
    assert capsys.readouterr().out == f"(64, 202) (64, 91) {namespace['hands']}\n"


def test_curve_script_checks_its_input_and_draws_the_shipped_curve(tmp_path):
    """``docs/results/classic_reference_curve.py`` (docs/results/reference-policies.md):
    bad data or arguments are one error line and exit 2 before matplotlib is needed; with
    the documented arguments it draws the curve, or says that matplotlib is missing."""
    import importlib.util
    import subprocess
    import sys

    results = ROOT / "docs" / "results"
    script, csv = results / "classic_reference_curve.py", results / "classic_reference_curve.csv"

    def run(*args):
        return subprocess.run([sys.executable, str(script), *map(str, args)], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)

    bad, empty = tmp_path / "bad.csv", tmp_path / "empty.csv"
    bad.write_text("steps,seed7,seed8,run\n1,0.5,x\n")
    empty.write_text("# only a comment\n")
    for args, says in (
            ((bad, tmp_path / "x.png", 1, 2), "want steps,seed7,seed8,run; got '1,0.5,x'"),
            ((empty, tmp_path / "x.png", 1, 2), "no data rows (steps,seed7,seed8,run)"),
            ((tmp_path / "missing.csv", tmp_path / "x.png", 1, 2), "No such file"),
            ((csv, tmp_path / "x.png", 58327168, 99000000),
             "must lie within the data (0 to 61,327,168 steps; --leg after anneal_from)"),
            ((csv, tmp_path / "x.png", 58327168, 32327168, "--leg", 1000),
             "--leg after anneal_from"),
            ((csv, tmp_path / "x.png", 58327168, 32327168, "--branch", "cl_long2"),
             "--branch wants RUN:STEPS (e.g. cl_long2:32327168), got 'cl_long2'"),
            ((csv, tmp_path / "x.png", 58327168, 32327168, "--branch", "nope:5"),
             "--branch names runs not in the data: nope"),
            ((csv, tmp_path / "x.png", "abc", 2), "invalid int value: 'abc'")):
        r = run(*args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1 and says in r.stderr, r.stderr  # one line
    assert not (tmp_path / "x.png").exists()
    out = tmp_path / "curve.png"
    r = run(csv, out, 58327168, 32327168, "--leg", 51327168, "--branch", "cl_long2:32327168",
            "--branch", "cl_long3b:51327168")
    if importlib.util.find_spec("matplotlib") is None:
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "needs matplotlib (pip install matplotlib)" in r.stderr
        assert not out.exists()
    else:
        assert r.returncode == 0, r.stderr
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _going_out_check_module():
    from tests.helpers.scripts import load_script

    return load_script("docs/results/going_out_check.py")


def test_going_out_check_changes_only_losing_commitments_to_go_out():
    """``docs/results/going_out_check.py`` (docs/results/experiments.md: the check that
    was not adopted): every decision it changes was a commitment to go out whose
    estimated hand score loses, and becomes the network's best legal action that neither
    commits nor asks partner; every other decision is the network's own argmax, and none
    of them is a losing commitment it could have avoided."""
    pytest.importorskip("sb3_contrib")
    import numpy as np

    from canasta_env.engine import actions as A
    from canasta_env.policies import TableView
    from training.checkpoint import load_policy_checkpoint
    from training.evaluate import evaluate_policies

    mod = _going_out_check_module()
    net = load_policy_checkpoint(ROOT / "checkpoints" / "reference" / "classic.zip")
    seen = []

    class Recording(mod.GoingOutCheck):
        def act_batch(self, observations, masks):
            out = super().act_batch(observations, masks)
            seen.append((observations.copy(), masks.copy(), out.copy()))
            return out

    check = Recording(net)
    evaluate_policies(check, "heuristic", hands=60, seed=100)
    changed = 0
    for obs, masks, acts in seen:
        logits = net.logits_batch(obs, masks)
        for o, m, lg, a in zip(obs, masks, logits, acts):
            assert m[a] == 1
            best = int(np.argmax(lg))
            v = TableView(o)
            if a == best:  # unchanged: never a losing going out it could have avoided
                assert not (mod.going_out_loses(v, best) and any(
                    not mod.commits(v, int(b)) and b != A.ASK_PARTNER
                    for b in np.flatnonzero(m)))
                continue
            changed += 1
            assert mod.commits(v, best) and mod.going_out_loses(v, best)
            assert not mod.commits(v, int(a)) and a != A.ASK_PARTNER
            others = [b for b in np.flatnonzero(m)
                      if not mod.commits(v, int(b)) and b != A.ASK_PARTNER]
            assert lg[a] == max(lg[b] for b in others)
    assert changed == check.changed > 0


def _view(**pieces):
    """A Classic ``TableView`` in phase MELD with empty hands, melds and pile, both sides
    opened before this turn, then ``pieces`` set."""
    from canasta_env.engine.state import Phase
    from canasta_env.policies import TableView

    z = [0] * 15
    v = TableView.__new__(TableView)
    v.hand = list(z)
    v.nat, v.jok, v.two = [list(z), list(z)], [list(z), list(z)], [list(z), list(z)]
    v.red3, v.sizes = [0, 0, 0, 0], [0, 0, 0, 0]
    v.known = [None, list(z), list(z), list(z)]
    v.opened = [True, True]
    v.must_out = v.asked_yes = False
    v.phase, v.turn_points, v.top, v.pile = Phase.MELD, 0, -1, list(z)
    for k, val in pieces.items():
        setattr(v, k, val)
    v.wild = [[a + b for a, b in zip(v.jok[t], v.two[t])] for t in (0, 1)]
    return v


def _classes(**n):
    from canasta_env.engine.cards import NAME_TO_CLASS

    names = {"ten": "10", "nine": "9", "five": "5", "four": "4", "joker": "Joker", "two": "2",
             "b3": "black 3"}
    out = [0] * 15
    for name, k in n.items():
        out[NAME_TO_CLASS[names.get(name, name)]] = k
    return out


def test_going_out_check_estimate_counts_each_term():
    """The check's estimate (points: ours, theirs) on positions counted by hand
    (docs/RULES.md §2.15), one term changed at a time: melded cards and a canasta the meld
    completes, a natural canasta turned mixed, red 3s (negative for a side without
    melds), the going-out bonus (200 for a side opening this turn), hidden hands (known
    cards exactly, 11.3 per other card), the best way to play a last card."""
    from canasta_env.engine import actions as A
    from canasta_env.engine.state import Phase

    mod = _going_out_check_module()
    add_ten = A.ADD_TO_MELD + 3 * 6          # MELD_RANKS[6] is the ten
    # our tens: 5 naturals + a joker; my last card a ten; their natural canasta of aces
    base = dict(hand=_classes(ten=1), nat=[_classes(ten=5), _classes(A=7)],
                jok=[_classes(ten=1), [0] * 15])
    v = _view(**base, red3=[1, 0, 0, 0])
    assert mod.commits(v, add_ten)
    # ours: 6 tens 60 + joker 50 + mixed canasta 300 + red 3 100 + going out 100
    assert mod.estimate(v, add_ten) == (610, 640)
    assert mod.going_out_loses(v, add_ten)
    assert not mod.going_out_loses(_view(**base, red3=[1, 0, 0, 0], asked_yes=True), add_ten)
    assert not mod.going_out_loses(_view(**base, red3=[1, 0, 0, 0], must_out=True), add_ten)
    assert not mod.going_out_loses(_view(**base, red3=[2, 0, 0, 0]), add_ten)  # 710 > 640
    # a tie is not a loss: ours 610 = theirs 640 - 30 of the left opponent's 2 known fives
    tie = _view(**base, red3=[1, 0, 0, 0], sizes=[1, 2, 0, 0],
                known=[None, _classes(five=2), [0] * 15, [0] * 15])
    assert mod.estimate(tie, add_ten) == (610, 630) and mod.going_out_loses(tie, add_ten)
    tie.sizes, tie.known[1] = [1, 3, 0, 0], _classes(ten=3)
    assert mod.estimate(tie, add_ten) == (610, 610) and not mod.going_out_loses(tie, add_ten)
    v = _view(**base, red3=[1, 1, 0, 1], sizes=[1, 2, 3, 2],
              known=[None, _classes(joker=1), [0] * 15, [0] * 15])
    ours, theirs = mod.estimate(v, add_ten)  # partner 3 x 11.3; left 50 + 11.3; right 22.6
    assert (ours, theirs) == pytest.approx((610 - 33.9, 640 + 200 - 61.3 - 22.6))
    # opened this turn (opening points laid): the player goes out concealed, 200
    assert mod.estimate(_view(**base, red3=[1, 0, 0, 0], turn_points=60), add_ten) == (710, 640)
    # a joker on our natural canasta of kings: 70 + 50, the bonus 500 becomes 300
    add_joker_k = A.ADD_TO_MELD + 3 * 9 + 1
    v = _view(hand=_classes(joker=1), nat=[_classes(K=7), [0] * 15])
    assert mod.estimate(v, add_joker_k) == (420 + 100, 0)
    # a wild card on a canasta already mixed: +20 only
    add_two_k = A.ADD_TO_MELD + 3 * 9 + 2
    v = _view(hand=_classes(two=1), nat=[_classes(K=6), [0] * 15], jok=[_classes(K=1), [0] * 15])
    assert mod.estimate(v, add_two_k) == (60 + 50 + 20 + 300 + 100, 0)
    # a last card: a 9 with no meld of 9s is discarded; with 6 nines on the table it is
    # melded and completes a natural canasta (+9 points of the card, +500)
    two_left = dict(hand=_classes(ten=1, nine=1), jok=[_classes(ten=1), [0] * 15])
    v = _view(**two_left, nat=[_classes(ten=5), [0] * 15])
    assert mod.commits(v, add_ten) and mod.estimate(v, add_ten) == (410 + 100, 0)
    v = _view(**two_left, nat=[_classes(ten=5, nine=6), [0] * 15])
    assert mod.estimate(v, add_ten) == (410 + 60 + 10 + 500 + 100, 0)
    # three cards left after the meld: no commitment
    assert not mod.commits(_view(hand=_classes(ten=1, nine=2), nat=[_classes(ten=5), [0] * 15]),
                           add_ten)
    # black 3s always commit (the player must then go out), whatever is left
    v = _view(hand=_classes(b3=3, K=2), nat=[_classes(K=7), [0] * 15])
    assert mod.commits(v, A.MELD_BLACK_THREES)
    assert mod.estimate(v, A.MELD_BLACK_THREES) == (570 + 15 + 10 + 100, 0)  # a king discarded
    # taking a one-card pile with the last pair goes out at once
    v = _view(hand=_classes(Q=2), nat=[_classes(K=7), [0] * 15], phase=Phase.DRAW,
              top=_classes(Q=1).index(1), pile=_classes(Q=1))
    assert mod.commits(v, A.TAKE_PAIR) and mod.estimate(v, A.TAKE_PAIR) == (570 + 30 + 100, 0)
    assert not mod.commits(_view(hand=_classes(Q=2), phase=Phase.DRAW, opened=[False, True],
                                 top=_classes(Q=1).index(1), pile=_classes(Q=1)), A.TAKE_PAIR)
    # in phase PICKUP a meld can collect the set-aside pile: never a commitment
    start_fives = A.START_MELD + 3 * 1
    v = _view(hand=_classes(five=3), phase=Phase.PICKUP, opened=[False, False])
    assert not mod.commits(v, start_fives)
    # unopened: three 5s laid and out concealed (200); their red 3 without melds is -100
    v = _view(hand=_classes(five=3), red3=[1, 1, 0, 0], opened=[False, False])
    assert mod.commits(v, start_fives)
    assert mod.estimate(v, start_fives) == (15 + 100 + 200, -100)


def test_going_out_check_reads_classic_observations_only():
    pytest.importorskip("sb3_contrib")
    import numpy as np

    from canasta_env.observation import OBS_SIZE_HAND_AND_FOOT

    mod = _going_out_check_module()
    check = mod.GoingOutCheck(net=None)
    with pytest.raises(ValueError, match="Classic observations"):
        check.act_batch(np.zeros((1, OBS_SIZE_HAND_AND_FOOT), np.float32), np.ones((1, 98)))


def test_every_config_is_in_the_training_guide():
    """Each file of configs/ has a row in docs/training.md's table of configs."""
    guide = (ROOT / "docs" / "training.md").read_text()
    missing = [p.name for p in sorted((ROOT / "configs").glob("*.yaml"))
               if f"`configs/{p.name}`" not in guide]
    assert missing == []
