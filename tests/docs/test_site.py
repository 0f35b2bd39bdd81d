"""The front door and the documentation site: the README is a short entrance whose test
command is what CI runs; the set-up script installs what the suite needs; the results pages'
tables are what ``docs/results/tables.py`` makes from their data; ``mkdocs build --strict``
passes, and fails on a broken link or a missing docstring reference; every public module has
an API reference entry; the curl quick start works against a running service; the version
lives in one place and the changelog names it."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
RESULTS = ROOT / "docs" / "results"
ENV = dict(os.environ, PYTHONPATH=str(ROOT), NO_MKDOCS_2_WARNING="1",
           PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
#: the README's test command; .ci/run runs exactly this line
TEST_COMMAND = "bash .ci/setup && python -m pytest -q"


def readme() -> str:
    return README.read_text(encoding="utf-8")


# -- the README ---------------------------------------------------------------------------

def test_readme_is_a_short_entrance():
    text = readme()
    lines = text.splitlines()
    assert len(lines) <= 250, len(lines)
    assert lines[0] == "# canasta_env"
    # what the project is comes first: the first paragraph, then a picture, then set-up
    assert "reinforcement-learning environment" in "\n".join(lines[:4])
    assert lines.index("## Set up and run") < 15
    assert re.search(r"!\[[^\]]+\]\(docs/results/classic_reference_curve\.png\)", text)


def test_readme_cites_no_commit_and_keeps_no_run_history():
    text = readme()
    hashes = [h for h in re.findall(r"\b[0-9a-f]{7,40}\b", text)
              if re.search(r"[a-f]", h) and re.search(r"\d", h)]
    assert not hashes, hashes
    assert "commit" not in text.lower()
    for history in ("validation means", "cl_long", "cl_rnd", "DAgger agreement", "steps/s with"):
        assert history not in text, history


def test_every_relative_link_of_the_readme_exists():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme())
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert len(local) >= 15
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, missing


def test_readme_headline_figures_are_the_records():
    """Each figure of the README's headline table is in the record it links to."""
    table = readme().split("## Headline figures", 1)[1].split("##", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| ") and "docs/results/" in r]
    assert len(rows) == 5
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        page = ROOT / re.search(r"\((docs/results/[\w-]+\.md)\)", cells[-1])[1]
        record = page.read_text(encoding="utf-8")
        for figures in cells[1:3]:
            for figure in figures.split(" / "):
                assert figure in record, f"{figure} ({cells[0]}) not in {page.name}"


def test_readme_says_which_extra_each_command_needs():
    text = readme()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    table = text.split("## Which extra each command needs", 1)[1].split("##", 1)[0]
    named = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    assert named == set(extras), (named, set(extras))
    # every command of the tour names its extra at the end of its line
    tour = text.split("Train, evaluate, play, serve", 1)[1].split("```", 2)[1]
    for line in tour.splitlines()[1:]:
        assert re.search(r"\((training|bots|training, bots)\)\s*$", line), line


# -- set-up and CI --------------------------------------------------------------------------

def test_ci_runs_the_readme_test_command_then_the_strict_site_build():
    assert re.search(rf"^{re.escape(TEST_COMMAND)}\s+# tests$", readme(), re.M)
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in run.splitlines() if line and not line.startswith("#")]
    assert TEST_COMMAND in commands
    assert any("mkdocs build --strict" in c for c in commands)


def test_setup_script_installs_what_the_suite_needs():
    setup = ROOT / ".ci" / "setup"
    text = setup.read_text(encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(setup)]).returncode == 0
    assert 'pip install -q -e ".[training,service,dev,distributed,docs,interop]"' in text
    assert "export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1" in text
    assert "playwright install" not in text
    for package, check in (("postgresql", "/usr/lib/postgresql/*/bin/initdb"),
                           ("chromium", "/usr/bin/chromium"), ("curl", "command -v curl")):
        assert check in text and f"missing+=({package})" in text, package
    # the extras it installs are the ones pyproject.toml defines
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"training", "service", "dev", "distributed", "docs"} <= set(extras)


def test_setup_script_skips_apt_when_nothing_is_missing(tmp_path):
    """With every system package present (as here) it never calls apt-get: a stub pip
    records the install, a stub apt-get fails the run if it is called."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "apt-get").write_text("#!/bin/sh\necho apt-get called >&2\nexit 9\n")
    (stubs / "python").write_text(f"#!/bin/sh\necho \"$@\" > {tmp_path / 'pip_args'}\n")
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    if not (shutil.which("curl") and Path("/usr/bin/chromium").exists()
            and list(Path("/usr/lib/postgresql").glob("*/bin/initdb"))):
        pytest.fail("this machine lacks a system package the suite needs: run bash .ci/setup")
    env = dict(os.environ, PATH=f"{stubs}{os.pathsep}{os.environ['PATH']}")
    r = subprocess.run(["bash", str(ROOT / ".ci" / "setup")], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "apt-get called" not in r.stderr
    assert (tmp_path / "pip_args").read_text().split() == [
        "-m", "pip", "install", "-q", "-e", ".[training,service,dev,distributed,docs,interop]"]


# -- results as records ---------------------------------------------------------------------

def tables_module():
    return load_script("docs/results/tables.py")


def test_every_results_table_is_what_the_script_makes_from_its_data():
    tables = tables_module()
    pages = tables.pages()
    assert {p.name for p in pages} == {"main-job.md", "reference-policies.md", "whole-games.md",
                                       "search.md", "experiments.md", "benchmarks.md",
                                       "panel.md", "ladder.md", "robustness.md"}
    for page in pages:
        assert tables.generate(page) == page.read_text(encoding="utf-8"), (
            f"{page.name}: a table differs from its data; run python docs/results/tables.py")
    # every table of every data file is shown on its page, and every row names its command
    for data in RESULTS.glob("*.json"):
        page = data.with_suffix(".md")
        specs = json.loads(data.read_text(encoding="utf-8"))["tables"]
        assert set(specs) == set(tables.tables(page)), data.name
        for name, spec in specs.items():
            for row in spec.get("rows", []):
                assert row["command"].startswith("python "), (data.name, name)
            if "result" in spec:  # a command's JSON output: the command beside it
                assert spec["command"].startswith("python "), (data.name, name)
    r = subprocess.run([sys.executable, str(RESULTS / "tables.py"), "--check"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    count = sum(len(tables.tables(page)) for page in tables.pages())
    assert r.stdout == f"ok: all {count} generated tables match their data\n"


def test_an_evaluation_row_is_formatted_from_its_figures():
    tables = tables_module()
    spec = {"kind": "evaluation", "levels": [15, 50], "rows": [
        {"opponent": "heuristic", "seed": 7, "win_rate": 0.9595, "win_rate_ci": [0.945, 0.97],
         "mean_score_diff": 1180, "score_diff_ci": [-3, 1281], "opening_success": [1, 0.9865],
         "command": "python -m training.evaluate --a reference --b heuristic"}]}
    assert tables.render(spec).splitlines() == [
        "| opponent, seed | win rate (95% CI) | mean score diff per hand (95% CI) | "
        "opening success at 15 / 50 | command |",
        "|---|---|---|---|---|",
        "| heuristic, 7 | 0.9595 (0.945-0.970) | +1,180 (-3 to +1,281) | 1.000 / 0.987 | "
        "`python -m training.evaluate --a reference --b heuristic` |"]
    spec["rows"][0]["opening_success"] = [1.0]
    with pytest.raises(tables.TableError, match="one rate per level"):
        tables.render(spec)


def test_panel_and_ratings_tables_are_formatted_from_the_json_outputs():
    tables = tables_module()
    ratings = {"ratings": [{"policy": "search", "mu": 30.5, "sigma": 1.25, "ordinal": 26.75},
                           {"policy": "style:freezer", "mu": 20, "sigma": 1, "ordinal": 17}],
               "pairs": [{"a": "style:freezer", "b": "search", "mean_score_diff": -321.6,
                          "win_rate": 0.3, "win_rate_ci": [0.2, 0.4], "score_diff_ci": [-400, -200],
                          "hands": 200}], "hands_per_pair": 200, "seed": 7}
    cmd = "python -m training.ratings --policies search style:freezer --hands 200 --seed 7 --json"
    assert tables.render({"kind": "ratings", "command": cmd, "result": ratings}).splitlines() == [
        "| rank | policy | mu | sigma | ordinal (mu - 3 sigma) |", "|---|---|---|---|---|",
        "| 1 | `search` | 30.50 | 1.25 | 26.75 |", "| 2 | `style:freezer` | 20.00 | 1.00 | 17.00 |",
        "", "200 hands per pair, seed 7.", "", f"Command: `{cmd}`"]
    assert tables.render({"kind": "pairs", "command": cmd, "result": ratings}).splitlines()[:4] == [
        "| row against column | search | freezer |", "|---|---|---|",
        "| `search` | - | +322 |", "| `style:freezer` | -322 | - |"]
    del ratings["pairs"][0]
    with pytest.raises(tables.TableError, match="no result for search against style:freezer"):
        tables.render({"kind": "pairs", "command": cmd, "result": ratings})
    panel = {"a": "reference", "baseline": "heuristic", "hands": 400, "seed": 7,
             "better_against_all": False, "opponents": [
                 {"opponent": "style:defensive", "a_win_rate": 0.6, "a_win_rate_ci": [0.55, 0.65],
                  "baseline_win_rate": 0.5, "baseline_win_rate_ci": [0.45, 0.55],
                  "a_mean_score_diff": 120.4, "baseline_mean_score_diff": 10,
                  "paired_diff": 110.4, "paired_diff_ci": [-5.2, 226], "better": False}]}
    out = tables.render({"kind": "panel", "command": "python -m x", "result": panel}).splitlines()
    assert out[2] == ("| `style:defensive` | 0.600 (0.550-0.650) | 0.500 (0.450-0.550) | +120 | +10 | "
                      "+110 (-5 to +226) | no |")
    assert out[4] == ("400 hands per side and opponent, seed 7; better against every opponent: "
                      "no.")
    del panel["opponents"][0]["paired_diff_ci"]
    with pytest.raises(tables.TableError, match="a panel table's data lacks or garbles"):
        tables.render({"kind": "panel", "command": "python -m x", "result": panel})


def test_check_names_a_table_whose_data_changed(tmp_path):
    """``--check`` on a copy of the results with one figure changed exits 1 naming the
    table; the rewrite then makes the page match again."""
    copy = tmp_path / "docs" / "results"
    shutil.copytree(RESULTS, copy)
    data = json.loads((copy / "whole-games.json").read_text())
    data["tables"]["whole_games"]["rows"][0]["cells"][1] = "0.5 (0.4-0.6), +1"
    (copy / "whole-games.json").write_text(json.dumps(data))
    script = copy / "tables.py"
    r = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == "python docs/results/tables.py: table differs from its data: " \
                       "whole-games.md: whole_games\n"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert r.returncode == 0 and "0.5 (0.4-0.6), +1" in (copy / "whole-games.md").read_text()
    assert subprocess.run([sys.executable, str(script), "--check"]).returncode == 0
    (copy / "search.json").write_text("{not json")
    r = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("python docs/results/tables.py: error: ")
    assert r.stderr.count("\n") == 1 and "search.json" in r.stderr


# -- the site -------------------------------------------------------------------------------

def mkdocs_build(config_dir: Path, site: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e \".[docs]\")")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site)], cwd=config_dir, env=ENV, capture_output=True, text=True,
                          timeout=300)


def site_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    copy.mkdir()
    shutil.copytree(ROOT / "docs", copy / "docs")
    for name in ("mkdocs.yml", "CHANGELOG.md"):
        shutil.copy(ROOT / name, copy / name)
    return copy


def test_the_site_builds_strict_and_offline(tmp_path):
    r = mkdocs_build(ROOT, tmp_path / "site")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "WARNING" not in r.stderr, r.stderr[-3000:]
    site = tmp_path / "site"
    for page in ("index.html", "environment/index.html", "RULES/index.html",
                 "results/reference-policies/index.html", "reference/engine/index.html",
                 "changelog/index.html"):
        assert (site / page).is_file(), page
    # the API reference is built from the docstrings; the changelog page is CHANGELOG.md
    engine = (site / "reference" / "engine" / "index.html").read_text(encoding="utf-8")
    assert "IllegalActionError" in engine and "RulesOptions" in engine
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text(encoding="utf-8")
    # the service page's OpenAPI reference is the running service's schema
    from canasta_env.bots.service import create_app

    schema = create_app(policy="heuristic", db="sqlite://").openapi()
    service = (site / "service" / "index.html").read_text(encoding="utf-8")
    for path in schema["paths"]:
        assert f"<code>{path}</code>" in service, path
    for model in schema["components"]["schemas"]:
        assert f'id="{model.lower()}"' in service, model
    # offline: no page loads fonts or scripts from another host
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, html
        assert not re.search(r"<script[^>]+src=\"https?://", text), html


def test_the_openapi_hook_writes_types_and_fields():
    hook = load_script("docs/hooks/openapi.py")
    assert hook.type_name({"$ref": "#/components/schemas/Move"}) == "[Move](#move)"
    assert hook.type_name({"anyOf": [{"type": "array", "items": {"type": "integer"}},
                                      {"type": "null"}]}) == "list of integer or null"
    def json_body(schema):
        return {"content": {"application/json": {"schema": schema}}}

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": {"summary": "Make | x", "parameters": [
               {"name": "id", "in": "path"}],
               "requestBody": json_body({"$ref": "#/components/schemas/X"}),
               "responses": {"201": json_body({"type": "string"})}}}},
           "components": {"schemas": {"X": {"description": "Body of ``POST /x``.", "required": ["a"],
                                             "properties": {"a": {"type": "integer", "description": "an a"},
                                                            "b": {"type": "boolean", "default": False}}}}}}
    lines = hook.openapi_markdown(doc).splitlines()
    assert "| POST | `/x` | Make \\| x | `id` (path) | [X](#x) | 201 string |" in lines
    assert "Body of `POST /x`." in lines
    assert "| `a` | integer | yes |  | an a |" in lines and "| `b` | boolean |  | `False` |  |" in lines
    page = "intro\n<!-- openapi-reference -->\n"
    assert hook.on_page_markdown("no marker", None, None, None) == "no marker"
    assert "### Paths" in hook.on_page_markdown(page, None, None, None)


def test_the_api_reference_renders_rst_tables_and_roles_as_markdown():
    rst = load_script("docs/hooks/griffe_rst.py")
    doc = ("Summary, see :class:`~canasta_env.engine.Game` and :func:`fail`.\n"
           "Run it::\n\n    python -m x\n\n"
           "=================  =====\n"
           "name               use\n"
           "=================  =====\n"
           ":func:`one_line`   a line\n"
           "=================  =====\n"
           "\nAfter.\n=====\n")
    assert rst.rst_to_markdown(doc).splitlines() == [
        "Summary, see `Game` and `fail`.", "Run it:", "", "    python -m x", "",
        "```text",
        "=================  =====",
        "name               use",
        "=================  =====",
        "one_line           a line",
        "=================  =====",
        "```", "", "After.", "====="]


def test_the_guide_has_the_agreed_pages():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    guide = nav.split("  - Guide:", 1)[1].split("  - Results:", 1)[0]
    assert len(re.findall(r"\.md$", guide, re.M)) >= 8
    for page in ("environment.md", "RULES.md", "training.md", "evaluation.md", "bots.md",
                 "service.md", "native.md", "rllib.md", "benchmarks.md"):
        assert page in guide, page
    assert "font: false" in nav and "privacy" not in nav


def test_a_broken_link_fails_the_build(tmp_path):
    copy = site_copy(tmp_path)
    with (copy / "docs" / "training.md").open("a", encoding="utf-8") as f:
        f.write("\nSee [the missing page](no-such-page.md).\n")
    r = mkdocs_build(copy, tmp_path / "site")
    assert r.returncode != 0
    assert "contains a link 'no-such-page.md', but the target is not found" in r.stderr


def test_a_missing_docstring_reference_fails_the_build(tmp_path):
    copy = site_copy(tmp_path)
    with (copy / "docs" / "reference" / "native.md").open("a", encoding="utf-8") as f:
        f.write("\n::: canasta_env.native.no_such_thing\n")
    r = mkdocs_build(copy, tmp_path / "site")
    assert r.returncode != 0
    assert "Could not collect 'canasta_env.native.no_such_thing'" in r.stderr


def test_every_public_module_is_in_the_api_reference():
    documented = set()
    for page in (ROOT / "docs" / "reference").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)$", page.read_text(encoding="utf-8"), re.M))
    modules = set()
    for package in ("canasta_env", "training"):
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            # Alembic's scripts (the migrations' env and revisions) are not modules to import
            alembic_script = parts[:3] == ["canasta_env", "bots", "migrations"] and len(parts) > 3
            if not any(part.startswith("_") for part in parts) and not alembic_script:
                modules.add(".".join(parts))
    assert modules - documented == set()
    assert documented - modules == set()


# -- the curl quick start -------------------------------------------------------------------

def curl_block(text: str) -> str:
    for block in re.findall(r"```bash\n(.*?)\n```", text, re.S):
        if "curl" in block:
            return block
    raise AssertionError("no curl block")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_curl_quick_start_plays_against_a_running_service(tmp_path):
    """The README's curl block (the same as docs/service.md's), run with bash against a
    service started as its first line says (on a free port, a fresh database)."""
    pytest.importorskip("fastapi")
    block = curl_block(readme())
    assert block == curl_block((ROOT / "docs" / "service.md").read_text(encoding="utf-8"))
    first, *rest = block.splitlines()
    assert first == "python -m canasta_env.bots.service --policy heuristic &"
    if shutil.which("curl") is None:
        pytest.fail("curl is missing: bash .ci/setup installs it")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "canasta_env.bots.service", "--policy", "heuristic", "--port",
         str(port), "--db", str(tmp_path / "games.sqlite3")], cwd=tmp_path, env=ENV,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
            time.sleep(0.2)
        script = "set -euo pipefail\n" + "\n".join(rest).replace("localhost:8000", f"127.0.0.1:{port}")
        r = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=ENV, capture_output=True,
                           text=True, timeout=60)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert r.returncode == 0, r.stderr
    view, result = r.stdout.split("}{", 1)
    view, result = json.loads(view + "}"), json.loads("{" + result)
    assert view["seat"] == 0 and view["to_move"] == 0 and view["phase"] == "DRAW"
    assert {"action": 0, "description": "draw from stock"} in view["legal_actions"]
    assert result["moves"][0]["seat"] == 0
    assert result["moves"][0]["description"] == "draw from stock"
    assert result["view"]["phase"] == "MELD" and len(result["view"]["hand"]) == len(view["hand"]) + 1


# -- the version and the changelog -----------------------------------------------------------

def test_the_version_lives_in_one_place_and_the_changelog_names_it():
    import canasta_env

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "canasta_env.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.startswith("# Changelog\n") and "Keep a Changelog" in changelog
    releases = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert releases[0] == "Unreleased" and releases[1] == canasta_env.__version__
    for section in re.findall(r"^### (\w+)$", changelog, re.M):
        assert section in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
