"""HTTP JSON service: Canasta games against trained or rule-based bots, for any frontend.

    python -m canasta_env.bots.service [--policy reference|heuristic|search|random|PATH]
                                       [--db canasta_games.sqlite3 | URL] ...  (--help)
    python -m training.serve ...    # the same, with .zip checkpoints loadable (canasta-serve)

The API's documentation is its OpenAPI schema: ``/docs`` (Swagger UI), ``/redoc`` and
``/openapi.json`` of a running server. Needs the ``bots`` extra (FastAPI, uvicorn,
onnxruntime, SQLAlchemy); a ``.zip`` checkpoint policy also needs the ``training`` extra.

=====================  ============================================================
module                 what it holds
=====================  ============================================================
:mod:`.core`           :class:`Service`: games, bots and the rules of each request
                       (no FastAPI needed), and :class:`ServiceError`
:mod:`.view`           :func:`seat_view`: what one seat may see of a game
:mod:`.auth`           seat tokens: which seat a request acts or looks as
:mod:`.schemas`        the request / response bodies (pydantic)
:mod:`.routes`         the HTTP routes; :mod:`.app` the application factory
:mod:`.cli`            the command line (:func:`main`)
:mod:`.limits`         the limits (:data:`MAX_SCORE`, :data:`MAX_BODY`, ...)
=====================  ============================================================

Storage: :mod:`canasta_env.bots.store` (SQLite file by default, PostgreSQL by URL).
"""

from __future__ import annotations

from .cli import bind, main
from .core import Service
from .errors import ServiceError
from .limits import (
    BUILTIN_POLICIES,
    CHUNK,
    GAMES_KEPT,
    IDLE_EXPIRY,
    MAX_BODY,
    MAX_DECISIONS,
    MAX_LOG_PAGE,
    MAX_REPLAY,
    MAX_SCORE,
    PAGE_HEADERS,
    SEAT_KINDS,
    STATIC,
    TOUCH_EVERY,
)
from .view import seat_view


def __getattr__(name: str):
    # create_app and the schema models need FastAPI / pydantic: imported on first use, so
    # that the command line can say in one line that they are missing
    if name == "create_app":
        from .app import create_app

        return create_app
    if name == "app":
        import importlib

        return importlib.import_module(".app", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Service", "ServiceError", "seat_view", "create_app", "main", "bind", "MAX_SCORE",
           "MAX_DECISIONS", "MAX_BODY", "MAX_LOG_PAGE", "MAX_REPLAY", "BUILTIN_POLICIES",
           "SEAT_KINDS", "CHUNK", "GAMES_KEPT", "IDLE_EXPIRY", "PAGE_HEADERS", "STATIC",
           "TOUCH_EVERY"]
