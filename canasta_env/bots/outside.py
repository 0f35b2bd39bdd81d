"""Outside policies by name: ``module:attribute`` (the convention of uvicorn and entry
points) names a policy written outside this package, wherever a policy spec is accepted
(:func:`canasta_env.bots.load_policy`, so ``python -m training.evaluate --a
mybots.memory:MemoryBot``, ``training.ratings``, terminal play's ``--policy`` and
:class:`canasta_env.bots.Bot`).

``module`` is imported with :func:`importlib.import_module` (it must be importable: on
``sys.path``, e.g. the current directory with ``python -m``, or installed); the
attribute may be dotted (``pkg.mod:Outer.Inner``). What it names:

- **a class**: a policy class. It is called with no arguments; every seat gets its own
  instance and a new one at the start of every episode (evaluation: every episode;
  :class:`~canasta_env.bots.Bot` and terminal play: every hand), so memory kept on
  ``self`` during the episode belongs to one seat. Before its first ``act`` the new
  instance's reset hook ``reset(seed: int)`` is called, when the class has one, with a
  seed that depends only on the evaluation seed, the deal, the seating and the seat.
  The class is built once while the spec loads, to check it (and its variant) before the
  first deal.
- **an object with a callable** ``act``: used as it is, like the built-in policies: one
  object for every seat, ``reset(seed)`` at each episode; an evaluation playing episodes
  side by side copies it (its ``fork()``, else ``copy.deepcopy``) unless it says
  ``stateless = True``.

Either way the policy must have ``act(observation, action_mask) -> int`` (float32
``(obs size,)``, int8 ``(number of actions,)``, see ``docs/guide/writing_a_policy.md``)
and may declare the variant it plays with ``variant = "classic"`` /
``"hand_and_foot"`` or with ``obs_size`` and ``num_actions``; without them it must play
any variant. Workers (``training.evaluate --workers``) import the module themselves.

Errors (:class:`~canasta_env.bots.loader.PolicySpecError`, one line naming the spec,
raised while the spec loads, before the first deal): the module does not import (its
error is quoted), the attribute is missing, the class cannot be built with no
arguments, or the object is not a policy (no ``act``); a policy of another variant is a
:class:`~canasta_env.bots.loader.PolicyVariantError` from :func:`load_policy`.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from .variants import PolicySpecError, policy_sizes

__all__ = ["PolicyClass", "is_outside_spec", "load_outside"]

_NAME = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_SPEC = re.compile(rf"^({_NAME}):({_NAME})$")


def is_outside_spec(spec: str) -> bool:
    """Whether ``spec`` has the form ``module:attribute`` (dotted Python names)."""
    return isinstance(spec, str) and _SPEC.match(spec.strip()) is not None


def _resolve(spec: str) -> Any:
    module_name, attr = _SPEC.match(spec).groups()
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - any error of the user's module, quoted
        raise PolicySpecError(f"policy {spec!r}: module {module_name!r} does not import "
                              f"({type(e).__name__}: {e})") from e
    done = module_name
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise PolicySpecError(f"policy {spec!r}: {done!r} has no attribute {part!r}")
        obj = getattr(obj, part)
        done = f"{done}.{part}" if done != module_name else f"{module_name}:{part}"
    return obj


def load_outside(spec: str) -> Any:
    """The policy ``spec`` (``module:attribute``) names: a :class:`PolicyClass` for a
    class, the object itself for an object with ``act`` (see the module docstring).

    Raises:
        PolicySpecError: not of the form ``module:attribute``; the module does not
            import; no such attribute; the class cannot be built with no arguments; not
            a policy (no callable ``act``).
    """
    spec = spec.strip() if isinstance(spec, str) else spec
    if not is_outside_spec(spec):
        raise PolicySpecError(f"policy {spec!r} is not of the form module:attribute")
    obj = _resolve(spec)
    if isinstance(obj, type):
        return PolicyClass(spec, obj)
    if not callable(getattr(obj, "act", None)):
        raise PolicySpecError(f"policy {spec!r} is not a policy: it names a "
                              f"{type(obj).__name__}, not a class or an object with an "
                              f"act(observation, action_mask) method")
    if getattr(obj, "name", None) is None:
        try:
            obj.name = spec
        except (AttributeError, TypeError):  # slots or a read-only object: keep it nameless
            pass
    return obj


class PolicyClass:
    """A policy class named by ``module:Class``: one instance per seat and per episode.

    The evaluation (``training.evaluate``) and :class:`~canasta_env.bots.Bot` call
    :meth:`for_seat` for each seat they play, then :meth:`reset` at the start of every
    episode, which builds a new instance of the class and calls its ``reset(seed)`` when
    it has one; :meth:`act` asks that instance.

    Attributes:
        name: the spec, e.g. ``"mybots:MemoryBot"``.
        cls: the class.
        obs_size, num_actions: what an instance declares (its ``variant``, or its
            ``obs_size`` and ``num_actions``), ``None`` for a policy of any variant.
        stateless: ``False`` (never shared between running episodes).

    Raises:
        PolicySpecError: the class cannot be built with no arguments, or its instances
            have no callable ``act`` (at construction).
    """

    stateless = False

    def __init__(self, spec: str, cls: type, _probe: Any = None) -> None:
        self.name = spec
        self.cls = cls
        self._policy = self._new() if _probe is None else _probe
        sizes = policy_sizes(self._policy)
        self.obs_size, self.num_actions = sizes if sizes is not None else (None, None)

    def _new(self) -> Any:
        try:
            policy = self.cls()
        except Exception as e:  # noqa: BLE001 - the user's constructor, quoted
            raise PolicySpecError(f"policy {self.name!r}: {self.cls.__name__}() failed "
                                  f"({type(e).__name__}: {e}); a policy class is built "
                                  f"with no arguments") from e
        if not callable(getattr(policy, "act", None)):
            raise PolicySpecError(f"policy {self.name!r} is not a policy: "
                                  f"{self.cls.__name__} has no act(observation, "
                                  f"action_mask) method")
        return policy

    def __repr__(self) -> str:
        return f"PolicyClass({self.name!r})"

    def for_seat(self) -> PolicyClass:
        """A new handle for one seat: its own instances, built at each :meth:`reset`
        (or at the first :meth:`act` if it is never reset)."""
        handle = PolicyClass(self.name, self.cls, _probe=self._policy)
        handle._policy = None
        return handle

    #: episodes side by side (``canasta_env.batching.fork``): a handle of its own
    fork = for_seat

    def reset(self, seed: int | None = None) -> None:
        """Start of an episode: a new instance of the class, then its ``reset(seed)``
        (when it has one).

        Raises:
            PolicySpecError: the class cannot be built any more (its constructor
                raised).
        """
        self._policy = self._new()
        hook = getattr(self._policy, "reset", None)
        if callable(hook):
            hook(seed)

    @property
    def policy(self) -> Any:
        """The instance playing now."""
        return self._policy

    def act(self, observation, action_mask) -> int:
        """The current instance's action for ``observation`` (float32 ``(obs size,)``)
        and ``action_mask`` (int8 ``(number of actions,)``)."""
        if self._policy is None:
            self.reset(None)
        return int(self._policy.act(observation, action_mask))
