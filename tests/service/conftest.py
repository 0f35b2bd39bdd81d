"""The service tests' shared fixture: a heuristic-default server on a throwaway SQLite file.

A module that needs another server (another default policy, a database URL, raised
server exceptions) defines its own ``client`` fixture, which takes precedence.
"""

from __future__ import annotations

import warnings

import pytest


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A ``TestClient`` (lifespan run: the service is closed after the module's tests) of
    ``create_app("heuristic")`` storing games in a new SQLite file."""
    pytest.importorskip("fastapi", reason="needs the service extra")
    with warnings.catch_warnings():  # starlette's note about httpx, not ours
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from canasta_env.bots.service import create_app

    app = create_app("heuristic", db=str(tmp_path_factory.mktemp("db") / "games.sqlite3"))
    with TestClient(app) as c:
        yield c
