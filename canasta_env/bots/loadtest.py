"""Load test of the bot service with locust, against 127.0.0.1 only, bounded in time.

    python -m canasta_env.bots.loadtest [--users 32] [--seconds 60] [--kill-at S]
                                        [--db PATH_OR_URL] [--json]

Starts the service (``--policy heuristic``, a fresh SQLite file in a temporary directory
unless ``--db``) on a free port of 127.0.0.1, runs locust headless with ``--users``
simulated players (:mod:`canasta_env.bots.locustfile`: each plays whole games, one human
seat against three heuristic bots, a think time between its requests) for ``--seconds``,
and with ``--kill-at S`` kills the server with SIGKILL S seconds in and starts it again
on the same port and database. Then it checks the database: every action the players
saw accepted (HTTP 200) is in its game's move log at the position the response gave,
and every stored game's position conserves its cards (``from_position``, which refuses
cards that do not add up to the pack).

Prints the figures (requests, failures, p50 / p95 / p99 / max latency in ms, accepted
moves, lost moves, games checked) and exits 0 when the targets hold: p99 <= ``--p99``
ms (default 100), no failed request (with ``--kill-at``: none outside the restart), no
lost move, every game conserving its cards; else 1. Needs locust (the ``dev`` extra).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from canasta_env.cli import ArgumentParser, fail, positive_float, positive_int, require_extra

LOCUSTFILE = Path(__file__).with_name("locustfile.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, port: int, log_path: Path, *extra: str,
                 cpus: set[int] | None = None) -> subprocess.Popen:
    """The service on 127.0.0.1:``port`` (``extra``: more command-line options), on the
    CPUs ``cpus`` only (``None``: any), answering; raises RuntimeError otherwise."""
    import urllib.request

    log = open(log_path, "ab")  # noqa: SIM115 - the server's output, kept for the report
    pin = None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))
    proc = subprocess.Popen([sys.executable, "-m", "canasta_env.bots.service", "--host",
                             "127.0.0.1", "--port", str(port), "--policy", "heuristic", "--db",
                             db, "--log-level", "warning", *extra], stdout=log,
                            stderr=subprocess.STDOUT, preexec_fn=pin)
    deadline = time.time() + 60
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited: {log_path.read_text()[-500:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        if time.time() > deadline:
            proc.kill()
            raise RuntimeError("the service did not answer within 60 s")
        time.sleep(0.05)


def verify(db: str, accepted_path: Path) -> dict:
    """Every accepted move in the move log; every game's position loads (cards conserved)
    and its move count matches its log."""
    import sqlalchemy as sa

    from canasta_env.engine import PositionError, from_position

    from .store import GameStore

    store = GameStore(db)
    accepted = [json.loads(line) for line in accepted_path.read_text().splitlines() if line]
    lost = []
    with store.engine.connect() as c:
        m = store.moves.c
        logged = {(r.game_id, r.seq): (r.seat, r.action) for r in c.execute(
            sa.select(m.game_id, m.seq, m.seat, m.action))}
        counts = dict(c.execute(sa.select(m.game_id, sa.func.count()).group_by(m.game_id)).all())
    for a in accepted:
        if logged.get((a["game_id"], a["seq"])) != (a["seat"], a["action"]):
            lost.append(a)
    broken, games, over = [], 0, 0
    with store.engine.connect() as c:
        for game_id, position, decisions, status in c.execute(sa.select(
                store.games.c.game_id, store.games.c.position, store.games.c.decisions,
                store.games.c.status)):
            games += 1
            over += status == "over"
            try:
                from_position(json.loads(position))
            except PositionError as e:
                broken.append(f"{game_id}: {e}")
                continue
            if counts.get(game_id, 0) != decisions:
                broken.append(f"{game_id}: {decisions} decisions, {counts.get(game_id, 0)} logged")
    store.close()
    return {"accepted_moves": len(accepted), "lost_moves": len(lost), "lost": lost[:5],
            "games": games, "games_over": over, "broken_games": broken[:5],
            "games_broken": len(broken)}


def _percentile(times: dict[int, int], q: float) -> float:
    """The ``q`` quantile (0..1) of locust's response-time histogram (ms -> count)."""
    total = sum(times.values())
    if not total:
        return 0.0
    need, seen = q * total, 0
    for ms in sorted(times):
        seen += times[ms]
        if seen >= need:
            return float(ms)
    return float(max(times))


def locust_figures(path: Path) -> dict:
    """Requests, failures and latency percentiles (ms) per endpoint and in all, from
    locust's final statistics (``--json-file``)."""
    entries = json.loads(path.read_text())
    out = {}
    merged: dict[int, int] = {}
    for e in entries:
        times = {int(float(k)): v for k, v in e["response_times"].items()}
        for k, v in times.items():
            merged[k] = merged.get(k, 0) + v
        out[f"{e['method']} {e['name']}"] = _figures(times, e["num_requests"],
                                                     e["num_failures"], e["max_response_time"])
    out["all"] = _figures(merged, sum(e["num_requests"] for e in entries),
                          sum(e["num_failures"] for e in entries),
                          max((e["max_response_time"] for e in entries), default=0))
    return out


def _figures(times: dict[int, int], requests: int, failures: int, max_ms: float) -> dict:
    return {"requests": requests, "failures": failures, "p50_ms": _percentile(times, 0.50),
            "p95_ms": _percentile(times, 0.95), "p99_ms": _percentile(times, 0.99),
            "max_ms": round(float(max_ms), 1)}


def run(users: int, seconds: float, kill_at: float | None, db: str | None,
        think: tuple[float, float], workdir: Path, spawn_rate: float = 8.0) -> dict:
    port = _free_port()
    db = db or str(workdir / "games.sqlite3")
    accepted = workdir / "accepted.jsonl"
    accepted.touch()
    server_log = workdir / "server.log"
    server = start_server(db, port, server_log)
    env = dict(os.environ, LOADTEST_ACCEPTED=str(accepted), LOADTEST_THINK_MIN=str(think[0]),
               LOADTEST_THINK_MAX=str(think[1]), PYTHONUNBUFFERED="1")
    prefix = workdir / "locust"  # locust writes locust.json
    cmd = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--users",
           str(users), "--spawn-rate", str(spawn_rate), "--run-time", f"{int(round(seconds))}s",
           "--host", f"http://127.0.0.1:{port}", "--json-file", str(prefix),
           "--only-summary", "--stop-timeout", "5", "--loglevel", "WARNING", "--exit-code-on-error", "0"]
    restart = None
    t0 = time.time()
    with open(workdir / "locust.log", "wb") as llog:
        locust = subprocess.Popen(cmd, env=env, stdout=llog, stderr=subprocess.STDOUT)
        try:
            if kill_at is not None:
                time.sleep(max(0.0, kill_at - (time.time() - t0)))
                server.send_signal(signal.SIGKILL)
                server.wait()
                t_kill = time.time()
                server = start_server(db, port, server_log)
                restart = {"killed_at_s": round(t_kill - t0, 1),
                           "down_s": round(time.time() - t_kill, 2)}
            locust.wait(timeout=seconds + 120)
        finally:
            if locust.poll() is None:
                locust.kill()
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    stats = prefix.with_suffix(".json")
    if not stats.exists():
        raise RuntimeError(f"locust wrote no statistics: {(workdir / 'locust.log').read_text()[-800:]}")
    result = {"users": users, "seconds": seconds, "think_s": list(think), "spawn_rate": spawn_rate,
              "db": db.split("@")[-1], "restart": restart, "stats": locust_figures(stats)}
    result.update(verify(db, accepted))
    return result


def targets(result: dict, p99_ms: float) -> list[str]:
    """The targets the run missed (empty: all met)."""
    missed = []
    stats = result["stats"]["all"]
    if stats["p99_ms"] > p99_ms:
        missed.append(f"p99 {stats['p99_ms']:.0f} ms > {p99_ms:.0f} ms")
    if result["restart"] is None and stats["failures"]:
        missed.append(f"{stats['failures']} failed requests")
    if result["lost_moves"]:
        missed.append(f"{result['lost_moves']} accepted moves lost")
    if result["games_broken"]:
        missed.append(f"{result['games_broken']} games do not load or miss logged moves")
    return missed


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    require_extra(prog or "python -m canasta_env.bots.loadtest", "bots", "dev")
    p = ArgumentParser(prog=prog, description="Load test of the bot service (locust, 127.0.0.1).")
    p.add_argument("--users", type=positive_int, default=32, help="concurrent players (32)")
    p.add_argument("--seconds", type=positive_float, default=60.0, help="run time (60)")
    p.add_argument("--kill-at", type=positive_float, default=None,
                   help="SIGKILL the server this many seconds in, then restart it")
    p.add_argument("--db", default=None, help="database (default: a fresh SQLite file)")
    p.add_argument("--think-min", type=positive_float, default=0.25,
                   help="shortest think time between a player's requests, s (0.25)")
    p.add_argument("--think-max", type=positive_float, default=0.75,
                   help="longest think time, s (0.75)")
    p.add_argument("--spawn-rate", type=positive_float, default=8.0,
                   help="players started per second (8: all 32 within 4 s)")
    p.add_argument("--p99", type=positive_float, default=100.0, help="p99 target in ms (100)")
    p.add_argument("--keep", default=None, help="keep the run's files in this directory")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    if args.kill_at is not None and args.kill_at >= args.seconds:
        return fail(p.prog, f"--kill-at {args.kill_at} must be less than --seconds {args.seconds}")
    if args.think_min > args.think_max:
        return fail(p.prog, "--think-min must not be over --think-max")
    import importlib.util

    if importlib.util.find_spec("locust") is None:  # not imported: it patches the stdlib
        return fail(p.prog, "locust is not installed: pip install -e '.[dev]'")
    with tempfile.TemporaryDirectory(prefix="canasta-load-") as tmp:
        workdir = Path(args.keep) if args.keep else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        try:
            result = run(args.users, args.seconds, args.kill_at, args.db,
                         (args.think_min, args.think_max), workdir, args.spawn_rate)
        except RuntimeError as e:
            return fail(p.prog, e)
    missed = targets(result, args.p99)
    result["targets_met"] = not missed
    result["missed"] = missed
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        s = result["stats"]["all"]
        print(f"{args.users} players, {args.seconds:.0f} s, think {args.think_min}-"
              f"{args.think_max} s: {s['requests']} requests ({s['requests'] / args.seconds:.1f}/s), "
              f"{s['failures']} failed; latency p50 {s['p50_ms']:.0f} ms, p95 "
              f"{s['p95_ms']:.0f} ms, p99 {s['p99_ms']:.0f} ms, max {s['max_ms']:.0f} ms")
        for name, st in result["stats"].items():
            if name != "all":
                print(f"  {name}: {st['requests']} requests, {st['failures']} failed, p99 "
                      f"{st['p99_ms']:.0f} ms")
        if result["restart"]:
            print(f"server killed (SIGKILL) at {result['restart']['killed_at_s']} s, answering "
                  f"again {result['restart']['down_s']} s later")
        print(f"{result['accepted_moves']} accepted moves, {result['lost_moves']} lost; "
              f"{result['games']} games ({result['games_over']} finished), "
              f"{result['games_broken']} not conserving their cards or their log")
        print("targets met" if not missed else "targets missed: " + "; ".join(missed))
    return 0 if not missed else 1


if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.loadtest"))
