"""Alembic's environment for the service database: run on the connection that
:func:`canasta_env.bots.migrations.upgrade` passes, or (the ``alembic`` command) on
``sqlalchemy.url`` / ``-x url=...``."""

from alembic import context

config = context.config
connection = config.attributes.get("connection")


def run(conn) -> None:
    context.configure(connection=conn, target_metadata=None, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if connection is not None:
    run(connection)
else:  # the alembic command line
    import sqlalchemy as sa

    url = context.get_x_argument(as_dictionary=True).get("url") or \
        config.get_main_option("sqlalchemy.url")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        run(conn)
    engine.dispose()
