"""games and moves: the schema as the service made it before the migrations existed

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
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
        sa.Column("last_used", sa.Float, nullable=False),
    )
    op.create_index("ix_games_last_used", "games", ["last_used"])
    op.create_table(
        "moves",
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


def downgrade() -> None:
    op.drop_table("moves")
    op.drop_index("ix_games_last_used", "games")
    op.drop_table("games")
