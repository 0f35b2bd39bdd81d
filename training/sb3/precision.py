"""The network in bfloat16 on the CPU (``ppo.precision: bf16`` or ``auto``).

Where the CPU multiplies bfloat16 natively, a matrix product of the policy's sizes can run
several times faster in bfloat16 than in float32: with AMX tiles (Intel Sapphire Rapids
and later) four to five times; with AVX512-BF16 alone it depends on the CPU (measured on
2-core machines of this project's kind: 3.5 to 5.6 times faster products and the whole
PPO update 1.6 to 1.8 times faster on an AMD EPYC with AVX512-BF16; the update at 26,100
samples/s in bf16 against 32,900 in fp32, slower, on an earlier instance). So
``ppo.precision: auto`` decides by measuring (:func:`bf16_fast`: AMX, or the policy's
products forward and backward timed in both precisions on this CPU, bf16 taken when at
least :data:`AUTO_MIN_SPEEDUP` times faster), ``bf16`` asks for it wherever the CPU
computes it (:func:`bf16_available`), ``fp32`` never.

:class:`MixedPrecisionPolicy` is sb3-contrib's ``MaskableActorCriticPolicy`` whose
features extractor and hidden layers run under ``torch.autocast("cpu", bfloat16)``: the
weights, the optimiser state and the gradients stay float32, the products are bfloat16
with float32 accumulation, and the hidden layers' outputs come back as float32, so the
policy and value heads, the action distribution (its log-probabilities enter PPO's
ratio) and the losses are float32. The rollout's forwards and the update's take the same
path, so the ratio of a sample to itself is 1 up to the order of a sum. Its optimiser is
Adam with sb3's ``eps=1e-5`` in torch's fused CPU kernel (one kernel for all parameters,
the same update rule as the default loop, within float rounding).

The precision is a setting of a run, not of a network: a checkpoint saves this class
(its ``policy_class``) but not the precision, and every loaded checkpoint -- an
opponent, an evaluation, a bot, ONNX -- plays in float32 unless a training run sets it
(:func:`set_precision`). A checkpoint saved with sb3-contrib's own policy class resumes
as this one (``custom_objects={"policy_class": MixedPrecisionPolicy}``): the parameters
are the same.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import time
import warnings
from typing import Literal

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import BaseModel
from stable_baselines3.common.preprocessing import preprocess_obs
from stable_baselines3.common.torch_layers import MlpExtractor

from .features import CardClassFeatures

Precision = Literal["fp32", "bf16"]
#: what a config may ask for: a precision, or ``"auto"`` (:func:`resolve_precision`)
Requested = Literal["fp32", "bf16", "auto"]
#: a masked action's logit (sb3-contrib's MaskableCategorical uses the same)
HUGE_NEG = -1e8
#: the lowest Gumbel noise :func:`gumbel_noise` gives: far below any legal action's
#: log-probability plus noise, far above a masked action's (``HUGE_NEG``)
GUMBEL_FLOOR = -1e4


def gumbel_noise(like: torch.Tensor) -> torch.Tensor:
    """Standard Gumbel noise, ``float32`` of ``like``'s shape, ``-log(-log(u))`` for uniform
    ``u``, for sampling by the Gumbel-max trick (``argmax(logits + noise)``).

    torch's CPU float32 uniform draws are multiples of 2^-24 in [0, 1), so about once in
    16.8 million draws ``u`` is exactly 0 and the noise ``-inf``. On the only legal
    action of a row that made a masked action win the argmax, and the env refused it
    (``IllegalActionError``). The noise is floored at :data:`GUMBEL_FLOOR` (-1e4): an
    action whose draw was 0 still loses to every other legal action, as before, and
    always beats a masked one. Every other draw is unchanged (the smallest nonzero draw
    gives about -2.8)."""
    u = torch.rand_like(like, dtype=torch.float32)  # float32 draws (never 1) whatever like is
    return (-torch.log(-torch.log(u))).clamp_min_(GUMBEL_FLOOR)


def bf16_available() -> bool:
    """Whether this CPU has native bfloat16 products (oneDNN's check); without them
    autocast emulates bfloat16, slower than float32."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a torch build without oneDNN
        return False


#: ``auto`` takes bf16 where the policy's products run at least this many times faster in
#: bf16 than in fp32 on this CPU (:func:`bf16_speedup`); well clear of the noise of one
#: measurement (the speedups seen on this project's machines: 0.8x, and 1.6x-3x)
AUTO_MIN_SPEEDUP = 1.25


def _amx() -> bool:
    amx = getattr(torch.cpu, "_is_amx_tile_supported", None)
    try:
        return bool(amx is not None and amx())
    except RuntimeError:
        return False


@functools.lru_cache(maxsize=1)
def bf16_speedup(rounds: int = 7) -> float:
    """How many times faster the default policy's products run in bf16 autocast than in
    fp32 on this CPU core: the forward and backward passes of a minibatch of 1,024
    through the layers of the default card-class network (the per-class layer
    ``[15,360 x 64] -> 64`` and a ``322 -> 256 -> 256 -> 91`` MLP) on one torch thread
    (two threads' timings swing from 1x to 5x when another process holds a core; one
    thread's stay within 2.1x-2.6x on the same machine), best of ``rounds`` interleaved
    timings of each, about 0.3 s in all on a quiet machine. The process's thread count,
    grad mode and random generators are left as they were. Measured once per process
    (cached); 0.0 where the CPU has no bfloat16 products (:func:`bf16_available`)."""
    if not bf16_available():
        return 0.0
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.enable_grad():
            return _time_both(rounds)
    finally:
        torch.set_num_threads(threads)


def _time_both(rounds: int) -> float:
    gen = torch.Generator().manual_seed(0)  # never the global generator: a run's draws stay

    def param(*shape: int) -> torch.Tensor:
        return (torch.randn(*shape, generator=gen) / shape[-1] ** 0.5).requires_grad_()

    widths = [(322, 256), (256, 256), (256, 91)]
    w_class, layers = param(64, 64), [param(o, i) for i, o in widths]
    x_class = torch.randn(15 * 1024, 64, generator=gen)
    x = torch.randn(1024, 322, generator=gen)

    def forward() -> torch.Tensor:
        h = x
        for j, w in enumerate(layers):
            h = torch.nn.functional.linear(h, w)
            h = torch.tanh(h) if j < len(layers) - 1 else h
        return (torch.nn.functional.linear(x_class, w_class).float().square().mean()
                + h.float().square().mean())

    def once(precision: str) -> float:
        t0 = time.perf_counter()
        with _autocast(precision):
            loss = forward()
        loss.backward()
        return time.perf_counter() - t0

    best = {"fp32": float("inf"), "bf16": float("inf")}
    for k in range(rounds + 2):  # two warm-up rounds, then the timed ones
        for precision in ("fp32", "bf16"):
            took = once(precision)
            if k >= 2:
                best[precision] = min(best[precision], took)
    return best["fp32"] / best["bf16"]


def bf16_fast() -> bool:
    """Whether bfloat16 is faster than float32 here: bfloat16 products
    (:func:`bf16_available`) on AMX tiles, or measured at least :data:`AUTO_MIN_SPEEDUP`
    times faster for the policy's products on this CPU (:func:`bf16_speedup`)."""
    if not bf16_available():
        return False
    return _amx() or bf16_speedup() >= AUTO_MIN_SPEEDUP


def resolve_precision(requested: Requested) -> Precision:
    """The precision a run uses for ``requested``: ``"auto"`` is ``"bf16"`` where it is
    faster (:func:`bf16_fast`, measured once per process), else ``"fp32"``; ``"bf16"`` is
    ``"bf16"`` where the CPU computes it, else ``"fp32"`` with one warning; ``"fp32"`` is
    ``"fp32"``.

    Raises:
        ValueError: ``requested`` is none of ``"fp32"``, ``"bf16"``, ``"auto"``.
    """
    if requested not in ("fp32", "bf16", "auto"):
        raise ValueError(f"precision must be 'fp32', 'bf16' or 'auto', got {requested!r}")
    if requested == "auto":
        return "bf16" if bf16_fast() else "fp32"
    if requested == "bf16" and not bf16_available():
        warnings.warn("ppo.precision: bf16 asked for, but this CPU has no bfloat16 products "
                      "(AVX512-BF16 or AMX); training in fp32", RuntimeWarning, stacklevel=2)
        return "fp32"
    return requested


def _autocast(precision: str):
    if precision == "bf16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


class MixedMlpExtractor(MlpExtractor):
    """SB3's ``MlpExtractor`` (the same layers and parameter names) whose hidden layers
    run in :attr:`precision` and return float32 latents."""

    precision: str = "fp32"

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        with _autocast(self.precision):
            out = self.policy_net(features)
        return out.float()

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        with _autocast(self.precision):
            out = self.value_net(features)
        return out.float()

    def forward_split(self, net: torch.nn.Sequential, observations: torch.Tensor,
                      extra: torch.Tensor) -> torch.Tensor:
        """The latent of ``net`` (:attr:`policy_net` or :attr:`value_net`) at the features
        ``[observations | extra]`` without forming them (:func:`_first_layer_split`): the
        backward pass then computes the gradient of ``extra`` alone, not of the
        observation's columns, which need none. ``observations`` float32 ``[B, N]``,
        ``extra`` ``[B, M]``; a float32 latent ``[B, out]``. The same function as
        :meth:`forward_actor` / :meth:`forward_critic` of the concatenated features, to
        float rounding.

        Raises:
            ValueError: ``net``'s first layer is not a ``Linear`` of ``N + M`` inputs.
        """
        with _autocast(self.precision):
            out = _first_layer_split(net, observations, extra)
        return out.float()


def _first_layer_split(net: torch.nn.Sequential, observations: torch.Tensor,
                       extra: torch.Tensor) -> torch.Tensor:
    """``net(cat([observations, extra], 1))`` with its first ``Linear`` computed as two
    products, one with each part (``[B, N]`` and ``[B, M]``), summed. Under a bf16 autocast
    each product is rounded to bf16 before the sum: one rounding more than the product over
    the concatenated features (the log-probabilities of the shipped Classic reference move
    by about 0.005 from fp32 either way). With no layers, the latent is the features.

    Raises:
        ValueError: the first layer is not a ``Linear`` of ``N + M`` inputs.
    """
    if len(net) == 0:
        return torch.cat([observations, extra], dim=1)
    first, n = net[0], observations.shape[1]
    if not isinstance(first, torch.nn.Linear) or first.in_features != n + extra.shape[1]:
        raise ValueError(f"the first layer must be a Linear of {n} + {extra.shape[1]} inputs, "
                         f"got {first}")
    out = (torch.nn.functional.linear(observations, first.weight[:, :n], first.bias)
           + torch.nn.functional.linear(extra, first.weight[:, n:]))
    for layer in itertools.islice(net, 1, None):
        out = layer(out)
    return out


class MixedPrecisionPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose features extractor and hidden layers run in
    :attr:`precision` (``"fp32"`` unless :func:`set_precision` says otherwise): the same
    parameters, the same ``state_dict`` keys, float32 heads and distribution."""

    precision: str = "fp32"

    def __init__(self, *args, optimizer_class=torch.optim.Adam, optimizer_kwargs=None,
                 **kwargs) -> None:
        if optimizer_kwargs is None and optimizer_class is torch.optim.Adam:
            # sb3's Adam (eps 1e-5) in torch's fused kernel: one pass over all parameters
            # instead of several operations per tensor (a third of the step's time here)
            optimizer_kwargs = {"eps": 1e-5, "fused": True}
        super().__init__(*args, optimizer_class=optimizer_class,
                         optimizer_kwargs=optimizer_kwargs, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = MixedMlpExtractor(self.features_dim, net_arch=self.net_arch,
                                               activation_fn=self.activation_fn,
                                               device=self.device)
        self.mlp_extractor.precision = self.precision

    def extract_features(self, obs, features_extractor=None):
        with _autocast(self.precision):
            return super().extract_features(obs, features_extractor)

    def _features(self, obs, extractor) -> torch.Tensor:
        """One extractor's features in :attr:`precision` (sb3-contrib's
        ``get_distribution`` and ``predict_values`` call the base class's
        ``extract_features``, which would skip the autocast)."""
        with _autocast(self.precision):
            return BaseModel.extract_features(self, obs, extractor)

    def _class_parts(self, obs, extractor) -> tuple[torch.Tensor, torch.Tensor]:
        """The two parts of the card-class extractor's features: the observation (float32
        ``[B, N]``, preprocessed as SB3 does) and the extractor's numbers (``[B, 15 *
        channels]``, computed in :attr:`precision` from the observation cast once)."""
        obs = preprocess_obs(obs, self.observation_space, normalize_images=self.normalize_images)
        with _autocast(self.precision):
            x = obs.to(torch.bfloat16) if self.precision == "bf16" else obs
            return obs, extractor.class_features(x)

    def _latent(self, obs, critic: bool) -> torch.Tensor:
        """The actor's (or with ``critic`` the critic's) float32 latent at ``obs``, each from
        its own extractor; the card-class extractor's parts side by side
        (:meth:`MixedMlpExtractor.forward_split`)."""
        extractor = self.vf_features_extractor if critic else self.pi_features_extractor
        mlp = self.mlp_extractor
        if isinstance(extractor, CardClassFeatures):
            net = mlp.value_net if critic else mlp.policy_net
            return mlp.forward_split(net, *self._class_parts(obs, extractor))
        features = self._features(obs, extractor)
        return mlp.forward_critic(features) if critic else mlp.forward_actor(features)

    def get_distribution(self, obs, action_masks=None):
        """sb3-contrib's masked distribution at ``obs``, the same arithmetic as
        :meth:`forward` (the evaluation's and DAgger's passes)."""
        distribution = self._get_action_dist_from_latent(self._latent(obs, critic=False))
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def predict_values(self, obs) -> torch.Tensor:
        """Values ``float32 [B, 1]``, the same arithmetic as :meth:`forward` (SB3
        bootstraps a rollout's last and truncated steps with it)."""
        return self.value_net(self._latent(obs, critic=True))

    # The rollout's and the update's passes without a distribution object: the same
    # masked categorical as sb3-contrib's MaskableCategorical (masked logits -1e8, a
    # masked action's entropy term 0), a third of the operations.
    def _log_probs(self, latent_pi: torch.Tensor, action_masks) -> tuple[torch.Tensor,
                                                                        torch.Tensor | None]:
        logits = self.action_net(latent_pi)
        masks = None
        if action_masks is not None:
            masks = torch.as_tensor(action_masks, dtype=torch.bool).reshape(logits.shape)
            logits = logits.masked_fill(~masks, HUGE_NEG)
        return torch.log_softmax(logits, dim=-1), masks

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The actor's and the critic's float32 latents at ``obs``: the same arithmetic as
        :meth:`_latent` of each, a shared extractor computed once."""
        if not self.share_features_extractor:
            return self._latent(obs, critic=False), self._latent(obs, critic=True)
        extractor, mlp = self.features_extractor, self.mlp_extractor
        if not isinstance(extractor, CardClassFeatures):
            return mlp(self.extract_features(obs))
        parts = self._class_parts(obs, extractor)
        return mlp.forward_split(mlp.policy_net, *parts), mlp.forward_split(mlp.value_net, *parts)

    def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks=None):
        """Actions ``int64 [B]`` (sampled, or the most likely with ``deterministic``),
        values ``float32 [B, 1]`` and the actions' log-probabilities ``float32 [B]``, as
        sb3-contrib's; a sample by the Gumbel-max trick, one uniform draw per action."""
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        log_probs, _ = self._log_probs(latent_pi, action_masks)
        if deterministic:
            actions = log_probs.argmax(dim=-1)
        else:
            actions = (log_probs + gumbel_noise(log_probs)).argmax(dim=-1)
        log_prob = log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks=None):
        """Values ``[B, 1]``, log-probabilities ``[B]`` of ``actions`` and entropies ``[B]``
        (float32), as sb3-contrib's."""
        latent_pi, latent_vf = self._latents(obs)
        log_probs, masks = self._log_probs(latent_pi, action_masks)
        log_prob = log_probs.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        # a masked action's log-probability is about -1e8, whose exp() takes a slow path
        # of the CPU's exp kernel (ten times the time of the rest); below -80 a
        # probability (< 2e-35) adds nothing to the entropy at float32's precision
        p_log_p = log_probs.clamp_min(-80.0).exp() * log_probs
        if masks is not None:
            p_log_p = p_log_p.masked_fill(~masks, 0.0)
        return self.value_net(latent_vf), log_prob, -p_log_p.sum(-1)


def sample_masked(policy, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Actions ``int64 [B]`` sampled from ``policy``'s masked action distribution at
    ``obs`` (``float32 [B, N]``; ``masks`` bool ``[B, A]``, at least one legal action per
    row), by the Gumbel-max trick as :meth:`MixedPrecisionPolicy.forward`: the actor's
    pass only (no value head, no distribution object), in the policy's precision.
    ``policy`` is any sb3-contrib ``MaskableActorCriticPolicy`` (a loaded opponent; its
    features extractor shared with the value function or not). Call under
    ``torch.no_grad()``."""
    with _autocast(getattr(policy, "precision", "fp32")):
        # the base class's: the actor's extractor alone, shared or not
        features = BaseModel.extract_features(policy, obs, policy.pi_features_extractor)
    logits = policy.action_net(policy.mlp_extractor.forward_actor(features)).float()
    logits = logits.masked_fill(~masks, HUGE_NEG)
    return (logits + gumbel_noise(logits)).argmax(dim=-1)


def fuse_adam(optimizer) -> None:
    """Have ``optimizer`` step in torch's fused kernel if it is an Adam, as a new
    :class:`MixedPrecisionPolicy`'s does: a checkpoint's optimiser state, once loaded,
    brings the saved ``fused`` setting back (``None`` in checkpoints saved before it was
    set), so a resumed run calls this after loading. The same update rule, within float
    rounding; the moment estimates and step counts carry over."""
    if type(optimizer) is torch.optim.Adam:
        for group in optimizer.param_groups:
            group["fused"] = True
            group["foreach"] = None


def set_precision(policy, precision: Precision) -> None:
    """Run ``policy`` (a :class:`MixedPrecisionPolicy`) in ``precision`` from now on.

    Raises:
        TypeError: ``policy`` is another class (e.g. a checkpoint saved before this
            class existed, loaded as sb3-contrib's policy).
        ValueError: ``precision`` is not ``"fp32"`` or ``"bf16"``.
    """
    if precision not in ("fp32", "bf16"):
        raise ValueError(f"precision must be 'fp32' or 'bf16', got {precision!r}")
    if not isinstance(policy, MixedPrecisionPolicy):
        if precision == "fp32":
            return
        raise TypeError(f"{type(policy).__name__} has no precision setting; bf16 needs "
                        f"{MixedPrecisionPolicy.__name__}")
    policy.precision = precision
    policy.mlp_extractor.precision = precision


__all__ = ["MixedPrecisionPolicy", "MixedMlpExtractor", "set_precision", "sample_masked",
           "gumbel_noise", "GUMBEL_FLOOR", "HUGE_NEG",
           "fuse_adam", "bf16_speedup", "AUTO_MIN_SPEEDUP",
           "bf16_available", "resolve_precision", "bf16_fast", "Precision", "Requested"]
