"""Card-class features extractor for the policy and value networks.

Most of the observation is organised per card class (15 classes: Joker, 2, black 3,
red 3, 4 .. A): my hand, the cards known in each other hand, our and their melds, the
discard pile and its upcard. Many decisions compare classes with each other -- which
card to discard, which meld to add to -- by the same reasoning applied to each class
(how many copies are unseen, could the next player take the pile with it, is it in a
meld). A plain MLP has to learn that reasoning once per class; :class:`CardClassFeatures`
learns it once: a small MLP shared by all classes reads, for each class, its own entries
of those pieces, a one-hot of the class and the observation's global entries (hand sizes,
pile size and frozen state, stock, minimums, phase, turn state), and writes
``channels`` numbers per class. The extractor's output is the observation itself followed
by those ``15 * channels`` numbers; SB3's policy and value MLPs (``net_arch``) read it.

Works for every observation layout of :mod:`canasta_env.observation` (Hand and Foot
appends its pieces after the Classic ones, which keep their place). Imported by
MaskablePPO checkpoints trained with ``ppo.features: card_classes``: a checkpoint
stores this class by reference, so loading it needs this module (part of the package).
"""

from __future__ import annotations

import numbers

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from canasta_env.engine.cards import NUM_CLASSES
from canasta_env.observation import MELD_SLOTS, OBS_SIZE, SLICES
from training.common.config import CLASS_LAYERS

#: per-class pieces, one entry per card class
_CLASS_PIECES = ("hand", "known_left", "known_partner", "known_right", "pile_contents",
                 "pile_top")
#: per-meld-rank pieces (entries for the classes in MELD_SLOTS; zero for the others)
_MELD_PIECES = ("melds_us_naturals", "melds_us_jokers", "melds_us_twos",
                "melds_them_naturals", "melds_them_jokers", "melds_them_twos")
#: global pieces every class sees
_GLOBAL_PIECES = ("hand_sizes", "red_threes", "pile_size", "pile_frozen", "stop_card",
                  "stock_size", "opening_minimums", "opened", "phase", "turn_state")


def class_indices(obs_size: int) -> tuple[list[list[int]], list[int]]:
    """Observation positions read for each card class (``[15][12]``; ``obs_size`` stands
    for a constant zero) and the global positions (``[G]``)."""
    rows = []
    for c in range(NUM_CLASSES):
        idx = [SLICES[k].start + c for k in _CLASS_PIECES]
        idx += [SLICES[k].start + MELD_SLOTS.index(c) if c in MELD_SLOTS else obs_size
                for k in _MELD_PIECES]
        rows.append(idx)
    glob = [i for k in _GLOBAL_PIECES for i in range(SLICES[k].start, SLICES[k].stop)]
    return rows, glob


class CardClassFeatures(BaseFeaturesExtractor):
    """Observation ``float32 [B, N]`` -> features ``float32 [B, N + 15 * channels]``.

    Args:
        observation_space: a ``Box`` of shape ``(N,)`` holding the Classic layout first
            (N = 202 for Classic, 245 for Hand and Foot).
        hidden: width of the hidden layers of the shared per-class MLP.
        channels: numbers written per card class.
        layers: how many hidden layers (ReLU) the shared MLP has, at least 1.

    Raises:
        ValueError: the observation space is not a 1-D box at least as long as the
            Classic layout, or ``layers`` < 1.
    """

    def __init__(self, observation_space: gym.spaces.Box, hidden: int = 64,
                 channels: int = 8, layers: int = CLASS_LAYERS) -> None:
        shape = getattr(observation_space, "shape", None)
        if shape is None or len(shape) != 1 or shape[0] < OBS_SIZE:
            raise ValueError(f"CardClassFeatures needs a 1-D observation of at least {OBS_SIZE} "
                             f"entries (the canasta_env layout), got shape {shape}")
        if isinstance(layers, bool) or not isinstance(layers, numbers.Integral) or layers < 1:
            raise ValueError(f"CardClassFeatures needs a whole number of hidden layers, at "
                             f"least 1, got {layers!r}")
        n = int(shape[0])
        super().__init__(observation_space, features_dim=n + NUM_CLASSES * channels)
        rows, glob = class_indices(n)
        self.register_buffer("class_idx", torch.tensor(rows, dtype=torch.long), persistent=False)
        self.register_buffer("global_idx", torch.tensor(glob, dtype=torch.long), persistent=False)
        self.register_buffer("class_onehot", torch.eye(NUM_CLASSES), persistent=False)
        d = len(rows[0]) + NUM_CLASSES + len(glob)
        body: list[torch.nn.Module] = [torch.nn.Linear(d, hidden), torch.nn.ReLU()]
        for _ in range(int(layers) - 1):
            body += [torch.nn.Linear(hidden, hidden), torch.nn.ReLU()]
        self.shared = torch.nn.Sequential(*body, torch.nn.Linear(hidden, channels))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return torch.cat([observations, self.class_features(observations)], dim=1)

    def class_features(self, observations: torch.Tensor) -> torch.Tensor:
        """The shared MLP's numbers alone, the part of :meth:`forward`'s output after the
        observation: observation ``[B, N]`` -> ``[B, 15 * channels]``, class by class.
        ``observations`` is float32, or bfloat16 under a bf16 autocast (the gathers then
        move half the bytes and the first layer's input needs no cast); the output is in
        the dtype of the MLP's last product (bfloat16 under that autocast).

        Raises:
            RuntimeError: a bfloat16 observation outside a bf16 autocast (torch's dtype
                mismatch in the first product).
        """
        b = observations.shape[0]
        padded = torch.cat([observations, observations.new_zeros(b, 1)], dim=1)
        per_class = padded[:, self.class_idx]                              # [B, 15, 12]
        glob = observations[:, self.global_idx].unsqueeze(1).expand(b, NUM_CLASSES, -1)
        onehot = self.class_onehot.to(observations.dtype).unsqueeze(0).expand(b, -1, -1)
        h = self.shared(torch.cat([per_class, onehot, glob], dim=2))       # [B, 15, C]
        return h.flatten(1)
