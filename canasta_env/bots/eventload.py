"""Load test of the game event streams (``GET /games/{id}/events``), on 127.0.0.1 only,
bounded in time.

    python -m canasta_env.bots.eventload [--streams 100] [--games 4] [--idle 20]
                                         [--seconds 30] [--kill-at S] [--db PATH_OR_URL]
                                         [--servers 1] [--events-poll S] [--clients 1]
                                         [--no-pin] [--p99 MS] [--json]

Starts the service (``--policy heuristic``, a fresh SQLite file in a temporary directory
unless ``--db``) on a free port of 127.0.0.1 and keeps ``--games`` four-bot games playing
at full speed in the background (``auto_deal``: whole games; when one ends the next is
started and its streams follow it). ``--streams`` NDJSON streams are opened: ``--idle`` of
them on games with a human on turn (only keep-alives flow), the rest spread over the bot
games. With ``--kill-at S`` the server is killed with SIGKILL ``S`` seconds in and started
again on the same port and database; every stream reconnects with ``Last-Event-ID``.
With ``--servers N`` (a PostgreSQL ``--db`` URL), N service processes share the database:
the games are started on the first, the streams spread over all of them, so most events
reach their streams through another process (polled every ``--events-poll`` seconds).
The streams are followed by ``--clients`` processes, each owning whole bot-game slots and
their streams.

The server alone: with two or more CPUs the servers are pinned to the first and the load
client to the others (``--no-pin``: no pinning), so that the client's parsing of every
event -- a million a minute -- is not done on the server's CPU, as if it ran on another
machine. (The server is one Python process: its bots, its event loop and its threads
share one interpreter lock, so it uses one CPU at a time whatever it is given.)

Checks, per stream and game followed: every event id once, in order; the moves exactly
the move log's, from seq 1 with no gap (a finished game: all of them), the same seat and
action. Prints the figures: streams, events and moves delivered, lost and repeated; the
delay from a move's commit (its ``at``) to its arrival on a stream (p50 / p99 / max, ms)
over the moves stored while the stream was open (after its response arrived: a move
stored before, while the stream was being opened or after a reconnect, comes in the
stream's catch-up, not live); the time to open a stream (request to response, p50 / p99 /
max, ms). Exits 0 when the targets hold: nothing lost or repeated, nothing out of order,
every stream opened (outside the restart), p99 delay <= ``--p99`` (default 100 ms); else
1. Figures measured on a busy machine say little about a quiet one.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from canasta_env.cli import ArgumentParser, fail, positive_float, positive_int

from .loadtest import _free_port, start_server

try:  # the dev extra's: the client parses every event of 100 streams, six times faster
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - the same, slower
    from json import loads as _loads

NDJSON = "application/x-ndjson"


@dataclass
class Followed:
    """What one stream received of one game."""

    game_id: str
    kind: str  # "bots" or "idle"
    ids: list[str] = field(default_factory=list)
    moves: list[tuple[int, int, int]] = field(default_factory=list)  # (seq, seat, action)
    delays_ms: list[float] = field(default_factory=list)
    over: bool = False
    ended: bool = False  # game_over or closed came
    reconnects: int = 0
    open_ms: list[float] = field(default_factory=list)  # request -> response, per open


class _Server:
    def __init__(self, db: str, port: int, log: Path, *extra: str,
                 cpus: set[int] | None = None) -> None:
        self.db, self.port, self.log, self.extra, self.cpus = db, port, log, extra, cpus
        self.proc = start_server(db, port, log, *extra, cpus=cpus)
        self.down_since: float | None = None
        self.up_since = time.time()

    def kill_and_restart(self) -> dict:
        t0 = time.time()
        self.down_since = t0
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc = start_server(self.db, self.port, self.log, *self.extra, cpus=self.cpus)
        self.up_since = time.time()
        return {"killed_at": t0, "down_s": round(self.up_since - t0, 2)}

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except Exception:  # noqa: BLE001 - then kill it
            self.proc.kill()


async def _post_game(client, seats: list[str], seed: int, deadline: float) -> str:
    import httpx

    while time.time() < deadline + 30:
        try:
            r = await client.post("/games", json={"seats": seats, "seed": seed,
                                                  "auto_deal": "human" not in seats,
                                                  "bot_policy": "heuristic"})
            if r.status_code == 201:
                return r.json()["game_id"]
            raise RuntimeError(f"POST /games: {r.status_code} {r.text[:200]}")
        except httpx.TransportError:
            await asyncio.sleep(0.2)  # the server is restarting
    raise RuntimeError("no game could be started")


def _client(base: str, connections: int):
    import httpx

    return httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(10.0, read=None),
                             limits=httpx.Limits(max_connections=connections + 20,
                                                 max_keepalive_connections=20))


@dataclass
class _Share:
    """What one client process follows: its bot-game slots (each a chain of games, the
    first already started) and the streams on them, its idle streams."""

    base: str
    bases: list[str]
    deadline: float
    chains: dict[int, list[str]]  # slot -> [first game]
    bot_streams: list[tuple[int, str]]  # (slot, server base)
    idle_streams: list[tuple[str, str]]  # (game id, server base)
    seeds: range  # seeds of the games this process starts


def _follow_share(share: _Share) -> dict:
    """Run one client process's streams (see :class:`_Share`) until the deadline."""
    return asyncio.run(_run_share(share))


async def _run_share(share: _Share) -> dict:
    import httpx

    followed: list[Followed] = []
    open_failures: list[tuple[float, str]] = []
    chains = {slot: list(chain) for slot, chain in share.chains.items()}
    seeds = iter(share.seeds)
    deadline = share.deadline
    streams = len(share.bot_streams) + len(share.idle_streams)
    async with _client(share.base, streams) as client:
        chain_lock = asyncio.Lock()

        async def next_game(slot: int, after: str) -> str:
            async with chain_lock:
                chain = chains[slot]
                if chain[-1] == after:
                    chain.append(await _post_game(client, ["bot"] * 4, next(seeds), deadline))
                return chain[chain.index(after) + 1]

        async def follow(rec: Followed, where: str) -> None:
            while time.time() < deadline:
                last = rec.ids[-1] if rec.ids else None  # resume after the last event seen
                headers = {"Accept": NDJSON}
                if last is not None:
                    headers["Last-Event-ID"] = last
                opened = time.time()
                try:
                    async with client.stream("GET", f"{where}/games/{rec.game_id}/events",
                                             headers=headers) as r:
                        if r.status_code != 200:
                            body = (await r.aread()).decode()[:200]
                            open_failures.append((opened, f"{r.status_code} {body}"))
                            await asyncio.sleep(0.5)
                            continue
                        # live from here: moves stored from now on are measured (those
                        # stored while the stream was being opened come as its catch-up)
                        rec.open_ms.append((time.time() - opened) * 1000)
                        opened = time.time()
                        buffer = b""
                        async for chunk in r.aiter_raw():
                            now = time.time()
                            buffer += chunk
                            end = buffer.rfind(b"\n") + 1
                            if not end:
                                continue
                            # the whole lines received, parsed at once as one JSON array
                            # (keep-alives are empty lines)
                            body = buffer[:end].replace(b"\n\n", b"\n").strip()
                            buffer = buffer[end:]
                            if body:
                                take(rec, _loads(b"[" + body.replace(b"\n", b",") + b"]"),
                                     now, opened)
                                if rec.ended:  # game_over or closed: the stream's last
                                    return
                except (httpx.TransportError, httpx.RemoteProtocolError):
                    pass
                if time.time() < deadline:
                    rec.reconnects += 1
                    await asyncio.sleep(0.2)

        def take(rec: Followed, events: list[dict], now: float, opened: float) -> None:
            """Record the events received at ``now`` (a stream's last event, when it
            comes, is game_over or closed)."""
            rec.ids += [ev["id"] for ev in events if ev["id"] is not None]
            moves = [ev["data"] for ev in events if ev["event"] == "move"]
            rec.moves += [(m["seq"], m["seat"], m["action"]) for m in moves]
            # live only: a move stored after the stream opened
            rec.delays_ms += [(now - m["at"]) * 1000 for m in moves if m["at"] >= opened]
            if events[-1]["event"] in ("game_over", "closed"):
                rec.over = events[-1]["event"] == "game_over"
                rec.ended = True

        async def bot_stream(slot: int, where: str) -> None:
            gid = chains[slot][0]
            while time.time() < deadline:
                rec = Followed(gid, "bots")
                followed.append(rec)
                await follow(rec, where)
                if not rec.over:
                    return
                gid = await next_game(slot, gid)

        async def idle_stream(game_id: str, where: str) -> None:
            rec = Followed(game_id, "idle")
            followed.append(rec)
            await follow(rec, where)

        tasks = [asyncio.create_task(bot_stream(slot, where))
                 for slot, where in share.bot_streams]
        tasks += [asyncio.create_task(idle_stream(gid, where))
                  for gid, where in share.idle_streams]
        await asyncio.sleep(max(0.0, deadline - time.time()))
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"followed": followed, "open_failures": open_failures,
            "games_started": sum(len(c) for c in chains.values())}


async def _start_games(base: str, games: int, idle: int, deadline: float) -> tuple:
    async with _client(base, 4) as client:
        first = [await _post_game(client, ["bot"] * 4, 1 + slot, deadline)
                 for slot in range(games)]
        idle_games = [await _post_game(client, ["human", "bot", "human", "bot"], 3, deadline)
                      for _ in range(max(1, min(idle, 4)))] if idle else []
    return first, idle_games


def _client_process(cpus: set[int] | None) -> None:
    """Set up a client process: on ``cpus`` (``None``: any), and no full garbage
    collections -- its records of millions of event ids would make each a pause of
    0.1-0.3 s that the delays measured in it would include (the cycles it makes are
    young and die in the young generations)."""
    import gc

    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000_000)


def split_cpus(pin: bool) -> tuple[set[int] | None, set[int] | None]:
    """(the servers' CPUs, the load client's CPUs): with ``pin`` and at least two CPUs
    usable, the first for the servers and the rest for the client, so the client's work
    is not done on the servers' CPU (as if it ran on another machine); else no pinning."""
    usable = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if not pin or len(usable) < 2:
        return None, None
    return {usable[0]}, set(usable[1:])


def _run(streams: int, games: int, idle: int, seconds: float, kill_at: float | None,
         servers: list[_Server], clients: int, client_cpus: set[int] | None = None) -> dict:
    """Start the games, follow the streams from ``clients`` processes (each owns whole
    bot-game slots: a process's streams compete for its CPU only), kill and restart the
    first server at ``kill_at``; every stream's record and the move logs."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    server = servers[0]  # games start here; the kill is of this one
    base = f"http://127.0.0.1:{server.port}"
    bases = [f"http://127.0.0.1:{s.port}" for s in servers]
    deadline = time.time() + seconds
    first, idle_games = asyncio.run(_start_games(base, games, idle, deadline))
    clients = max(1, min(clients, games))
    shares = [_Share(base, bases, deadline, {}, [], [], range(games + 1 + w, 10**7, clients))
              for w in range(clients)]
    for slot in range(games):
        shares[slot % clients].chains[slot] = [first[slot]]
    for i in range(streams - idle):
        slot = i % games
        shares[slot % clients].bot_streams.append((slot, bases[i % len(bases)]))
    for i in range(idle):
        shares[i % clients].idle_streams.append((idle_games[i % len(idle_games)],
                                                 bases[i % len(bases)]))
    restart: dict = {}
    with ProcessPoolExecutor(clients, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_client_process, initargs=(client_cpus,)) as pool:
        futures = [pool.submit(_follow_share, share) for share in shares]
        t0 = time.time()
        if kill_at is not None:
            time.sleep(max(0.0, t0 + kill_at - time.time()))
            restart = server.kill_and_restart()
            restart["killed_at_s"] = round(restart["killed_at"] - t0, 1)
        parts = [f.result() for f in futures]
    followed = [rec for part in parts for rec in part["followed"]]
    # stream opens refused while the server was down (the kill) are the restart's
    window = (restart.get("killed_at", 0.0), server.up_since) if restart else None
    refused = [text for part in parts for when, text in part["open_failures"]
               if window is None or not window[0] - 1 <= when <= window[1] + 1]
    restart.pop("killed_at", None)

    async def logs() -> dict:
        async with _client(base, 4) as client:
            return {gid: await _move_log(client, gid) for gid in {r.game_id for r in followed}}

    return {"followed": followed, "logs": asyncio.run(logs()), "open_failures": refused,
            "restart": restart or None,
            "games_started": sum(p["games_started"] for p in parts)}


async def _move_log(client, game_id: str) -> dict[int, tuple[int, int]]:
    out, after = {}, 0
    while True:
        page = (await client.get(f"/games/{game_id}/moves",
                                 params={"after": after, "limit": 1000})).json()
        if not page.get("moves"):
            return out
        for m in page["moves"]:
            out[m["seq"]] = (m["seat"], m["action"])
        after = page["moves"][-1]["seq"]


def check(followed: list[Followed], logs: dict[str, dict[int, tuple[int, int]]]) -> dict:
    """Lost, repeated, out-of-order and wrong events over every stream and game followed."""
    lost = repeated = disorder = wrong = moves = events = 0
    for rec in followed:
        events += len(rec.ids)
        moves += len(rec.moves)
        keys = [tuple(int(x) for x in i.split(".")) + ((0,) if "." not in i else ())
                for i in rec.ids]
        repeated += len(keys) - len(set(keys))
        disorder += sum(a >= b for a, b in zip(keys, keys[1:]))
        log = logs.get(rec.game_id, {})
        seqs = [m[0] for m in rec.moves]
        top = len(log) if rec.over else (max(seqs) if seqs else 0)
        lost += len(set(range(1, top + 1)) - set(seqs))
        wrong += sum(log.get(seq) != (seat, action) for seq, seat, action in rec.moves)
    return {"events": events, "moves_delivered": moves, "lost": lost, "repeated": repeated,
            "out_of_order": disorder, "not_in_log": wrong}


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))], 1)


def run(streams: int, games: int, idle: int, seconds: float, kill_at: float | None,
        db: str | None, workdir: Path, servers: int = 1, poll: float | None = None,
        clients: int = 1, pin: bool = True, bot_processes: int = 1) -> dict:
    db = db or str(workdir / "games.sqlite3")
    extra = () if poll is None else ("--events-poll", str(poll))
    extra += ("--bot-processes", str(bot_processes))
    started: list[_Server] = []
    try:
        server_cpus, client_cpus = split_cpus(pin)
        for i in range(servers):
            started.append(_Server(db, _free_port(), workdir / f"server{i}.log", *extra,
                                   cpus=server_cpus))
        out = _run(streams, games, idle, seconds, kill_at, started, clients, client_cpus)
    finally:
        for server in started:
            server.stop()
    delays = [d for rec in out["followed"] for d in rec.delays_ms]
    opens = [d for rec in out["followed"] for d in rec.open_ms]
    result = {"streams": streams, "bot_games": games, "idle_streams": idle, "seconds": seconds,
              "servers": servers, "bot_processes": bot_processes,
              "client_processes": max(1, min(clients, games)),
              "cpus": {"servers": sorted(server_cpus) if server_cpus else "any",
                       "clients": sorted(client_cpus) if client_cpus else "any"},
              "events_poll_s": poll,
              "db": db.split("@")[-1], "restart": out["restart"],
              "games_started": out["games_started"],
              "games_finished": len({r.game_id for r in out["followed"] if r.over}),
              "stream_opens_refused": len(out["open_failures"]),
              "refusals": out["open_failures"][:5],
              "reconnects": sum(r.reconnects for r in out["followed"]),
              "delay_ms": {"live_moves": len(delays), "p50": _quantile(delays, 0.5),
                           "p99": _quantile(delays, 0.99),
                           "max": round(max(delays), 1) if delays else 0.0},
              "stream_open_ms": {"opens": len(opens), "p50": _quantile(opens, 0.5),
                                 "p99": _quantile(opens, 0.99),
                                 "max": round(max(opens), 1) if opens else 0.0}}
    result.update(check(out["followed"], out["logs"]))
    return result


def targets(result: dict, p99_ms: float) -> list[str]:
    """The targets the run missed (empty: all met)."""
    missed = []
    for key in ("lost", "repeated", "out_of_order", "not_in_log", "stream_opens_refused"):
        if result[key]:
            missed.append(f"{result[key]} {key.replace('_', ' ')}")
    if not result["moves_delivered"]:
        missed.append("no move delivered")
    if result["delay_ms"]["p99"] > p99_ms:
        missed.append(f"p99 delay {result['delay_ms']['p99']:.0f} ms > {p99_ms:.0f} ms")
    return missed


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    p = ArgumentParser(prog=prog, description="Load test of the game event streams "
                                              "(127.0.0.1, bounded in time).")
    p.add_argument("--streams", type=positive_int, default=100, help="streams open (100)")
    p.add_argument("--games", type=positive_int, default=4,
                   help="four-bot games played at once at full speed (4)")
    p.add_argument("--idle", type=int, default=20,
                   help="of the streams, those on games waiting for a human (20)")
    p.add_argument("--seconds", type=positive_float, default=30.0, help="run time (30)")
    p.add_argument("--kill-at", type=positive_float, default=None,
                   help="SIGKILL the server this many seconds in, then restart it")
    p.add_argument("--db", default=None, help="database (default: a fresh SQLite file)")
    p.add_argument("--servers", type=positive_int, default=1,
                   help="service processes sharing the database (more than 1: a PostgreSQL "
                        "--db URL)")
    p.add_argument("--events-poll", type=positive_float, default=None,
                   help="the servers' --events-poll (seconds; default theirs)")
    p.add_argument("--clients", type=positive_int, default=1,
                   help="client processes following the streams, each owning whole bot "
                        "games (1; at most --games)")
    p.add_argument("--bot-processes", type=int, default=1, choices=range(0, 17),
                   metavar="N", help="the servers' --bot-processes (1; 0: bot threads)")
    p.add_argument("--no-pin", dest="pin", action="store_false",
                   help="do not pin the servers to the first CPU and the client to the "
                        "others")
    p.add_argument("--p99", type=positive_float, default=100.0,
                   help="p99 commit-to-stream delay target in ms (100)")
    p.add_argument("--keep", default=None, help="keep the run's files in this directory")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    if not 0 <= args.idle < args.streams:
        return fail(p.prog, f"--idle must be 0..{args.streams - 1} (some streams follow "
                            f"the bot games), got {args.idle}")
    if args.servers > 1 and not (args.db or "").startswith(("postgresql://", "postgres://",
                                                             "postgresql+psycopg://")):
        return fail(p.prog, "--servers above 1 needs a PostgreSQL --db URL (SQLite is one "
                            "process's)")
    if args.kill_at is not None and args.kill_at >= args.seconds:
        return fail(p.prog, f"--kill-at {args.kill_at} must be less than --seconds {args.seconds}")
    with tempfile.TemporaryDirectory(prefix="canasta-events-load-") as tmp:
        workdir = Path(args.keep) if args.keep else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        try:
            result = run(args.streams, args.games, args.idle, args.seconds, args.kill_at,
                         args.db, workdir, args.servers, args.events_poll, args.clients,
                         args.pin, args.bot_processes)
        except RuntimeError as e:
            return fail(p.prog, e)
    missed = targets(result, args.p99)
    result["targets_met"] = not missed
    result["missed"] = missed
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        d = result["delay_ms"]
        print(f"{args.streams} streams ({args.idle} idle) on {args.games} four-bot games at a "
              f"time, {args.servers} server(s), {args.seconds:.0f} s: "
              f"{result['games_started']} games started, "
              f"{result['games_finished']} finished while followed")
        print(f"{result['events']} events, {result['moves_delivered']} moves delivered; "
              f"{result['lost']} lost, {result['repeated']} repeated, "
              f"{result['out_of_order']} out of order, {result['not_in_log']} not in the log; "
              f"{result['stream_opens_refused']} stream opens refused, "
              f"{result['reconnects']} reconnects")
        print(f"commit-to-stream delay over {d['live_moves']} live moves: p50 {d['p50']:.1f} "
              f"ms, p99 {d['p99']:.1f} ms, max {d['max']:.1f} ms")
        o = result["stream_open_ms"]
        print(f"stream opens (request to response) over {o['opens']} opens: p50 {o['p50']:.1f} "
              f"ms, p99 {o['p99']:.1f} ms, max {o['max']:.1f} ms; CPUs: servers "
              f"{result['cpus']['servers']}, client {result['cpus']['clients']}")
        if result["restart"]:
            print(f"server killed (SIGKILL) at {result['restart']['killed_at_s']} s, answering "
                  f"again {result['restart']['down_s']} s later")
        print("targets met" if not missed else "targets missed: " + "; ".join(missed))
    return 0 if not missed else 1


__all__ = ["run", "check", "targets", "main"]

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.eventload"))
