"""Durable storage of the service's games (SQLAlchemy 2 Core; SQLite or PostgreSQL).

One code path for both databases. Two tables:

``games``   one row per game: its seats, bot policy, the hashes of its seat tokens, the
            whole position (the JSON of :func:`canasta_env.engine.to_position`, stored
            after every accepted request), ``version`` (bumped by every save: a save
            names the version it started from, so two writers never overwrite each
            other), ``decisions`` (moves logged so far), ``status`` (``waiting``: a
            human or ``next_hand`` is awaited; ``running``: bots play in the background;
            ``over``) and the times it was created and last used.
``moves``   the append-only move log: one row per decision (``seq`` 1, 2, ... per game,
            seat, action id, description, hand number). Rows are only ever inserted
            (and removed with their game).

A save writes the new position and appends the request's moves in one transaction,
before the response is sent: after a crash (``kill -9``) every game continues from its
last accepted move.

Database given as a URL (``sqlite:///games.sqlite3``, ``postgresql://user@host/db``; a
``postgresql://`` URL uses the psycopg 3 driver) or a file path (an SQLite file).

Start-up checks: an existing SQLite file is checked before anything is written to it
(:func:`check_sqlite_file`: ``PRAGMA integrity_check``, or ``quick_check`` on files over
:data:`FULL_CHECK_BYTES`, through a read-only connection); a damaged, unreadable or
read-only file is refused with :class:`StoreError` and its bytes are left as they were.
The schema is then brought to the newest revision by Alembic
(:func:`canasta_env.bots.migrations.upgrade`; a database made before the migrations existed
is recognised and stamped with the first revision). While serving, every database error is
a :class:`StoreError` (the service answers it with a JSON 503); an error that shows the
file damaged marks the store :attr:`GameStore.damaged`, and from then on nothing is read
from or written to it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import threading
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .migrations import MigrationError, upgrade

DEFAULT_DB = "canasta_games.sqlite3"
#: SQLite files up to this size get the full ``integrity_check`` at start, larger ones
#: the faster ``quick_check``
FULL_CHECK_BYTES = 64 * 1024 * 1024
#: words of SQLite's errors that mean the file itself is damaged
_DAMAGE = ("malformed", "not a database", "corrupt")


class StoreError(Exception):
    """The database cannot be used: a bad URL, an unreachable server, a missing driver, a
    damaged or read-only file, or a failure while serving."""


class Conflict(Exception):
    """The game was changed (or removed) by another writer since it was loaded."""


def hash_token(token: str) -> str:
    """The stored form of a seat token (SHA-256 hex): tokens themselves are never stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def database_url(spec: str | None) -> str:
    """The SQLAlchemy URL for ``--db``: a URL as it is (``postgresql://`` gets the psycopg
    3 driver), anything else an SQLite file path (default :data:`DEFAULT_DB` in the
    working directory).

    Raises:
        StoreError: an empty spec.
    """
    spec = DEFAULT_DB if spec is None else spec.strip()
    if not spec:
        raise StoreError("--db must be a file path or a database URL, got ''")
    if "://" not in spec:
        return "sqlite:///" + str(Path(spec).expanduser().resolve())
    for plain in ("postgresql://", "postgres://"):
        if spec.startswith(plain):
            return "postgresql+psycopg://" + spec[len(plain):]
    return spec


@cache
def schema():
    """``(metadata, games, moves)``: the tables as the newest migration leaves them (the
    queries are built from them; the migrations never import them)."""
    import sqlalchemy as sa

    meta = sa.MetaData()
    games = sa.Table(
        "games", meta,
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("bot_policy", sa.Text),
        sa.Column("auto_deal", sa.Boolean, nullable=False),
        sa.Column("token_hashes", sa.JSON, nullable=False),
        sa.Column("position", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("decisions", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("last_used", sa.Float, nullable=False, index=True),
    )
    moves = sa.Table(
        "moves", meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("hand_number", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="moves_game_seq"),
    )
    return meta, games, moves


@dataclass
class GameRow:
    game_id: str
    variant: str
    seats: list[str]
    bot_policy: str | None
    auto_deal: bool
    token_hashes: list[str | None]
    position: dict
    version: int
    decisions: int
    status: str
    created_at: float
    last_used: float


class GameStore:
    """Games and their move log in a database (see the module docstring).

    Args:
        url: a database URL or an SQLite file path (see :func:`database_url`).
        checked: check an SQLite file and bring the schema to the newest revision
            (``False``: another process of the service did, e.g. a bot worker's store).

    Raises:
        StoreError: the database cannot be opened, an SQLite file is damaged, unreadable
            or read-only, or its schema cannot be brought to the newest revision.
    """

    def __init__(self, url: str | None = None, checked: bool = True) -> None:
        try:
            import sqlalchemy as sa
        except ImportError:  # pragma: no cover - part of the bots extra
            raise StoreError("the service needs SQLAlchemy 2: pip install -e '.[bots]'") from None
        self.sa = sa
        self.url = database_url(url)
        try:
            self._memory_lock = None
            if sqlite_in_memory(self.url):
                # in memory: one connection for every thread (each new connection would be
                # a new, empty database), used by one thread at a time (_db)
                self.engine = sa.create_engine(self.url, poolclass=sa.pool.StaticPool,
                                               connect_args={"check_same_thread": False})
                self._memory_lock = threading.RLock()
            elif self.url.startswith("sqlite"):
                self.engine = sa.create_engine(self.url, connect_args={"timeout": 30})
                sa.event.listen(self.engine, "connect", _sqlite_pragmas)
            else:
                self.engine = sa.create_engine(self.url, pool_size=10, max_overflow=20,
                                               pool_pre_ping=True)
        except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError, ValueError) as e:
            raise StoreError(f"cannot use database {url!r}: {e}") from None
        self.damaged: str | None = None
        self.file = sqlite_file(self.url)
        if checked and self.file is not None and self.file.exists():
            check_sqlite_file(self.file)  # before anything writes to it
        _, self.games, self.moves = schema()
        if not checked:
            return
        try:
            upgrade(self.engine)
        except sa.exc.SQLAlchemyError as e:
            self.engine.dispose()
            raise StoreError(f"cannot open database {self.name}: {_reason(e)}") from None
        except (StoreError, MigrationError) as e:
            self.engine.dispose()
            raise StoreError(str(e)) from None

    @property
    def name(self) -> str:
        """The database for messages: the SQLite file, or the URL without its password."""
        return str(self.file) if self.file is not None else _safe(self.url)

    @contextmanager
    def _db(self, write: bool):
        """A connection (``write``: in a transaction committed at the end); every
        database error comes out as :class:`StoreError`, and one that shows the file
        damaged marks the store :attr:`damaged`.

        Raises:
            StoreError: the store is damaged (nothing is read or written), or the database
                failed.
        """
        if self.damaged is not None:
            raise StoreError(f"database {self.name} is damaged ({self.damaged}); nothing more "
                             f"is read from or written to it: restore it from a backup")
        try:
            with self._memory_lock or nullcontext(), \
                    (self.engine.begin() if write else self.engine.connect()) as c:
                yield c
        except self.sa.exc.SQLAlchemyError as e:
            reason = _reason(e)
            if self.file is not None and any(w in reason.lower() for w in _DAMAGE):
                self.damaged = reason
            raise StoreError(f"database {self.name} failed: {reason}") from None

    # ------------------------------------------------------------------ reads
    def load(self, game_id: str, position: bool = True) -> GameRow | None:
        """The stored game ``game_id`` (``None``: unknown). ``position=False``: without
        its position (``row.position`` is ``{}``), for checks that read only the seats,
        tokens and counters: the position is the bulk of the row.

        Raises:
            StoreError: the database failed or the stored position is damaged."""
        g = self.games.c
        columns = [c for c in self.games.c if position or c.name != "position"]
        with self._db(write=False) as c:
            r = c.execute(self.sa.select(*columns).where(
                g.game_id == game_id)).mappings().first()
        if r is None:
            return None
        try:
            position = json.loads(r["position"]) if position else {}
        except ValueError as e:
            raise StoreError(f"database {self.name}: the stored position of game {game_id!r} "
                             f"is damaged ({e})") from None
        return GameRow(r["game_id"], r["variant"], list(r["seats"]), r["bot_policy"],
                       bool(r["auto_deal"]), list(r["token_hashes"]), position,
                       r["version"], r["decisions"], r["status"], r["created_at"], r["last_used"])

    def count(self) -> int:
        with self._db(write=False) as c:
            return c.execute(self.sa.select(self.sa.func.count()).select_from(self.games)).scalar()

    def ids_with_status(self, status: str) -> list[str]:
        with self._db(write=False) as c:
            return list(c.execute(self.sa.select(self.games.c.game_id).where(
                self.games.c.status == status)).scalars())

    def move_log(self, game_id: str, after: int = 0, limit: int = 100) -> list[dict]:
        m = self.moves.c
        with self._db(write=False) as c:
            rows = c.execute(self.sa.select(m.seq, m.hand_number, m.seat, m.action, m.description)
                             .where(m.game_id == game_id, m.seq > after)
                             .order_by(m.seq).limit(limit)).mappings().all()
        return [dict(r) for r in rows]

    # ------------------------------------------------------------------ writes
    def insert(self, row: GameRow, moves: list[dict]) -> None:
        with self._db(write=True) as c:
            c.execute(self.games.insert().values(
                game_id=row.game_id, variant=row.variant, seats=row.seats,
                bot_policy=row.bot_policy, auto_deal=row.auto_deal,
                token_hashes=row.token_hashes, position=json.dumps(row.position),
                version=row.version, decisions=row.decisions + len(moves), status=row.status,
                created_at=row.created_at, last_used=row.last_used))
            self._append(c, row.game_id, row.decisions, moves)
        row.decisions += len(moves)

    def save(self, row: GameRow, position: dict, moves: list[dict], status: str) -> None:
        """Store ``position`` and append ``moves`` (each with ``hand_number``) in one
        transaction, if the game is still at ``row.version``; updates ``row``.

        Raises:
            Conflict: the game changed or was removed since ``row`` was loaded.
        """
        now = time.time()
        g = self.games.c
        with self._db(write=True) as c:
            res = c.execute(self.games.update()
                            .where(g.game_id == row.game_id, g.version == row.version)
                            .values(position=json.dumps(position), version=row.version + 1,
                                    decisions=row.decisions + len(moves), status=status,
                                    last_used=now))
            if res.rowcount != 1:
                raise Conflict(row.game_id)
            self._append(c, row.game_id, row.decisions, moves)
        row.position, row.version, row.status, row.last_used = position, row.version + 1, status, now
        row.decisions += len(moves)

    def _append(self, c, game_id: str, start: int, moves: list[dict]) -> None:
        """Insert ``moves`` after move ``start``; sets each one's ``at`` (the time stored)."""
        if moves:
            now = time.time()
            for m in moves:
                m["at"] = now
            c.execute(self.moves.insert(), [
                {"game_id": game_id, "seq": start + i + 1, "hand_number": m["hand_number"],
                 "seat": m["seat"], "action": m["action"], "description": m["description"],
                 "at": now} for i, m in enumerate(moves)])

    def touch(self, game_id: str, when: float) -> None:
        with self._db(write=True) as c:
            c.execute(self.games.update().where(self.games.c.game_id == game_id)
                      .values(last_used=when))

    def delete(self, game_ids: list[str]) -> int:
        if not game_ids:
            return 0
        with self._db(write=True) as c:
            c.execute(self.moves.delete().where(self.moves.c.game_id.in_(game_ids)))
            return c.execute(self.games.delete().where(
                self.games.c.game_id.in_(game_ids))).rowcount

    def expired(self, before: float) -> list[str]:
        """Games last used before ``before`` (a time.time())."""
        with self._db(write=False) as c:
            return list(c.execute(self.sa.select(self.games.c.game_id).where(
                self.games.c.last_used < before)).scalars())

    def least_recently_used(self, n: int) -> list[str]:
        with self._db(write=False) as c:
            return list(c.execute(self.sa.select(self.games.c.game_id)
                                  .order_by(self.games.c.last_used).limit(n)).scalars())

    def close(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    # WAL: readers never wait for the writer; synchronous=NORMAL in WAL mode loses nothing
    # when the process is killed (only an OS crash may lose the last commits)
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def sqlite_in_memory(url: str) -> bool:
    """Whether ``url`` is an SQLite database in memory (every new connection to it is a
    new, empty database)."""
    return url.startswith("sqlite") and sqlite_file(url) is None


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (``None``: another database, or SQLite in memory)."""
    if not url.startswith("sqlite"):
        return None
    from sqlalchemy.engine import make_url

    path = make_url(url).database
    return None if not path or path == ":memory:" else Path(path)


def check_sqlite_file(path: Path) -> None:
    """Check an existing SQLite file without writing to it: readable and writable (its
    own permission bits too, so that a file made read-only is refused even for root),
    then ``PRAGMA integrity_check`` (``quick_check`` over :data:`FULL_CHECK_BYTES`) through
    a read-only connection.

    Raises:
        StoreError: one line naming the file and what is wrong with it.
    """
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(f"database {path} is not a regular file")
        if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
            raise StoreError(f"database {path} is read-only (mode {stat.filemode(st.st_mode)}); "
                             f"the service writes every move: make it writable or give "
                             f"another --db")
        if not os.access(path.parent, os.W_OK):
            raise StoreError(f"database {path}: its folder is not writable (SQLite writes "
                             f"its journal beside the file)")
        with open(path, "r+b"):  # a read-only file system, or permissions the bits miss
            pass
    except OSError as e:
        raise StoreError(f"database {path} cannot be opened: {e.strerror or e}") from None
    if st.st_size == 0:
        return  # a new, empty file
    check = "integrity_check" if st.st_size <= FULL_CHECK_BYTES else "quick_check"
    # a read-only connection to a WAL database makes the -wal / -shm files beside it when
    # there are none: those it made (an empty -wal) are removed again
    beside = [Path(f"{path}{s}") for s in ("-wal", "-shm")]
    made = [p for p in beside if not p.exists()]
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
        try:
            found = [r[0] for r in conn.execute(f"PRAGMA {check}(5)").fetchall()]
        finally:
            conn.close()
    except sqlite3.Error as e:
        raise StoreError(f"database {path} is damaged or not an SQLite database: {e}") from None
    finally:
        if len(made) == 2 and (not beside[0].exists() or beside[0].stat().st_size == 0):
            for p in made:
                p.unlink(missing_ok=True)
    if found != ["ok"]:
        raise StoreError(f"database {path} is damaged: PRAGMA {check} found "
                         f"{'; '.join(map(str, found))}")


def _reason(e) -> str:
    """One line for a SQLAlchemy error: the driver's exception and its message."""
    orig = getattr(e, "orig", None) or e
    return f"{type(orig).__name__}: {' '.join(str(orig).split())}"


def _safe(url: str) -> str:
    """``url`` without a password."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - only for a message
        return "the database"


__all__ = ["GameStore", "GameRow", "StoreError", "Conflict", "hash_token", "database_url",
           "DEFAULT_DB", "check_sqlite_file", "sqlite_file", "schema", "FULL_CHECK_BYTES"]
