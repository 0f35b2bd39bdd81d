"""Fixtures shared by every test folder.

Env tests that must hold on both backends of :class:`canasta_env.raw_env` declare it with
``pytestmark = pytest.mark.both_backends`` at the top of their module. Such a module runs
twice, once per backend (``[native]`` / ``[python]`` in the test ids), through
``CANASTA_BACKEND``, which sets the env's default backend
(:func:`canasta_env.aec.default_backend`). The fixture is module scoped, so each module runs
whole on one backend, then on the other (and Hypothesis' function-scoped fixture check does
not apply). Without the compiled core only the Python backend runs. Every other module runs
on the default backend (native when built).
"""

from __future__ import annotations

import os

import pytest

import canasta_env.native

BACKENDS = ["native", "python"] if canasta_env.native.available else ["python"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "both_backends: run the whole module once per env backend (native, python)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("both_backends") is not None:
        metafunc.parametrize("env_backend", BACKENDS, indirect=True, scope="module")


@pytest.fixture(scope="module", autouse=True)
def env_backend(request: pytest.FixtureRequest):
    """The backend the module's envs are built on (sets ``CANASTA_BACKEND`` in the
    modules marked ``both_backends``; elsewhere ``None``: the default)."""
    if not hasattr(request, "param"):
        yield None
        return
    old = os.environ.get("CANASTA_BACKEND")
    os.environ["CANASTA_BACKEND"] = request.param
    yield request.param
    if old is None:
        os.environ.pop("CANASTA_BACKEND", None)
    else:
        os.environ["CANASTA_BACKEND"] = old


#: the reason the ``hf_expert_missing`` fixture gives Hand and Foot's missing ``expert``
MISSING_REASON = "missing: for this test"


@pytest.fixture
def hf_expert_missing(monkeypatch):
    """Hand and Foot's ``expert`` level made missing (spec ``None``, reason
    :data:`MISSING_REASON`) for one test: no level is missing now, and the refusal of a
    missing level is still every frontend's contract."""
    from canasta_env.bots import levels

    table = dict(levels.LEVELS["hand_and_foot"])
    table["expert"] = levels.Level(None, MISSING_REASON)
    monkeypatch.setitem(levels.LEVELS, "hand_and_foot", table)
    return MISSING_REASON
