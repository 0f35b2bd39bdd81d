"""Warm start: behaviour cloning of the heuristic before masked PPO.

The heuristic plays all four seats through :class:`canasta_env.raw_env`; every decision
is recorded as (observation, action mask, action, the deciding partnership's discounted
hand reward). The policy network is then fitted to those actions with the masked
cross-entropy (the same masked distribution PPO samples from) and the value head to the
rewards, so PPO starts from a legal, sensible player instead of a uniform one.

Cloning alone learns the heuristic's moves on the heuristic's own positions; once the
clone plays, its small mistakes lead it to positions the heuristic never reached, and
errors compound. :func:`dagger` (DAgger, Ross, Gordon & Bagnell 2011) fixes that: the
clone plays its partnership against random and heuristic opponents, the heuristic labels
every position the clone reached, and the network is refitted on all data gathered so
far, for a few rounds.
"""

from __future__ import annotations

import sys

import numpy as np
from tqdm import tqdm

from canasta_env import raw_env
from canasta_env.policies import HeuristicPolicy


def _bar(total: int, desc: str, unit: str, progress: bool) -> tqdm:
    """A progress bar on stderr with its rate and time left (off unless ``progress``)."""
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not progress,
                dynamic_ncols=True, leave=False)


def _returns(reward: float, n: int, gamma: float) -> list[float]:
    """``reward`` discounted by ``gamma`` per decision for each of ``n`` decisions (the
    last decision gets ``reward``)."""
    return [reward * gamma ** (n - 1 - k) for k in range(n)]


def collect(decisions: int, seed: int, gamma: float, progress: bool = False, **env_kwargs):
    """Heuristic self-play data (a progress bar on stderr with ``progress``).

    Returns:
        ``(obs float32 [N, OBS_SIZE], masks bool [N, A], actions int64 [N],
        returns float32 [N])`` with N >= ``decisions`` (whole hands); returns are the
        deciding partnership's hand reward discounted by ``gamma`` per decision.
    """
    env = raw_env(**env_kwargs)
    policy = HeuristicPolicy()
    obs, masks, acts, rets = [], [], [], []
    hand = 0
    bar = _bar(decisions, "warm start: heuristic play", "decision", progress)
    while len(acts) < decisions:
        bar.update(min(len(acts), decisions) - bar.n)
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
        discounts = _returns(1.0, len(acts) - start, gamma)
        rets.extend((r0 if t == 0 else -r0) * d for t, d in zip(teams, discounts))
    bar.close()
    return (np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(acts, np.int64),
            np.asarray(rets, np.float32))


def collect_on_policy(model, decisions: int, seed: int, gamma: float, progress: bool = False,
                      **env_kwargs):
    """Positions the model reaches, labelled with the heuristic's actions (DAgger data).

    The model (deterministic: the most likely legal action) plays one partnership, both
    seats, alternating by hand; the opponents alternate between the random policy and the
    heuristic, two hands each. Only the model's own decisions are recorded.

    Returns:
        ``(obs float32 [N, OBS_SIZE], masks bool [N, A], heuristic actions int64 [N],
        returns float32 [N], agreement)`` with N >= ``decisions`` (whole hands); returns
        are the model partnership's hand reward discounted by ``gamma`` per decision;
        ``agreement`` is the fraction of those decisions where the model chose the
        heuristic's action.
    """
    from canasta_env.policies import RandomPolicy

    from .checkpoint import CheckpointPolicy

    env = raw_env(**env_kwargs)
    teacher = HeuristicPolicy()
    student = CheckpointPolicy(model, deterministic=True)
    rng = np.random.default_rng(seed)
    obs, masks, acts, rets = [], [], [], []
    agree = 0
    hand = 0
    bar = _bar(decisions, "DAgger: the clone plays", "decision", progress)
    while len(acts) < decisions:
        bar.update(min(len(acts), decisions) - bar.n)
        env.reset(seed=int(rng.integers(2**62)))
        team = hand % 2
        opponent = (RandomPolicy(seed=int(rng.integers(2**31))) if hand % 4 < 2
                    else HeuristicPolicy())
        hand += 1
        start = len(acts)
        while not (env.terminations["player_0"] or env.truncations["player_0"]):
            agent = env.agent_selection
            o = env.observe(agent)
            ob, mask = o["observation"], o["action_mask"]
            if int(agent[-1]) % 2 != team:
                env.step(opponent.act(ob, mask))
                continue
            label = teacher.act(ob, mask)
            a = student.act(ob, mask)
            agree += a == label
            obs.append(ob)
            masks.append(mask.astype(bool))
            acts.append(label)
            env.step(a)
        r0 = env.rewards["player_0"] if env.terminations["player_0"] else 0.0
        rets.extend(_returns(r0 if team == 0 else -r0, len(acts) - start, gamma))
    bar.close()
    return (np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(acts, np.int64),
            np.asarray(rets, np.float32), agree / max(1, len(acts)))


def dagger_learning_rates(rounds: int, first: float, last: float | None = None) -> list[float]:
    """Refit learning rate of each DAgger round: geometric steps from ``first`` to
    ``last`` (constant when ``last`` is None)."""
    if last is None or rounds == 1:
        return [first] * rounds
    return [first * (last / first) ** (k / (rounds - 1)) for k in range(rounds)]


def dagger(model, data, rounds: int, decisions: int, epochs: int, batch_size: int,
           learning_rate: float, seed: int, gamma: float, final_learning_rate: float | None = None,
           progress: bool = False, **env_kwargs) -> dict:
    """``rounds`` rounds of DAgger after :func:`behaviour_clone`: each round collects
    ``decisions`` positions of the model's own play labelled by the heuristic
    (:func:`collect_on_policy`), adds them to ``data`` and refits for ``epochs`` epochs
    (learning rates from :func:`dagger_learning_rates`).

    Returns:
        ``{"dagger_agreement_<k>": agreement of round k's play with the heuristic, ...,
        "dagger_decisions": size of the final data set}``.
    """
    parts = [list(data)]
    out: dict = {}
    rates = dagger_learning_rates(rounds, learning_rate, final_learning_rate)
    for k in range(rounds):
        *new, agreement = collect_on_policy(model, decisions, seed * 7919 + 104_729 * (k + 1),
                                            gamma, progress=progress, **env_kwargs)
        out[f"dagger_agreement_{k}"] = agreement
        parts.append(new)
        merged = tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
        behaviour_clone(model, merged, epochs, batch_size, rates[k], seed=seed + k + 1,
                        progress=progress)
        print(f"DAgger round {k + 1}/{rounds}: the clone agreed with the heuristic on "
              f"{agreement:.3f} of its {len(new[2])} decisions; refitted on {len(merged[2])}",
              flush=True)
    out["dagger_decisions"] = sum(len(p[2]) for p in parts)
    return out


def behaviour_clone(model, data, epochs: int, batch_size: int, learning_rate: float,
                    seed: int = 0, progress: bool = False) -> dict:
    """Fit ``model.policy`` (MaskablePPO) to the heuristic's actions and returns (a
    progress bar of minibatches on stderr with ``progress``).

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
    bar = _bar(epochs * -(-n // batch_size), "fitting the heuristic's moves", "batch", progress)
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
            bar.update(1)
        last = total / n
    bar.close()
    with torch.no_grad():
        correct = 0
        for i in range(0, n, 4096):
            dist = policy.get_distribution(obs_t[i:i + 4096], action_masks=masks[i:i + 4096])
            pred = dist.distribution.logits.argmax(dim=1)
            correct += int((pred == act_t[i:i + 4096]).sum())
    return {"accuracy": correct / n, "loss": last}
