"""Every command refuses bad input with one line on stderr and exit code 2, never a
traceback; terminal play reads any number of lines without recursion and stops at the end
of input; Ctrl-C during training.evaluate prints the table of the finished deals (exit
130). Each command runs in a subprocess of this worktree (cwd and PYTHONPATH)."""

from __future__ import annotations

import argparse
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_env import cli
from canasta_env.bots import Bot
from canasta_env.bots.play import play
from tests.helpers.opponent import ROOT

ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
CHECKPOINT = "checkpoints/reference/classic.zip"


def run(module: str, *args: str, stdin: str = "", timeout: int = 120):
    return subprocess.run([sys.executable, "-m", module, *args], input=stdin, cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=timeout)


def assert_one_line_error(r: subprocess.CompletedProcess, module: str, *words: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    assert r.stderr.endswith("\n") and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"python -m {module}: error: "), r.stderr
    for w in words:
        assert w in r.stderr, (w, r.stderr)


@pytest.fixture(scope="module")
def bad_config(tmp_path_factory):
    path = tmp_path_factory.mktemp("cfg") / "bad.yaml"
    path.write_text("ppo: {n_steps: 1}\nno_such_option: 3\n")
    return str(path)


@pytest.fixture(scope="module")
def bad_yaml(tmp_path_factory):
    path = tmp_path_factory.mktemp("cfg") / "broken.yaml"
    path.write_text("a: [\n")
    return str(path)


CASES = [
    # the examples
    ("training.serve", ["--port", "99999"], ["--port", "1..65535", "99999"]),
    ("training.export_onnx", [CHECKPOINT, "{tmp}/x.onnx", "--opset", "3"],
     ["opset", "from 9 to", "got 3"]),
    # service / terminal play
    ("training.serve", ["--port", "0"], ["1..65535"]),
    ("canasta_env.bots.service", ["--port", "http"], ["--port", "not an int"]),
    ("training.serve", ["--host", "my host"], ["--host", "not a host"]),
    ("training.serve", ["--policy", "heuristic", "--host", "192.0.2.1", "--port", "8123"],
     ["cannot listen on 192.0.2.1:8123"]),
    ("training.serve", ["--max-games", "-1"], ["--max-games", "positive"]),
    ("training.serve", ["--log-level", "loud"], ["--log-level", "invalid choice"]),
    ("training.serve", ["--policy", "configs"], ["directory"]),
    ("training.serve", ["--bogus"], ["unrecognized arguments: --bogus"]),
    ("training.play", ["--seat", "7"], ["--seat", "invalid choice"]),
    ("training.play", ["--policy", "missing/model.onnx"], ["missing/model.onnx"]),
    ("training.play", ["--variant", "deluxe"], ["--variant", "invalid choice"]),
    ("canasta_env.bots.play", ["--seed", "x"], ["--seed", "invalid int"]),
    # evaluation, ratings
    ("training.evaluate", ["--a", "random", "--b", "random", "--hands", "-5"],
     ["--hands", "positive int", "-5"]),
    ("training.evaluate", ["--a", "random", "--b", "random", "--games", "0"], ["--games"]),
    ("training.evaluate", ["--a", "random", "--b", "random", "--workers", "0"], ["--workers"]),
    ("training.evaluate", ["--a", "nope", "--b", "random"], ["unknown policy 'nope'"]),
    ("training.evaluate", ["--a", "configs", "--b", "random"], ["a directory"]),
    ("training.evaluate", ["--b", "random"], ["required", "--a"]),
    ("training.ratings", ["--policies", "random"], ["at least two policies"]),
    ("training.ratings", ["--policies", "random", "heuristic", "--hands", "-1"], ["--hands"]),
    ("training.ratings", ["--policies", "random", "missing.zip"], ["missing.zip"]),
    # training
    ("training.main", ["--config", "missing.yaml"], ["--config", "missing.yaml does not exist"]),
    ("training.main", ["--config", "configs"], ["configs is a directory"]),
    ("training.main", ["--config", "{bad_config}"], ["invalid config", "n_steps",
                                                     "no_such_option"]),
    ("training.main", ["--eval-hands", "0"], ["--eval-hands"]),
    ("training.main", ["--workers", "-2"], ["--workers"]),
    ("training.train", ["--config", "{bad_yaml}"], ["not valid YAML"]),
    ("training.train", ["--config", "configs/smoke.yaml", "--total-timesteps", "0"],
     ["--total-timesteps"]),
    ("training.train", ["--config", "configs/smoke.yaml", "--resume", "missing.zip"],
     ["--resume", "missing.zip does not exist"]),
    ("training.train", [], ["required", "--config"]),
    ("training.train", ["--config", "configs/smoke.yaml", "--run-name", "bad/name"],
     ["invalid config", "run_name", "'bad/name' cannot name the run's folders: use letters, "
      "digits, _ . and - only", "at most 100 characters (given on the command line)"]),
    ("training.main", ["--config", "configs/smoke.yaml", "--run-name", ".."],
     ["invalid config", "run_name"]),
    ("training.main", ["--config", "configs/smoke.yaml", "--torch-threads", "0"],
     ["--torch-threads: must be a positive int, got '0'"]),
    ("training.train", ["--config", "configs/smoke.yaml", "--torch-threads", "two"],
     ["--torch-threads: not an int: 'two'"]),
    ("training.main", ["--config", "configs/smoke.yaml", "--seed", "-1"], ["--seed", "-1"]),
    ("training.main", ["--config", "configs/smoke.yaml", "--seed", "4294967296"],
     ["--seed: must be an int in 0..4294967295, got '4294967296'"]),
    ("training.train", ["--config", "configs/smoke.yaml", "--seed", "x"],
     ["--seed: not an int: 'x'"]),
    ("training.train", ["--config", "configs/smoke.yaml", "--torch-threads", "100000"],
     ["torch_threads: Input should be less than or equal to 256 (got 100000 on the command "
      "line)"]),
    # ONNX export
    ("training.export_onnx", [CHECKPOINT, "{tmp}/x.onnx", "--opset", "99"], ["opset", "got 99"]),
    ("training.export_onnx", ["missing.zip", "{tmp}/x.onnx"], ["missing.zip does not exist"]),
    ("training.export_onnx", ["checkpoints", "{tmp}/x.onnx"], ["is a directory"]),
    ("training.export_onnx", [CHECKPOINT, "{tmp}"], ["is a directory"]),
    ("training.export_onnx", ["checkpoints/reference/classic.onnx", "{tmp}/x.onnx"],
     ["not a MaskablePPO .zip"]),
    # benchmark
    ("canasta_env.benchmark", ["--seconds", "-1"], ["--seconds", "finite number > 0"]),
    ("canasta_env.benchmark", ["--seconds", "nan"], ["--seconds"]),
    ("training.rllib_throughput", ["--steps", "0"],  # was a pydantic traceback
     ["--steps: must be a positive int, got '0'"]),
]


@pytest.mark.parametrize("module,args,words", CASES,
                         ids=[f"{m}:{' '.join(a)}" for m, a, _ in CASES])
def test_bad_input_is_one_line_and_exit_2(module, args, words, tmp_path, bad_config, bad_yaml):
    fill = {"tmp": str(tmp_path), "bad_config": bad_config, "bad_yaml": bad_yaml}
    r = run(module, *(a.format(**fill) for a in args))
    assert_one_line_error(r, module, *words)


def test_serve_refuses_a_port_in_use():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run("training.serve", "--policy", "heuristic", "--port", str(port))
    assert_one_line_error(r, "training.serve", f"cannot listen on 127.0.0.1:{port}",
                          "in use")


# ----------------------------------------------------------------------------- terminal play
def test_play_reads_many_table_requests_then_stops_at_end_of_input():
    """``yes t | python -m training.play --seed 7`` recursed once per line (RecursionError
    after about 1,000); now 1,500 lines of ``t`` each show the table again and the end of
    input stops the game cleanly."""
    r = run("training.play", "--seed", "7", stdin="t\n" * 1500, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stderr == ""
    assert r.stdout.count("Your moves:") == 1501  # the first showing and 1,500 requests
    assert r.stdout.rstrip().endswith("Stopped. Bye.")


def test_play_loop_in_process_has_no_recursion_limit():
    lines = iter(["table"] * 3000)

    def read(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    out: list[str] = []
    assert play(0, Bot("heuristic"), 7, False, read=read, out=out.append) == 0
    assert out[-1] == "\nStopped. Bye." and sum(x == "Your moves:" for x in out) == 3001


# ----------------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigint_during_evaluate_prints_the_finished_deals(workers):
    proc = subprocess.Popen(
        [sys.executable, "-m", "training.evaluate", "--a", "random", "--b", "random",
         "--hands", "100000", "--workers", workers], cwd=ROOT,
        # off a terminal the progress is a plain line, every 0.5 s here (30 s by default)
        env={**ENV, "CANASTA_PROGRESS_EVERY": "0.5"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # Ctrl-C as a terminal delivers it: a suite started as a background job inherits
        # SIGINT ignored, and Python then never raises KeyboardInterrupt in the child
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = b""
    deadline = time.time() + 60
    try:
        # the progress line counts finished hands: wait for the first ones (seconds on a
        # busy machine), not a fixed time
        while not re.search(rb"random vs random: [1-9][0-9,]* / 100,000 hands", seen):
            assert time.time() < deadline and proc.poll() is None, seen
            ready, _, _ = select.select([proc.stderr], [], [], 0.2)
            if ready:
                seen += os.read(proc.stderr.fileno(), 4096)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, err = out.decode(), (seen + err).decode()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    lines = out.splitlines()
    first = lines[0]
    assert first.startswith("interrupted: ") and first.endswith(
        " of 50000 deals played (both seatings); the figures of those deals:")
    played = int(first.split()[1])
    assert lines[1].startswith(f"hands played                  {2 * played} ({played} deals x 2")
    assert any(x.startswith("win rate of A") for x in lines)
    assert err.rstrip().splitlines()[-1] == \
        f"python -m training.evaluate: interrupted: {played} of 50000 deals finished"
    if workers == "1":
        assert played > 0


@pytest.mark.parametrize("module", ["training.train", "training.main"])
def test_sigterm_during_training_saves_a_checkpoint_and_says_how_to_resume(tmp_path, module):
    """``kill`` / ``timeout`` / a batch scheduler send SIGTERM: the training commands stop
    as after Ctrl-C, save ``model_<steps>.zip`` first and print the command that resumes
    it (exit 130)."""
    import yaml

    cfg = yaml.safe_load((ROOT / "configs" / "smoke.yaml").read_text())
    cfg.update(checkpoint_dir=str(tmp_path / "ck"), tensorboard_dir=str(tmp_path / "tb"),
               total_timesteps=10_000_000, checkpoint_every=100_000_000)
    cfg["pretrain"].update(decisions=0, dagger_rounds=0)
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = subprocess.Popen([sys.executable, "-m", module, "--config", str(path)], cwd=ROOT,
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    snapshots = tmp_path / "ck" / "smoke" / "snapshots"
    deadline = time.time() + 120
    try:  # PPO has played (and updated) once a snapshot is saved: every 1,024 steps
        while not (snapshots.is_dir() and any(snapshots.glob("snapshot_*.zip"))):
            assert time.time() < deadline and proc.poll() is None, proc.poll()
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err.decode()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    saved = sorted((tmp_path / "ck" / "smoke").glob("model_*.zip"))
    assert len(saved) == 1 and not (tmp_path / "ck" / "smoke" / "final.zip").exists()
    stopped = "training stopped; " if module == "training.main" else ""
    assert err.rstrip().splitlines()[-1] == (
        f"python -m {module}: interrupted: {stopped}saved {saved[0]}; continue with "
        f"python -m training.train --config {path} --resume {saved[0]}")
    assert int(saved[0].stem.split("_")[1]) >= 1024


def test_interrupted_evaluation_keeps_whole_deals(monkeypatch):
    """In process: a KeyboardInterrupt in the middle of a deal keeps only the deals whose
    two seatings were both played (batch 1: the two seatings of one deal side by side)."""
    from training import evaluate as E

    calls = {"n": 0}
    real = E._Episode.__init__

    def start(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 6:  # the sixth episode: deal 2's second seating
            raise KeyboardInterrupt
        real(self, *a, **k)

    monkeypatch.setattr(E._Episode, "__init__", start)
    with pytest.raises(E.EvaluationInterrupted) as e:
        E.evaluate_policies("random", "random", hands=40, seed=3, batch=1)
    stop = e.value
    assert isinstance(stop, KeyboardInterrupt)
    deals = sorted({x.deal for x in stop.episodes})
    assert [(x.deal, x.seating) for x in stop.episodes] == [(d, s) for d in deals for s in (0, 1)]
    assert set(deals) <= {0, 1, 2} and len(deals) >= 1 and stop.deals == 20
    assert stop.result["interrupted"] is True and stop.result["deals"] == len(deals)
    assert stop.result["deals_requested"] == 20 and stop.result["hands"] == 2 * len(deals)


# ----------------------------------------------------------------------------- the helpers
@settings(max_examples=100, deadline=None)
@given(st.text())
def test_one_line_has_no_line_break_and_keeps_every_line(text):
    line = cli.one_line(text)
    assert not any(c in line for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
    for part in text.splitlines():
        assert part.strip() in line


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**6), 10**6))
def test_port_and_count_types(n):
    for parse, ok in ((cli.port, 1 <= n <= 65535), (cli.positive_int, n >= 1),
                      (cli.nonnegative_int, n >= 0)):
        if ok:
            assert parse(str(n)) == n
        else:
            with pytest.raises(argparse.ArgumentTypeError):
                parse(str(n))


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8)))
def test_positive_float_type(value):
    text = str(value)
    try:
        f = float(text)
    except ValueError:
        f = None
    if f is not None and f == f and f not in (float("inf"), float("-inf")) and f > 0:
        assert cli.positive_float(text) == f
    else:
        with pytest.raises(argparse.ArgumentTypeError):
            cli.positive_float(text)


def test_parser_error_is_one_line(capsys):
    p = cli.ArgumentParser(prog="prog")
    p.add_argument("--n", type=cli.positive_int)
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--n", "-3"])
    assert e.value.code == 2
    assert capsys.readouterr().err == "prog: error: argument --n: must be a positive int, got '-3'\n"


def test_service_without_the_bots_extra_is_one_line(monkeypatch, capsys):
    """``python -m canasta_env.bots.service`` after installing only the training extra:
    one line naming the extra, exit code 2 (not a traceback from inside create_app)."""
    import importlib.util

    from canasta_env.bots import service

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "fastapi" else real(name, *a))
    assert service.main(["--port", "8765"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "the service needs fastapi: install the bots extra" in err[0]
