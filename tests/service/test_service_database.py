"""The service's database at start and while serving: a damaged, unreadable or read-only
SQLite file is refused at start with one line and exit code 2 and its bytes stay as they
were; damage found while serving is a JSON 503 and nothing more is written; the schema is
under Alembic, and a database written by the schema before the migrations (and by the
previous version of the service, tests/data/service_db_v0.sql) is upgraded without losing
a game, on SQLite and on PostgreSQL."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
pytest.importorskip("alembic", reason="the service extra is part of the test install")
sqlalchemy = pytest.importorskip("sqlalchemy")

from canasta_env.bots import migrations  # noqa: E402
from canasta_env.bots.service import Service, ServiceError, create_app  # noqa: E402
from canasta_env.bots.store import GameStore, StoreError, schema  # noqa: E402
from tests.helpers.opponent import ROOT  # noqa: E402
from tests.helpers.postgres import fresh_database, postgres_server  # noqa: E402
from tests.helpers.service import free_port  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
V0_DUMP = ROOT / "tests" / "data" / "service_db_v0.sql"
V0_GAME, V0_TOKEN = "0123456789abcdef", "seat-zero-token-of-the-v0-database"
PAGE = 4096


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def good_db(tmp_path_factory) -> bytes:
    """The bytes of a healthy service database holding a few games (checkpointed: the
    whole database is in the one file)."""
    path = tmp_path_factory.mktemp("good") / "games.sqlite3"
    service = Service("heuristic", db=str(path))
    for seed in range(6):
        service.create(["human", "bot", "bot", "bot"], seed=seed)
    service.close()
    assert not Path(str(path) + "-wal").exists()
    data = path.read_bytes()
    assert int.from_bytes(data[16:18], "big") == PAGE and len(data) >= 8 * PAGE
    return data


def damaged(data: bytes, kind: str) -> bytes:
    if kind == "header":  # the 16-byte magic string
        return b"\0" * 16 + data[16:]
    if kind == "schema page":  # page 1 behind the 100-byte header: sqlite_schema
        return data[:100] + b"\xa5" * (PAGE - 100) + data[PAGE:]
    if kind == "data page":  # a table page behind an intact header and schema
        return data[:2 * PAGE] + b"\xa5" * PAGE + data[3 * PAGE:]
    if kind == "truncation":
        return data[:len(data) // 2]
    raise AssertionError(kind)


def serve(db: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "canasta_env.bots.service", "--policy", "heuristic", "--port",
         str(free_port()), "--db", str(db)], cwd=cwd, capture_output=True, text=True,
        timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("kind", ["header", "schema page", "data page", "truncation"])
def test_a_damaged_file_is_refused_at_start_and_left_as_it_was(good_db, tmp_path, kind):
    db = tmp_path / "games.sqlite3"
    db.write_bytes(damaged(good_db, kind))
    before = digest(db)
    r = serve(db, tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(db) in lines[0] and "damaged" in lines[0], lines[0]
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.stat().st_size) == ["games.sqlite3"]


def test_a_read_only_file_is_refused_at_start_and_left_as_it_was(good_db, tmp_path):
    db = tmp_path / "games.sqlite3"
    db.write_bytes(good_db)
    db.chmod(0o444)  # refused for root too: the file's own bits say read-only
    before = digest(db)
    r = serve(db, tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(db) in lines[0] and "read-only" in lines[0], r.stderr
    assert "-r--r--r--" in lines[0]
    assert digest(db) == before and not Path(str(db) + "-wal").exists()


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    db = tmp_path / "notes.txt"
    db.write_text("shopping list\n" * 500)
    with pytest.raises(ServiceError, match="notes.txt is damaged or not an SQLite database"):
        Service("heuristic", db=str(db))
    assert db.read_text() == "shopping list\n" * 500


def test_damage_found_while_serving_is_a_json_503_and_nothing_more_is_written(good_db, tmp_path,
                                                                             caplog):
    db = tmp_path / "games.sqlite3"
    db.write_bytes(good_db)
    app = create_app("heuristic", db=str(db))
    client = TestClient(app, raise_server_exceptions=False)
    try:
        made = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 3})
        assert made.status_code == 201
        game_id = made.json()["game_id"]
        service = app.state.service
        with service.store.engine.connect() as c:
            c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        size = db.stat().st_size
        with open(db, "r+b") as f:  # every page behind the schema overwritten
            f.seek(2 * PAGE)
            f.write(b"\xa5" * (size - 2 * PAGE))
        service.store.engine.dispose()  # no connection keeps pages read before
        service._games.clear()
        before = digest(db)
        caplog.set_level("ERROR", logger="canasta_env.bots.service")
        for method, path, body in [("GET", f"/games/{game_id}", None),
                                   ("GET", f"/games/{game_id}/moves", None),
                                   ("GET", f"/games/{game_id}/replay", None),
                                   ("POST", "/games", {"seats": ["bot"] * 4, "seed": 1})]:
            r = client.request(method, path, json=body)
            assert r.status_code == 503, (path, r.status_code, r.text)
            assert r.headers["content-type"] == "application/json"
            assert str(db) in r.json()["detail"] and "malformed" in r.json()["detail"]
        assert service.store.damaged is not None
        assert digest(db) == before
        errors = [rec for rec in caplog.records if rec.name == "canasta_env.bots.service"]
        assert len(errors) == 4 and all(rec.exc_info is None for rec in errors)  # once each
    finally:
        app.state.service.close()


# ----------------------------------------------------------------------------- migrations
def test_a_database_of_the_previous_version_is_upgraded_without_losing_a_game(tmp_path):
    """tests/data/service_db_v0.sql: the dump of a database written by the service before
    the migrations (one game of 44 moves, seat 0 a human to move)."""
    db = tmp_path / "games.sqlite3"
    with sqlite3.connect(db) as c:
        c.executescript(V0_DUMP.read_text())
        old = c.execute("SELECT position FROM games").fetchone()[0]
    c.close()
    app = create_app("heuristic", db=str(db))
    client = TestClient(app)
    try:
        engine = app.state.service.store.engine
        assert migrations.current(engine) == migrations.head()
        assert app.state.service.position(V0_GAME) == __import__("json").loads(old)
        log = client.get(f"/games/{V0_GAME}/moves", params={"limit": 1000}).json()
        assert log["decisions"] == 44 and [m["seq"] for m in log["moves"]] == list(range(1, 45))
        view = client.get(f"/games/{V0_GAME}",
                          headers={"Authorization": f"Bearer {V0_TOKEN}"}).json()
        assert view["seat"] == 0 and view["to_move"] == 0 and view["legal_actions"]
        r = client.post(f"/games/{V0_GAME}/actions", json={"action": "draw from stock"},
                        headers={"Authorization": f"Bearer {V0_TOKEN}"})
        assert r.status_code == 200, r.text
        assert r.json()["view"]["decisions"] > 44
    finally:
        app.state.service.close()


@pytest.fixture(scope="module")
def pg_server():
    with postgres_server() as url:
        yield url


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_tables_made_before_the_migrations_are_stamped_and_kept(backend, tmp_path, request):
    """The previous version made the tables with ``create_all``: the same tables (and a
    game in them) are recognised, stamped with the first revision and upgraded to the
    newest; a second start changes nothing."""
    url = (str(tmp_path / "g.sqlite3") if backend == "sqlite"
           else fresh_database(request.getfixturevalue("pg_server")))
    first = GameStore(url)
    service = Service("heuristic", db=url)
    made = service.create(["human", "bot", "bot", "bot"], seed=5)
    position = service.position(made["game_id"])
    service.close()
    with first.engine.begin() as c:  # back to the database as the previous version left it
        c.exec_driver_sql("DROP TABLE alembic_version")
    assert migrations.current(first.engine) is None
    first.close()
    for _ in range(2):
        store = GameStore(url)
        assert migrations.current(store.engine) == migrations.head()
        assert store.count() == 1 and store.load(made["game_id"]).position == position
        store.close()


def test_a_later_revision_adds_a_column_to_a_database_of_the_previous_version(tmp_path):
    """The path a new column takes: a revision 0002 (written here as a later version
    would) upgrades a database written by the previous version without losing its game;
    this version then refuses that database in one line instead of guessing."""
    scripts = tmp_path / "migrations"
    shutil.copytree(migrations.HERE, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "0002_games_note.py").write_text(
        '"""games.note"""\n'
        "import sqlalchemy as sa\nfrom alembic import op\n\n"
        'revision = "0002"\ndown_revision = "0001"\nbranch_labels = None\ndepends_on = None\n\n\n'
        "def upgrade():\n    op.add_column(\"games\", sa.Column(\"note\", sa.Text))\n\n\n"
        "def downgrade():\n    op.drop_column(\"games\", \"note\")\n")
    db = tmp_path / "games.sqlite3"
    with sqlite3.connect(db) as c:
        c.executescript(V0_DUMP.read_text())
        before = c.execute("SELECT * FROM games").fetchall()
        moves = c.execute("SELECT * FROM moves ORDER BY seq").fetchall()
    c.close()
    engine = sqlalchemy.create_engine(f"sqlite:///{db}")
    migrations.upgrade(engine, scripts=scripts)
    assert migrations.current(engine) == migrations.head(scripts) == "0002"
    engine.dispose()
    with sqlite3.connect(db) as c:
        after = c.execute("SELECT * FROM games").fetchall()
        assert [r[:-1] for r in after] == before and after[0][-1] is None  # note: NULL
        assert c.execute("SELECT * FROM moves ORDER BY seq").fetchall() == moves
    c.close()
    with pytest.raises(StoreError, match="revision '0002', which this version of the service "
                                         "does not know"):
        GameStore(str(db))


def test_a_foreign_games_table_is_refused(tmp_path):
    db = tmp_path / "other.sqlite3"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
    c.close()
    with pytest.raises(StoreError, match="'games' table that this service did not make"):
        GameStore(str(db))


def test_the_first_revision_makes_the_tables_the_queries_use(tmp_path):
    """Revision 0001 makes exactly the tables (and index) of ``create_all`` of
    :func:`canasta_env.bots.store.schema`, the tables the queries are built from."""
    store = GameStore(str(tmp_path / "migrated.sqlite3"))
    store.close()
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'created.sqlite3'}")
    schema()[0].create_all(engine)
    engine.dispose()

    def ddl(name: str) -> list[tuple]:
        with sqlite3.connect(tmp_path / name) as c:
            rows = c.execute("SELECT type, name, tbl_name, sql FROM sqlite_master "
                             "WHERE tbl_name != 'alembic_version' ORDER BY name").fetchall()
        c.close()
        return [(t, n, tbl, " ".join((sql or "").split())) for t, n, tbl, sql in rows]

    made = ddl("migrated.sqlite3")
    assert [r[1] for r in made] == ["games", "ix_games_last_used", "moves",
                                    "sqlite_autoindex_games_1", "sqlite_autoindex_moves_1"]
    assert made == ddl("created.sqlite3")


def test_a_service_in_memory_serves_from_every_thread():
    """``db="sqlite://"`` (an in-memory database, as the docs' schema example uses): the
    request threads and the expiry sweep see the one database (each new SQLite
    connection in memory would be a new, empty one: "no such table: games")."""
    import threading

    from fastapi.testclient import TestClient

    with TestClient(create_app("heuristic", db="sqlite://")) as client:
        made = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 2})
        assert made.status_code == 201, made.text
        game_id = made.json()["game_id"]
        assert client.get(f"/games/{game_id}").json()["status"] == "waiting"
    service = Service("heuristic", db="sqlite://")
    try:
        game_id = service.create(["human", "bot", "bot", "bot"], seed=2)["game_id"]
        seen = []
        reader = threading.Thread(target=lambda: seen.extend(
            [service.view(game_id)["status"], service.sweep()]))  # as the expiry thread does
        reader.start()
        reader.join()
        assert seen == ["waiting", 0]  # the game, and nothing idle to expire
        # four threads at once: every game whose id came back is there, none lost to
        # another thread's rollback of the one shared connection
        made, errors = [], []

        def work(k: int) -> None:
            for i in range(25):
                try:
                    gid = service.create(["human", "bot", "bot", "bot"], seed=k * 100 + i)
                    made.append(gid["game_id"])
                    service.view(gid["game_id"])
                except Exception as e:  # noqa: BLE001 - counted, then asserted none
                    errors.append(repr(e))

        workers = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        assert errors == [] and len(made) == 100
        assert service.count() == 101
        assert all(service.view(g)["status"] == "waiting" for g in made)
    finally:
        service.close()


def test_bot_workers_need_a_database_they_can_share():
    """Bot worker processes open the database themselves: an in-memory one would be a new,
    empty database in each (their games never played), so it is refused at start."""
    with pytest.raises(ServiceError) as e:
        Service("heuristic", db="sqlite://", bot_processes=1)
    assert e.value.status == 400
    assert e.value.message == ("bot_processes needs a database the worker processes can "
                               "open too (an SQLite file or PostgreSQL), not SQLite in memory")
