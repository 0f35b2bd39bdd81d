"""Env tests run on both backends of :class:`canasta_env.raw_env`.

The modules in :data:`BOTH_BACKENDS` run twice, once per backend (``[native]`` /
``[python]`` in the test ids), through ``CANASTA_BACKEND``, which sets the env's default
backend (:func:`canasta_env.aec.default_backend`). The fixture is module scoped, so each
module runs whole on one backend, then on the other (and Hypothesis' function-scoped
fixture check does not apply). Without the compiled core only the Python backend runs.
Every other module runs on the default backend (native when built).
"""

from __future__ import annotations

import os

import pytest

import canasta_env.native

BOTH_BACKENDS = {
    "test_env_api", "test_env_information", "test_env_observation", "test_env_partner",
    "test_env_random_play", "test_env_rewards", "test_hf_env",
}
BACKENDS = ["native", "python"] if canasta_env.native.available else ["python"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.module.__name__.rpartition(".")[2] in BOTH_BACKENDS:
        metafunc.parametrize("env_backend", BACKENDS, indirect=True, scope="module")


@pytest.fixture(scope="module", autouse=True)
def env_backend(request: pytest.FixtureRequest):
    """The backend the module's envs are built on (sets ``CANASTA_BACKEND`` in the
    modules of :data:`BOTH_BACKENDS`; elsewhere ``None``: the default)."""
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
