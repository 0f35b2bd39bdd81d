"""Warm start: behaviour cloning of the heuristic before masked PPO.

The heuristic plays all four seats through :class:`canasta_env.raw_env`; every decision
is recorded as (observation, action mask, action, the deciding partnership's discounted
hand reward). The policy network is then fitted to those actions with the masked
cross-entropy (the same masked distribution PPO samples from) and the value head to the
rewards, so PPO starts from a legal, sensible player instead of a uniform one.
"""

from __future__ import annotations

import numpy as np

from canasta_env import raw_env
from canasta_env.policies import HeuristicPolicy


def collect(decisions: int, seed: int, gamma: float, **env_kwargs):
    """Heuristic self-play data.

    Returns:
        ``(obs float32 [N, OBS_SIZE], masks bool [N, A], actions int64 [N],
        returns float32 [N])`` with N >= ``decisions`` (whole hands); returns are the
        deciding partnership's hand reward discounted by ``gamma`` per decision.
    """
    env = raw_env(**env_kwargs)
    policy = HeuristicPolicy()
    obs, masks, acts, rets = [], [], [], []
    hand = 0
    while len(acts) < decisions:
        env.reset(seed=seed * 100_003 + hand)
        hand += 1
        start = len(acts)
        teams = []
        while not (env.terminations["player_0"] or env.truncations["player_0"]):
            agent = env.agent_selection
            o = env.observe(agent)
            a = policy.act(o["observation"], o["action_mask"])
            obs.append(o["observation"])
            masks.append(o["action_mask"].astype(bool))
            acts.append(a)
            teams.append(int(agent[-1]) % 2)
            env.step(a)
        r0 = env.rewards["player_0"] if env.terminations["player_0"] else 0.0
        n = len(acts) - start
        for k, t in enumerate(teams):
            rets.append((r0 if t == 0 else -r0) * gamma ** (n - 1 - k))
    return (np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(acts, np.int64),
            np.asarray(rets, np.float32))


def behaviour_clone(model, data, epochs: int, batch_size: int, learning_rate: float,
                    seed: int = 0) -> dict:
    """Fit ``model.policy`` (MaskablePPO) to the heuristic's actions and returns.

    Returns:
        ``{"accuracy": fraction of decisions where the masked argmax equals the
        heuristic's action, "loss": last epoch's mean policy loss}`` on the data.
    """
    import torch

    obs, masks, acts, rets = data
    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    gen = np.random.default_rng(seed)
    n = len(acts)
    obs_t = torch.as_tensor(obs)
    act_t = torch.as_tensor(acts)
    ret_t = torch.as_tensor(rets)
    last = 0.0
    for _ in range(epochs):
        order = gen.permutation(n)
        total = 0.0
        for i in range(0, n, batch_size):
            idx = order[i:i + batch_size]
            dist = policy.get_distribution(obs_t[idx], action_masks=masks[idx])
            pol_loss = -dist.log_prob(act_t[idx]).mean()
            values = policy.predict_values(obs_t[idx]).flatten()
            loss = pol_loss + 0.5 * torch.nn.functional.mse_loss(values, ret_t[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            total += float(pol_loss.detach()) * len(idx)
        last = total / n
    with torch.no_grad():
        correct = 0
        for i in range(0, n, 4096):
            dist = policy.get_distribution(obs_t[i:i + 4096], action_masks=masks[i:i + 4096])
            pred = dist.distribution.logits.argmax(dim=1)
            correct += int((pred == act_t[i:i + 4096]).sum())
    return {"accuracy": correct / n, "loss": last}
