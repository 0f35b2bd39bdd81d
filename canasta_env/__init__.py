"""canasta_env: partnership Canasta as a PettingZoo AEC environment.

``canasta_env.env(**options)`` is the wrapped environment, ``canasta_env.raw_env`` the
unwrapped one (both in :mod:`canasta_env.aec`); the pure rules engine is
:mod:`canasta_env.engine`; bots for frontends (computer players, policies by name, the
HTTP service, terminal play; no torch) are :mod:`canasta_env.bots`.

The environment is loaded on first use, so ``import canasta_env.engine`` never imports
PettingZoo, Gymnasium or torch. Importing :mod:`canasta_env.aec` (which ``env`` and
``raw_env`` do) registers ``canasta_v0`` in PettingZoo's registry.
"""

from .observation import OBS_SIZE

__version__ = "0.1.0"
__all__ = ["env", "raw_env", "AGENTS", "OBS_SIZE", "__version__"]

_LAZY = ("env", "raw_env", "AGENTS")


def __getattr__(name: str):
    if name in _LAZY:
        from . import aec

        for n in _LAZY:
            globals()[n] = getattr(aec, n)
        return globals()[name]
    raise AttributeError(f"module 'canasta_env' has no attribute {name!r}")
