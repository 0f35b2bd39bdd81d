"""A throw-away PostgreSQL server for the service tests: Debian's ``postgresql`` package
(``initdb``, ``pg_ctl``) started in a temporary directory on a free port of 127.0.0.1
(as the ``postgres`` user when the tests run as root: PostgreSQL refuses root), trust
authentication, fsync off. The tests skip only when the binaries are not installed."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers.service import free_port


def pg_bin_dir() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: on PATH, else Debian's
    ``/usr/lib/postgresql/<version>/bin`` (newest); ``None`` when not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(Path(p).parent.parent.name)
                        if Path(p).parent.parent.name.isdigit() else 0)
    return Path(candidates[-1]).parent if candidates else None


@contextmanager
def postgres_server():
    """Yields the URL (``postgresql://postgres@127.0.0.1:PORT/postgres``) of a fresh
    server; stops it and removes its files afterwards."""
    bindir = pg_bin_dir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install -y postgresql)")
    base = Path(tempfile.mkdtemp(prefix="canasta-pg-"))
    run_as: dict = {}
    if os.geteuid() == 0:
        import pwd

        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            raise AssertionError("running as root, PostgreSQL needs the 'postgres' user "
                                 "(made by Debian's postgresql package)") from None
        os.chown(base, pw.pw_uid, pw.pw_gid)
        run_as = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    data, port = base / "data", free_port()

    def run(*cmd: str) -> None:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=base, **run_as)
        assert r.returncode == 0, f"{' '.join(cmd)}: {r.stdout}{r.stderr}"

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
            "-E", "UTF8", "--no-sync")
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(base / "log"), "-w", "-t", "60",
            "-o", f"-p {port} -h 127.0.0.1 -k {base} -F -c max_connections=200", "start")
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def fresh_database(server_url: str) -> str:
    """A new empty database on the server of ``server_url``; returns its URL."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server_url.rsplit("/", 1)[0] + "/" + name
