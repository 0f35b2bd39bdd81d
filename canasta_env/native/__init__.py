"""The native core: the rules engine compiled (C, bound with Cython), for speed.

``available`` tells whether the compiled extension loaded. :class:`NativeGame` is one
game (load / save JSON positions, legal actions, apply, observation, mask);
:class:`VectorGames` steps a batch of games in one call into numpy arrays it owns. The
C sources (``core/*.c``) mirror the Python engine's modules one to one; the Python
engine (:mod:`canasta_env.engine`) stays the readable reference, and
``python -m canasta_env.differential`` compares the two decision by decision.

=====================  ============================================================
C file (core/)         mirrors
=====================  ============================================================
state.h, state.c       engine/state.py, cards.py, actions.py (ids), options.py (every
                       RulesOptions field as a C struct)
deal.c                 engine/deal.py (own generator: native seeds deal other cards)
legality.c             engine/legality.py
completion.c           engine/completion.py
feasibility.c          engine/feasibility.py
exact.c                engine/exact.py (memo tables instead of lru_cache)
transitions.c          engine/transitions.py
scoring.c              engine/scoring.py
observe.c              observation.py (encode; the float32 scales come from Python)
heuristic.c            policies.py HeuristicPolicy (from observation and mask only;
                       ``NativeHeuristic``, the native backend of HeuristicPolicy)
search.c               none: decision-time search (determinised rollouts of the
                       heuristic; ``search_values``, used by training/search.py)
=====================  ============================================================

The binding (``_core.pyx``, ``vector.pxi``) is thin: positions are read and written by
the Python engine's own reader / writer and moved field by field into / out of the C
struct; options, actions and batches are validated in Python before C runs.

Without a compiler at install time the extension is not built: ``available`` is
``False``, one warning says so, and ``NativeGame`` / ``VectorGames`` are the Python
engine behind the same API (:mod:`.fallback`: Python deals, Python speed).
"""

from __future__ import annotations

import warnings

try:
    from ._core import NativeGame, VectorGames, determinised, search_game_values, search_seed, search_values
    available = True
except ImportError as _e:  # not built: no compiler at install time
    from .fallback import PyNativeGame as NativeGame
    from .fallback import PyVectorGames as VectorGames

    available = False

    def _needs_core(*args, **kwargs):
        """Needs the compiled core (decision-time search has no Python version)."""
        raise RuntimeError("decision-time search needs the compiled native core "
                           "(reinstall with a C compiler: pip install -e .)")

    determinised = search_game_values = search_seed = search_values = _needs_core

    warnings.warn(f"canasta_env.native: the compiled core is not available ({_e}); "
                  f"using the Python engine (reinstall with a C compiler: pip install -e .)",
                  RuntimeWarning, stacklevel=2)

__all__ = ["NativeGame", "VectorGames", "available", "determinised", "search_game_values",
           "search_seed", "search_values"]
