"""The candidate settings of Classic's ``expert`` level, as policies by name.

Each name is a :class:`canasta_env.search.SearchPolicy` over Classic's shipped reference
network (the base proposing the moves, as ``search_reference``), with the settings in
:data:`CANDIDATES`, for the selection recorded in docs/results/search.md ("The network
as a prior, and more deals"), e.g.::

    python -m training.evaluate --a training.search.expert:D256_TOP3 --b reference \\
        --hands 1000 --seed 100 --json

``D64`` is ``search_reference`` as it was before that selection (64 determinisations,
every legal action a candidate); ``D256``, the one chosen, is Classic's
``search_reference`` now. A policy is built when its name is first read (it loads
the reference network), then reused: the search keeps no state between decisions.
"""

from __future__ import annotations

#: name -> keyword arguments of SearchPolicy besides the base (z 1.5, criterion win)
CANDIDATES = {
    "D64": {"determinisations": 64},
    "D64_TOP3": {"determinisations": 64, "candidates": 3},
    "D256": {"determinisations": 256},
    "D256_TOP3": {"determinisations": 256, "candidates": 3},
}

_built: dict = {}


def candidate(name: str):
    """The search policy named ``name`` (a key of :data:`CANDIDATES`).

    Raises:
        KeyError: an unknown name.
    """
    if name not in CANDIDATES:
        raise KeyError(f"no expert candidate {name!r}; known: {', '.join(CANDIDATES)}")
    if name not in _built:
        from canasta_env.bots import load_policy
        from canasta_env.search import SearchPolicy

        _built[name] = SearchPolicy(base=load_policy("reference", variant="classic"),
                                    **CANDIDATES[name])
    return _built[name]


def __getattr__(name: str):
    if name in CANDIDATES:
        return candidate(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r} (the expert "
                         f"candidates: {', '.join(CANDIDATES)})")
