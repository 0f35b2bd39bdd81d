"""A real bot service in a subprocess, for the tests that talk to it over HTTP
(tests/service/test_service.py, test_service_store.py, test_browser.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nobody listens on at the moment (127.0.0.1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, port: int, *extra: str) -> subprocess.Popen:
    """``python -m canasta_env.bots.service`` with heuristic bots on ``port`` and the
    SQLite file ``db`` (plus ``extra`` options), once it answers ``GET /api``.

    Raises:
        AssertionError: the server exited (its output in the message) or did not answer
            within 60 s.
    """
    import httpx

    proc = subprocess.Popen(
        [sys.executable, "-m", "canasta_env.bots.service", "--port", str(port), "--policy",
         "heuristic", "--log-level", "warning", "--db", db, *extra],
        cwd=ROOT, env=dict(os.environ, PYTHONUNBUFFERED="1"), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stdout.read().decode()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if time.time() > deadline:
            stop(proc)
            raise AssertionError("server did not answer within 60 s")
        time.sleep(0.1)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def served(tmp_path_factory) -> Iterator[str]:
    """Body of a module fixture: a running server on a fresh database; yields its base URL
    and stops it afterwards."""
    port = free_port()
    proc = start_server(str(tmp_path_factory.mktemp("db") / "games.sqlite3"), port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)
