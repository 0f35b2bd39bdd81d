"""The command line: ``python -m canasta_env.bots.service`` (and, with ``.zip`` checkpoints
loadable, ``python -m training.serve`` / ``canasta-serve``). Options: ``--help``.

A bad option, a ``--policy`` that cannot be loaded, a ``--db`` that cannot be opened, or a
``--host`` / ``--port`` that cannot be bound (in use, not an address of this machine, no
permission) is one line on stderr and exit code 2; Ctrl-C stops the server (exit 0).
"""

from __future__ import annotations

import importlib.util
import socket
import sys

from canasta_env.cli import ArgumentParser, fail, host, port, positive_float, positive_int

from ..events import MAX_GAME_STREAMS, MAX_STREAMS, POLL
from ..loader import registered_suffixes
from .errors import ServiceError
from .limits import IDLE_EXPIRY, MAX_BODY, MAX_BOT_PROCESSES, MAX_DECISIONS


def bot_processes(text: str) -> int:
    """``--bot-processes``: an int in 0..MAX_BOT_PROCESSES (argparse type)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an int in 0..{MAX_BOT_PROCESSES}, got "
                                         f"{text!r}") from None
    if not 0 <= value <= MAX_BOT_PROCESSES:
        raise argparse.ArgumentTypeError(f"must be in 0..{MAX_BOT_PROCESSES}, got {value}")
    return value


def bind(host_name: str, port_number: int) -> socket.socket:
    """A TCP socket bound to ``(host_name, port_number)`` (not listening yet), for
    uvicorn: binding here turns every bind failure into one clear error.

    Raises:
        OSError: the host name does not resolve (``socket.gaierror``), the port is in
            use, the address is not one of this machine's, or no permission.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host_name, port_number, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the service (``argv``: the command-line arguments, default ``sys.argv[1:]``;
    ``prog``: the command name in ``--help``). Returns the exit code: 0 after the server
    stops, or 2 when the default ``--policy`` cannot be loaded, ``--db`` cannot be
    opened or ``--host`` / ``--port`` cannot be bound (one line on stderr).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog=prog,
                       description="Canasta bots as an HTTP JSON service (docs at /docs).")
    p.add_argument("--host", type=host, default="127.0.0.1",
                   help="interface (default: localhost only)")
    p.add_argument("--port", type=port, default=8000, help="TCP port 1..65535 (default 8000)")
    p.add_argument("--policy", default="reference",
                   help="default bot policy: reference (checkpoints/reference/, the .onnx "
                        "with onnxruntime), heuristic, search, search_reference, random, a "
                        "level (easy .. expert), or " + (
                            "a .onnx or .zip path" if ".zip" in registered_suffixes() else
                            "a .onnx path (.zip checkpoints: through python -m "
                            "training.serve)"))
    p.add_argument("--db", default=None,
                   help="where games are stored: an SQLite file (default "
                        "canasta_games.sqlite3 in the working directory) or a database URL "
                        "(sqlite:///PATH, postgresql://USER:PASSWORD@HOST:PORT/DB)")
    p.add_argument("--max-games", type=positive_int, default=1000,
                   help="games stored; beyond it the least recently used are forgotten "
                        "(default 1000)")
    p.add_argument("--idle-expiry", type=positive_float, default=IDLE_EXPIRY,
                   help=f"seconds after its last use a game is forgotten (default "
                        f"{IDLE_EXPIRY:.0f}: 7 days)")
    p.add_argument("--max-decisions", type=positive_int, default=MAX_DECISIONS,
                   help=f"bot decisions one request plays at most; the rest are played in "
                        f"the background (default {MAX_DECISIONS})")
    p.add_argument("--max-body", type=positive_int, default=MAX_BODY,
                   help=f"largest request body in bytes (default {MAX_BODY})")
    p.add_argument("--bot-threads", type=positive_int, default=2,
                   help="threads playing bot-only games in the background (default 2)")
    p.add_argument("--bot-processes", type=bot_processes, default=0,
                   help=f"worker processes playing bot-only games in the background instead "
                        f"of threads, at a lower CPU priority, so that requests and event "
                        f"streams never wait for a bot (0..{MAX_BOT_PROCESSES}; default 0: "
                        f"threads)")
    p.add_argument("--max-streams", type=positive_int, default=MAX_STREAMS,
                   help=f"event streams (GET /games/ID/events) open at most; more are a 429 "
                        f"(default {MAX_STREAMS})")
    p.add_argument("--max-game-streams", type=positive_int, default=MAX_GAME_STREAMS,
                   help=f"event streams of one game open at most (default {MAX_GAME_STREAMS})")
    p.add_argument("--events-poll", type=positive_float, default=POLL,
                   help=f"seconds between polls of the database for moves stored by other "
                        f"processes (default {POLL})")
    p.add_argument("--log-level", default="info",
                   choices=["critical", "error", "warning", "info", "debug", "trace"])
    args = p.parse_args(argv)
    missing = [m for m in ("fastapi", "fastapi_offline", "uvicorn", "sqlalchemy", "alembic")
               if importlib.util.find_spec(m) is None]
    if missing:
        return fail(p.prog, f"the service needs {', '.join(missing)}: install the bots extra "
                            f"(pip install -e \".[bots]\")")
    bound: list[socket.socket] = []
    from .app import create_app

    try:
        # the policy is loaded first, then the port bound, then the database opened
        app = create_app(args.policy, args.max_games, args.db, args.idle_expiry,
                         args.max_decisions, args.max_body, args.bot_threads,
                         before_store=lambda: bound.append(bind(args.host, args.port)),
                         stream_limits={"max_streams": args.max_streams,
                                        "max_game_streams": args.max_game_streams,
                                        "poll": args.events_poll},
                         bot_processes=args.bot_processes)
    except ServiceError as e:
        for sock in bound:
            sock.close()
        return fail(p.prog, e.message)
    except OSError as e:
        return fail(p.prog, f"cannot listen on {args.host}:{args.port}: "
                            f"{e.strerror or e}")
    sock = bound[0]
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port,
                                           log_level=args.log_level))
    if args.log_level in ("info", "debug", "trace"):  # uvicorn says nothing of given sockets
        shown = f"[{args.host}]" if ":" in args.host else args.host
        print(f"serving on http://{shown}:{args.port} (docs at /docs; Ctrl-C stops)",
              file=sys.stderr, flush=True)
    # what start-up made (modules, the app, the policies) lives as long as the process:
    # moved out of the garbage collector's reach, a full collection scans only what
    # serving makes (the event streams' events), a pause of milliseconds, not 0.1-0.3 s
    import gc

    gc.collect()
    gc.freeze()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it stopped on: a normal stop
        pass
    finally:
        sock.close()
    return 0


__all__ = ["main", "bind"]
