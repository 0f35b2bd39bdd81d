"""Helpers shared by the test folders, imported as ``tests.helpers.<module>``.

- :mod:`tests.helpers.engine`: Classic positions from compact descriptions, action names.
- :mod:`tests.helpers.hand_and_foot`: the same for Hand and Foot (hands, feet, books).
- :mod:`tests.helpers.heuristic_positions`: the recorded heuristic decisions (``tests/data``).
- :mod:`tests.helpers.opponent`: the repository root, a smoke checkpoint, positions for bots.
- :mod:`tests.helpers.service`: a served bot service on 127.0.0.1.
- :mod:`tests.helpers.postgres`: a throw-away PostgreSQL server.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository root."""
DATA = ROOT / "tests" / "data"
"""Recorded positions and decisions (``tests/data``)."""
