"""The service database's schema under Alembic: :func:`upgrade` brings a database to the
newest revision (the service runs it at every start).

Revisions live in ``versions/``; ``0001`` is the schema as the service made it before the
migrations existed (``create_all`` of ``games`` and ``moves``). A database from that time
has the two tables and no ``alembic_version``: it is checked to have the columns of
revision ``0001``, stamped with it, and upgraded from there. A new revision::

    alembic -c canasta_env/bots/migrations/alembic.ini revision -m "what changes"

(``sqlalchemy.url`` in that file, or ``-x url=...``, names a database to autogenerate against;
write the upgrade and downgrade by hand and add a test that upgrades a database of the
revision before it). On PostgreSQL the upgrade holds an advisory lock, so that several
service processes starting at once migrate one after the other.
"""

from __future__ import annotations

from pathlib import Path

#: Alembic's script location (env.py, script.py.mako, versions/)
HERE = Path(__file__).resolve().parent
#: the revision of the schema made before the migrations existed
BASELINE = "0001"
#: PostgreSQL advisory lock key held while migrating ("canasta" in ASCII, as an int)
LOCK_KEY = 0x63616E61737461


def config(connection=None, scripts: Path = HERE):
    """An Alembic ``Config`` for the migration ``scripts`` (default: the package's),
    optionally bound to ``connection``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(scripts))
    cfg.attributes["connection"] = connection
    return cfg


def head(scripts: Path = HERE) -> str:
    """The newest revision of ``scripts``."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config(scripts=scripts)).get_current_head()


def current(engine) -> str | None:
    """The revision a database is at (``None``: none stamped)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as c:
        return MigrationContext.configure(c).get_current_revision()


class MigrationError(Exception):
    """The database cannot be brought to this version's schema (the message says why)."""


def upgrade(engine, revision: str = "head", scripts: Path = HERE) -> None:
    """Bring the database of ``engine`` to ``revision`` of ``scripts`` (a database of the
    time before the migrations is stamped :data:`BASELINE` first).

    Raises:
        MigrationError: the database has tables of another shape than any revision (not
            this service's database), or is at a revision these scripts do not know
            (written by a newer version of the service); the store turns it into its
            StoreError.
        sqlalchemy.exc.SQLAlchemyError: the database failed.
    """
    import sqlalchemy as sa
    from alembic import command
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    with engine.begin() as c:
        if c.dialect.name == "postgresql":
            c.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
        tables = set(sa.inspect(c).get_table_names())
        if "alembic_version" not in tables and tables & {"games", "moves"}:
            _check_baseline(c, tables)
            command.stamp(config(c, scripts), BASELINE)
        at = c.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() \
            if "alembic_version" in tables else None
        known = {r.revision for r in ScriptDirectory.from_config(config(scripts=scripts))
                 .walk_revisions()}
        if at is not None and at not in known:
            raise MigrationError(f"the database's schema is at revision {at!r}, which this version "
                             f"of the service does not know (newest: {head(scripts)!r}): it was "
                             f"written by a newer version; run that one")
        try:
            command.upgrade(config(c, scripts), revision)
        except CommandError as e:
            raise MigrationError(f"cannot migrate the database: {e}") from None


def _check_baseline(c, tables: set[str]) -> None:
    want = {"games": {"game_id", "variant", "seats", "bot_policy", "auto_deal", "token_hashes",
                      "position", "version", "decisions", "status", "created_at", "last_used"},
            "moves": {"id", "game_id", "seq", "hand_number", "seat", "action", "description",
                      "at"}}
    inspector = __import__("sqlalchemy").inspect(c)
    for name, columns in want.items():
        have = {col["name"] for col in inspector.get_columns(name)} if name in tables else set()
        if have != columns:
            raise MigrationError(f"the database has a {name!r} table that this service did not make "
                             f"(columns {sorted(have)}); give another --db")


__all__ = ["MigrationError", "upgrade", "current", "head", "config", "BASELINE", "HERE"]
