"""canasta_env: partnership Canasta as a PettingZoo AEC environment.

``canasta_env.env(**options)`` is the wrapped environment, ``canasta_env.raw_env`` the
unwrapped one; the pure rules engine is :mod:`canasta_env.engine`.
"""

from .env import AGENTS, env, raw_env
from .observation import OBS_SIZE

__version__ = "0.1.0"
__all__ = ["env", "raw_env", "AGENTS", "OBS_SIZE", "__version__"]


def _register() -> None:
    """Register ``canasta_v0`` in PettingZoo's registry when it has one."""
    try:
        from pettingzoo.env_registry import registration
    except ImportError:  # older PettingZoo: no registry
        return
    if "canasta_v0" not in registration.aec_registry:
        registration.register("aec", "canasta_v0", entry_point="canasta_env.env:env")


_register()
