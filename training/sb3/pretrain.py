"""Warm start: behaviour cloning of the heuristic before masked PPO.

The heuristic plays all four seats of many games side by side on the native core; every decision
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

from canasta_env.policies import HeuristicPolicy
from training.common.progress import progress_bar


def _bar(total: int, desc: str, unit: str, progress: bool):
    """A progress bar on stderr with its rate and time left (off unless ``progress``):
    plain lines when stderr is not a terminal (:mod:`training.common.progress`)."""
    return progress_bar(total, desc, unit, progress, sys.stderr)


def _returns(reward: float, n: int, gamma: float) -> list[float]:
    """``reward`` discounted by ``gamma`` per decision for each of ``n`` decisions (the
    last decision gets ``reward``)."""
    return [reward * gamma ** (n - 1 - k) for k in range(n)]


def collect(decisions: int, seed: int, gamma: float, progress: bool = False,
            games: int = 64, returns: str = "score_diff", **env_kwargs):
    """Heuristic self-play data, ``games`` hands played side by side on the native core
    (:class:`canasta_env.native.VectorGames`; the heuristic decides every game's seat on
    turn in one batch), with a progress bar on stderr with ``progress``.

    ``returns`` is the hand reward the value head is fitted to, one of
    :data:`training.sb3.batched.REWARDS` (:func:`~training.sb3.batched.hand_reward`; the
    config's ``pretrain.value_returns``). ``env_kwargs`` are
    :func:`training.sb3.train.env_kwargs`' (variant, reward_scale, max_decisions,
    starting_scores or starting_round; their reward mode is ignored: ``returns`` says).
    The same arguments give the same data.

    Returns:
        ``(obs float32 [N, obs size], masks bool [N, A], actions int64 [N],
        returns float32 [N])`` with N >= ``decisions`` (whole hands, in the order they
        finished); returns are the deciding partnership's hand reward discounted by
        ``gamma`` per decision of the hand.

    Raises:
        ValueError: ``returns`` is not one of the rewards (``reward must be one of ...``).
    """
    from canasta_env.engine import preset
    from canasta_env.native import VectorGames

    from .batched import check_reward, heuristic_actions, native_hand_reward, native_reward_scale

    check_reward(returns)
    kw = dict(env_kwargs)
    scale = kw.get("reward_scale", 0.001)
    vg = VectorGames(games, preset(kw.get("variant", "classic")), seed=seed * 100_003,
                     reward_scale=native_reward_scale(returns, scale),
                     starting_scores=kw.get("starting_scores", (0, 0)),
                     starting_round=kw.get("starting_round", 1))
    max_decisions = kw.get("max_decisions", 2000)
    policy = HeuristicPolicy()
    open_obs = [[] for _ in range(games)]   # the running hand's records per game
    open_mask = [[] for _ in range(games)]
    open_act = [[] for _ in range(games)]
    open_team = [[] for _ in range(games)]
    obs, masks, acts, rets = [], [], [], []
    bar = _bar(decisions, "warm start: heuristic play", "decision", progress)
    recorded = 0
    while recorded < decisions:
        a = heuristic_actions(policy, vg.observations, vg.masks)
        o, m, tm = vg.observations.copy(), vg.masks.astype(bool), vg.to_move.copy()
        vg.step(a)
        over = []
        for i in range(games):
            open_obs[i].append(o[i])
            open_mask[i].append(m[i])
            open_act[i].append(int(a[i]))
            open_team[i].append(int(tm[i]) % 2)
            if len(open_act[i]) >= max_decisions and not vg.dones[i]:
                over.append(i)  # truncated: dropped, as the env's truncation
        for i in np.flatnonzero(vg.dones):
            r0 = float(native_hand_reward(vg.rewards[i, 0], returns, scale))
            n = len(open_act[i])
            obs.extend(open_obs[i])
            masks.extend(open_mask[i])
            acts.extend(open_act[i])
            rets.extend((r0 if t == 0 else -r0) * d
                        for t, d in zip(open_team[i], _returns(1.0, n, gamma)))
            recorded += n
            open_obs[i], open_mask[i], open_act[i], open_team[i] = [], [], [], []
        if over:
            vg.redeal(over)
            for i in over:
                open_obs[i], open_mask[i], open_act[i], open_team[i] = [], [], [], []
        bar.update(min(recorded, decisions) - bar.n)
    bar.close()
    return (np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(acts, np.int64),
            np.asarray(rets, np.float32))


def collect_on_policy(model, decisions: int, seed: int, gamma: float, progress: bool = False,
                      games: int = 64, returns: str = "score_diff", **env_kwargs):
    """Positions the model reaches, labelled with the heuristic's actions (DAgger data).

    The model (deterministic: the most likely legal action, one forward per batch of
    ``games`` games) plays one partnership, both seats, against random and heuristic
    opponents (half each, drawn per hand) in a
    :class:`training.sb3.batched.BatchedPartnershipVecEnv`; the heuristic labels every
    decision of the model in one batch. Only the model's own decisions are recorded.

    Returns:
        ``(obs float32 [N, obs size], masks bool [N, A], heuristic actions int64 [N],
        returns float32 [N], agreement)`` with N >= ``decisions`` (whole hands); returns
        are the model partnership's hand reward discounted by ``gamma`` per decision;
        ``agreement`` is the fraction of those decisions where the model chose the
        heuristic's action. Hands cut by ``max_decisions`` are left out. ``returns``
        names the hand reward, one of :data:`training.sb3.batched.REWARDS`, as in
        :func:`collect`.

    Raises:
        ValueError: ``returns`` is not one of the rewards (``reward must be one of ...``).
    """
    import torch

    from .batched import heuristic_actions, make_batched_env

    kw = dict(env_kwargs)
    kw["reward"] = returns
    env = make_batched_env(games, kw.get("variant", "classic"),
                           {"random": 0.5, "heuristic": 0.5}, seed, kw)
    teacher = HeuristicPolicy()
    policy = model.policy
    cur = env.reset()
    open_obs = [[] for _ in range(games)]
    open_mask = [[] for _ in range(games)]
    open_act = [[] for _ in range(games)]
    open_agree = [0] * games
    obs, masks, acts, rets = [], [], [], []
    agree = 0
    recorded = 0
    bar = _bar(decisions, "DAgger: the clone plays", "decision", progress)
    while recorded < decisions:
        m = env.action_masks()
        labels = heuristic_actions(teacher, cur, env.vg.masks)
        with torch.no_grad():
            dist = policy.get_distribution(torch.as_tensor(cur), action_masks=m)
            a = dist.distribution.logits.argmax(dim=1).numpy()
        for i in range(games):
            open_obs[i].append(cur[i])
            open_mask[i].append(m[i])
            open_act[i].append(int(labels[i]))
            open_agree[i] += int(a[i] == labels[i])
        env.step_async(a)
        cur, reward, done, infos = env.step_wait()
        for i in np.flatnonzero(done):
            n = len(open_act[i])
            if not infos[i].get("TimeLimit.truncated"):
                obs.extend(open_obs[i])
                masks.extend(open_mask[i])
                acts.extend(open_act[i])
                rets.extend(_returns(float(reward[i]), n, gamma))
                recorded += n
                agree += open_agree[i]
            open_obs[i], open_mask[i], open_act[i] = [], [], []
            open_agree[i] = 0
        bar.update(min(recorded, decisions) - bar.n)
    bar.close()
    return (np.asarray(obs, np.float32), np.asarray(masks, bool), np.asarray(acts, np.int64),
            np.asarray(rets, np.float32), agree / max(1, recorded))


def dagger_learning_rates(rounds: int, first: float, last: float | None = None) -> list[float]:
    """Refit learning rate of each DAgger round: geometric steps from ``first`` to
    ``last`` (constant when ``last`` is None)."""
    if last is None or rounds == 1:
        return [first] * rounds
    return [first * (last / first) ** (k / (rounds - 1)) for k in range(rounds)]


def dagger(model, data, rounds: int, decisions: int, epochs: int, batch_size: int,
           learning_rate: float, seed: int, gamma: float, final_learning_rate: float | None = None,
           progress: bool = False, returns: str = "score_diff", **env_kwargs) -> dict:
    """``rounds`` rounds of DAgger after :func:`behaviour_clone`: each round collects
    ``decisions`` positions of the model's own play labelled by the heuristic
    (:func:`collect_on_policy`, value targets the ``returns`` reward), adds them to ``data``
    and refits for ``epochs`` epochs (learning rates from :func:`dagger_learning_rates`).

    Returns:
        ``{"dagger_agreement_<k>": agreement of round k's play with the heuristic, ...,
        "dagger_decisions": size of the final data set}``.

    Raises:
        ValueError: ``returns`` is not one of :data:`training.sb3.batched.REWARDS`.
    """
    parts = [list(data)]
    out: dict = {}
    rates = dagger_learning_rates(rounds, learning_rate, final_learning_rate)
    for k in range(rounds):
        *new, agreement = collect_on_policy(model, decisions, seed * 7919 + 104_729 * (k + 1),
                                            gamma, progress=progress, returns=returns,
                                            **env_kwargs)
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


def minibatch_epoch(policy, opt, order, batch_size: int, losses, bar) -> float:
    """One epoch of Adam steps over ``order`` (row indices, already shuffled) in minibatches
    of ``batch_size``: ``losses(idx) -> (loss to minimise, loss to report)`` (torch
    scalars), gradients clipped to norm 1, ``bar`` advanced once per minibatch. Returns the
    reported loss summed over the rows (weighted by minibatch size). Shared by
    :func:`behaviour_clone` and ``training.search``'s distillation."""
    import torch

    total = 0.0
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        loss, report = losses(idx)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
        total += float(report.detach()) * len(idx)
        bar.update(1)
    return total


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
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate, fused=True)
    gen = np.random.default_rng(seed)
    n = len(acts)
    obs_t = torch.as_tensor(obs)
    act_t = torch.as_tensor(acts)
    ret_t = torch.as_tensor(rets)
    last = 0.0
    bar = _bar(epochs * -(-n // batch_size), "fitting the heuristic's moves", "batch", progress)
    def losses(idx):
        # one pass of the network for both heads (the policy's log-probability of the
        # heuristic's action, the value), as in the PPO update
        values, log_prob, _ = policy.evaluate_actions(obs_t[idx], act_t[idx],
                                                      action_masks=masks[idx])
        pol_loss = -log_prob.mean()
        return (pol_loss + 0.5 * torch.nn.functional.mse_loss(values.flatten(), ret_t[idx]),
                pol_loss)

    for _ in range(epochs):
        last = minibatch_epoch(policy, opt, gen.permutation(n), batch_size, losses, bar) / n
    bar.close()
    with torch.no_grad():
        correct = 0
        for i in range(0, n, 4096):
            dist = policy.get_distribution(obs_t[i:i + 4096], action_masks=masks[i:i + 4096])
            pred = dist.distribution.logits.argmax(dim=1)
            correct += int((pred == act_t[i:i + 4096]).sum())
    return {"accuracy": correct / n, "loss": last}
