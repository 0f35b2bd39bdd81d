"""Several network opponents of one architecture decided in one pass.

A training run's pool holds up to ``max_snapshots`` snapshots of the learner (and any fixed
checkpoints), and each plays a few of the batched env's games. Decided one network at a
time, every step of the opponents' play costs one actor pass per network with rows waiting
(a few rows each: 5 passes of about 0.2-0.7 ms on two cores, most of it per-operation
overhead, not arithmetic). :class:`StackedActors` holds the networks' actor weights stacked
(``[S, out, in]`` per layer) and runs all of them in one pass of batched matrix products
over rows padded to the longest group, so the cost is about one network's.

It covers the actor pass of sb3-contrib's ``MaskableActorCriticPolicy`` with SB3's
``FlattenExtractor`` or :class:`training.sb3.features.CardClassFeatures`, hidden layers of
``Linear`` layers with biases and an activation (``net_arch`` with ``Tanh``/``ReLU``), and
the ``action_net`` head; :func:`stackable` says whether a set of policies qualifies (same layer shapes, same
activations, same card-class indices), and the env decides network by network otherwise.
The logits equal each policy's own pass within float rounding (a test).
"""

from __future__ import annotations

import numpy as np
import torch
from stable_baselines3.common.torch_layers import FlattenExtractor

from .features import CardClassFeatures
from .precision import HUGE_NEG, gumbel_noise

_ACTIVATIONS = (torch.nn.Tanh, torch.nn.ReLU)


def _layers(seq: torch.nn.Sequential) -> list[tuple[torch.nn.Linear, type | None]] | None:
    """``seq`` as (Linear, activation class or None) pairs, or None if it is anything
    else."""
    out: list[tuple[torch.nn.Linear, type | None]] = []
    for m in seq:
        if type(m) is torch.nn.Linear and m.bias is not None:
            out.append((m, None))
        elif type(m) in _ACTIVATIONS and out and out[-1][1] is None:
            out[-1] = (out[-1][0], type(m))
        else:
            return None
    return out


def _signature(policy) -> tuple | None:
    """What must agree between policies for them to be stacked, or None when the policy's
    actor pass is not one this module computes."""
    if getattr(policy, "precision", "fp32") != "fp32":
        return None
    fe = policy.pi_features_extractor
    if isinstance(fe, FlattenExtractor):
        feat: tuple = ("flatten",)
    elif type(fe) is CardClassFeatures:
        shared = _layers(fe.shared)
        if shared is None:
            return None
        feat = ("classes", tuple(fe.class_idx.tolist()), tuple(fe.global_idx.tolist()),
                tuple((tuple(lin.weight.shape), act) for lin, act in shared))
    else:
        return None
    hidden = _layers(policy.mlp_extractor.policy_net)
    head = _layers(torch.nn.Sequential(policy.action_net))
    if hidden is None or head is None:
        return None
    return (feat, tuple((tuple(lin.weight.shape), act) for lin, act in hidden),
            tuple(policy.action_net.weight.shape))


def stackable(policies) -> bool:
    """Whether :class:`StackedActors` can run ``policies`` (a non-empty sequence)."""
    sigs = [_signature(p) for p in policies]
    return bool(sigs) and sigs[0] is not None and all(s == sigs[0] for s in sigs)


def _stack(layers_per_policy) -> list[tuple[torch.Tensor, torch.Tensor, type | None]]:
    """Per layer: weights ``[S, in, out]`` (transposed for ``baddbmm``), biases
    ``[S, 1, out]``, the activation."""
    out = []
    for j, (_, act) in enumerate(layers_per_policy[0]):
        w = torch.stack([ls[j][0].weight.detach() for ls in layers_per_policy]).transpose(1, 2)
        b = torch.stack([ls[j][0].bias.detach() for ls in layers_per_policy]).unsqueeze(1)
        out.append((w.contiguous(), b.contiguous(), act))
    return out


def _apply(layers, x: torch.Tensor) -> torch.Tensor:
    """``x`` ``[S, R, in]`` through stacked layers -> ``[S, R, out]``."""
    for w, b, act in layers:
        x = torch.baddbmm(b, x, w)
        if act is torch.nn.Tanh:
            x = torch.tanh(x)
        elif act is torch.nn.ReLU:
            x = torch.relu(x)
    return x


class StackedActors:
    """The actor passes of ``policies`` (S of them, :func:`stackable`) as one computation.

    The weights are copied when this object is made: build a new one when a policy's
    weights change (the env does so when its set of network opponents changes; snapshots
    and fixed checkpoints are frozen).

    Raises:
        ValueError: the policies cannot be stacked (:func:`stackable` is False).
    """

    def __init__(self, policies) -> None:
        policies = list(policies)
        if not stackable(policies):
            raise ValueError("these policies' actor passes differ in shape or kind; decide "
                             "them one at a time")
        self.size = len(policies)
        fe = policies[0].pi_features_extractor
        self._classes = isinstance(fe, CardClassFeatures)
        if self._classes:
            self._class_idx = fe.class_idx.clone()
            self._global_idx = fe.global_idx.clone()
            self._n_classes = int(fe.class_idx.shape[0])
            self._shared = _stack([_layers(p.pi_features_extractor.shared) for p in policies])
        self._hidden = _stack([_layers(p.mlp_extractor.policy_net)
                               + [(p.action_net, None)] for p in policies])

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Logits ``float32 [S, R, A]`` of policy ``s`` at ``obs[s]`` (``float32
        [S, R, N]``). Call under ``torch.no_grad()``."""
        if self._classes:
            s, r, n = obs.shape
            c = self._n_classes
            padded = torch.cat([obs, obs.new_zeros(s, r, 1)], dim=2)
            per_class = padded[:, :, self._class_idx]                      # [S, R, 15, 12]
            glob = obs[:, :, self._global_idx].unsqueeze(2).expand(s, r, c, -1)
            onehot = torch.eye(c, dtype=obs.dtype).expand(s, r, c, c)
            x = torch.cat([per_class, onehot, glob], dim=3).reshape(s, r * c, -1)
            h = _apply(self._shared, x).reshape(s, r, -1)                  # [S, R, 15 * C]
            obs = torch.cat([obs, h], dim=2)
        return _apply(self._hidden, obs)

    def sample(self, groups: list[np.ndarray], observations: np.ndarray,
               masks: np.ndarray) -> list[np.ndarray]:
        """Sampled actions (Gumbel-max over the masked logits, as
        :func:`training.sb3.precision.sample_masked`) for each policy's rows:
        ``groups[s]`` are row numbers into ``observations`` (``float32 [B, N]``) and
        ``masks`` (``[B, A]``, nonzero = legal), possibly empty; returns one ``int64``
        array per group."""
        width = max((len(g) for g in groups), default=0)
        if width == 0:
            return [np.zeros(0, dtype=np.int64) for _ in groups]
        index = np.zeros((self.size, width), dtype=np.int64)
        for s, g in enumerate(groups):
            index[s, :len(g)] = g
            if len(g):
                index[s, len(g):] = g[0]  # padding: a real row, its result dropped
        obs = torch.as_tensor(observations[index])
        legal = torch.as_tensor(masks[index]).bool()
        with torch.no_grad():
            logits = self.logits(obs).masked_fill(~legal, HUGE_NEG)
            acts = (logits + gumbel_noise(logits)).argmax(dim=-1).numpy()
        return [acts[s, :len(g)] for s, g in enumerate(groups)]


__all__ = ["StackedActors", "stackable"]
