"""OpenSpiel's ISMCTS bot against a policy of this package on duplicate deals.

    python -m training.openspiel_ismcts --b heuristic --hands 20
    python -m training.openspiel_ismcts --b search --hands 20 --simulations 100 --json

A (partnership of seats ``seating`` and ``seating + 2``) is OpenSpiel's own
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` playing the game
``python_canasta`` / ``python_hand_and_foot`` of :mod:`canasta_env.openspiel`, with
``--simulations`` simulations per decision (each from a fresh determinisation:
``resample_from_infostate``) and OpenSpiel's ``RandomRolloutEvaluator`` (``--rollouts``
random playouts per leaf). B is any policy spec of :func:`canasta_env.bots.load_policy`
(``heuristic``, ``search``, ``random``, ``reference``, a file, ``module:attribute``),
given the env's observation and mask (``search``: the game).

Duplicate deals as in ``training.evaluate``: deal ``i`` is the chance outcome
``deal_seed(--seed, i) mod num_deals`` of the OpenSpiel game (with sampled starting
scores, so every opening minimum occurs), played twice with the seatings swapped. The
table is ``training.evaluate``'s (:func:`training.evaluate.format_table`): win rate with
a tie as half (95% Wilson interval), mean score difference A - B per hand (95% interval
over deals), opening success by minimum. Deterministic under ``--seed``.

Cost: ISMCTS is Python (OpenSpiel's) on top of the native core: with random rollouts a
decision of 50 simulations takes a noticeable fraction of a second. Exit codes: 0, 2
(a bad option or policy: one line on stderr), 130 (Ctrl-C or SIGTERM: the table of the
deals finished is printed first).
"""

from __future__ import annotations

import json
import random
import time

import numpy as np

from canasta_env.bots.loader import PolicySpecError, load_policy, variant_hint
from canasta_env.cli import ArgumentParser, fail, interrupted, positive_int, sigterm_as_interrupt

from .evaluate import EpisodeRecord, HandRecord, deal_seed, format_table, opening_levels, summarize

GAME_NAMES = {"classic": "python_canasta", "hand_and_foot": "python_hand_and_foot"}


def load_game(variant: str = "classic"):
    """The OpenSpiel game of ``variant`` with sampled starting scores.

    Raises:
        ImportError: open_spiel is not installed (the message has the install line).
    """
    import pyspiel

    import canasta_env.openspiel  # noqa: F401  (registers the games)

    return pyspiel.load_game(f"{GAME_NAMES[variant]}(sample_scores=True)")


def make_ismcts(game, simulations: int, rollouts: int, seed: int):
    """OpenSpiel's ISMCTS bot with random-rollout leaf evaluation, seeded: its
    determinisations draw from the bot's own generator (``set_resampler``; the default
    ``pyspiel.UniformProbabilitySampler`` is not seeded by the bot)."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(seed % 2**32)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations,
                           random_state=rng)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.uniform))
    return bot


def play_hand(game, bot, policy, outcome: int, deal: int, seating: int, seed: int) -> EpisodeRecord:
    """One hand of deal ``outcome``: ``bot`` (ISMCTS) plays partnership ``seating``,
    ``policy`` the other (one handle per seat for a policy class, reset per hand)."""
    state = game.new_initial_state()
    state.apply_action(outcome)
    seats = {}
    for s in range(4):
        if s % 2 != seating:
            p = policy.for_seat() if hasattr(policy, "for_seat") else policy
            hook = getattr(p, "reset", None)
            if hook is not None:
                hook(random.Random(f"{seed}/{deal}/{seating}/{s}").getrandbits(63))
            seats[s] = p
    g = state.native
    minimum = list(g.minimum)
    opened = list(g.opened)
    decisions = 0
    while not state.is_terminal():
        seat = state.current_player()
        opened = list(g.opened)
        if seat % 2 == seating:
            action = int(bot.step(state))
        else:
            p = seats[seat]
            if hasattr(p, "act_game"):
                action = int(p.act_game(state.native, seat))
            else:
                mask = np.zeros(game.num_distinct_actions(), np.int8)
                mask[state.legal_actions()] = 1
                action = int(p.act(g.encode(seat), mask))
        state.apply_action(action)
        decisions += 1
    truncated = not g.hand_over
    if truncated:
        return EpisodeRecord(deal, seating, (), 0, 0, True)
    sheets = g.sheets
    a, b = seating, 1 - seating
    out = [sheets[t].going_out > 0 for t in (0, 1)]
    hand = HandRecord(deal=deal, seating=seating, score_a=sheets[a].hand_score,
                      score_b=sheets[b].hand_score, minimum_a=minimum[a], minimum_b=minimum[b],
                      opened_a=opened[a] or out[a], opened_b=opened[b] or out[b],
                      went_out="A" if out[a] else "B" if out[b] else "", decisions=decisions)
    return EpisodeRecord(deal, seating, (hand,), hand.score_a, hand.score_b, False)


def evaluate_ismcts(b: str = "heuristic", hands: int = 20, *, variant: str = "classic",
                    seed: int = 0, simulations: int = 50, rollouts: int = 1,
                    progress: bool = False) -> dict:
    """ISMCTS (A) against policy ``b`` on ``ceil(hands / 2)`` duplicate deals; the figures
    of :func:`training.evaluate.summarize` plus the run's parameters.

    Raises:
        PolicySpecError: ``b`` names no policy, or one of another variant (loaded and
            checked before the first deal).
        ValueError: a bad count; an unknown variant.
        ImportError: open_spiel is missing.
        KeyboardInterrupt: Ctrl-C, with ``.result`` set to the figures of the deals
            finished (both seatings each).
    """
    for name, v in (("hands", hands), ("simulations", simulations), ("rollouts", rollouts)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    policy = load_policy(b, variant=variant)
    game = load_game(variant)
    from tqdm import tqdm

    deals = (hands + 1) // 2
    episodes: list[EpisodeRecord] = []
    t0 = time.perf_counter()

    def result(interrupted: bool = False) -> dict:
        out = summarize(episodes, opening_levels(variant), "hand")
        out.update(a=f"openspiel ismcts ({simulations} simulations, {rollouts} random "
                     f"rollout{'s' if rollouts > 1 else ''})", b=b, seed=seed, variant=variant,
                   workers=1, seconds=round(time.perf_counter() - t0, 2),
                   simulations=simulations, rollouts=rollouts)
        if interrupted:
            out.update(interrupted=True, deals_requested=deals)
        return out

    try:
        with tqdm(total=2 * deals, unit="hand", disable=not progress) as bar:
            for d in range(deals):
                outcome = deal_seed(seed, d) % game.max_chance_outcomes()
                pair = []
                for seating in (0, 1):
                    bot = make_ismcts(game, simulations, rollouts,
                                      random.Random(f"ismcts/{seed}/{d}/{seating}").getrandbits(32))
                    pair.append(play_hand(game, bot, policy, outcome, d, seating, seed))
                    bar.update(1)
                episodes.extend(pair)
    except KeyboardInterrupt as stop:
        stop.result = result(True)
        raise
    return result()


def main(argv: list[str] | None = None) -> int:
    """``python -m training.openspiel_ismcts``; returns the exit code (0, 2, 130)."""
    p = ArgumentParser(prog="python -m training.openspiel_ismcts",
                       description="OpenSpiel's ISMCTS bot against a policy, duplicate deals.")
    p.add_argument("--b", default="heuristic",
                   help="the opponent: heuristic (default), search, random, reference, a policy "
                        "file or module:attribute")
    p.add_argument("--hands", type=positive_int, default=20, help="hands (2 per deal; default 20)")
    p.add_argument("--simulations", type=positive_int, default=50,
                   help="ISMCTS simulations per decision (default 50)")
    p.add_argument("--rollouts", type=positive_int, default=1,
                   help="random rollouts per leaf (default 1)")
    p.add_argument("--variant", default="classic", choices=["classic", "hand_and_foot"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    try:  # before the first deal: the opponent loads and plays the variant, open_spiel is there
        load_policy(args.b, variant=args.variant)
        load_game(args.variant)
    except ImportError as e:
        return fail(p.prog, e)
    except (PolicySpecError, ValueError) as e:
        return fail(p.prog, variant_hint(e, specs=(args.b,)))
    try:
        with sigterm_as_interrupt():  # kill / timeout: the table of the deals finished
            r = evaluate_ismcts(args.b, args.hands, variant=args.variant, seed=args.seed,
                                simulations=args.simulations, rollouts=args.rollouts,
                                progress=not args.no_progress)
    except KeyboardInterrupt as stop:
        r = getattr(stop, "result", None)
        if r is not None and r["episodes"]:
            print(json.dumps(r) if args.json else format_table(r))
        return interrupted(p.prog, f"{r['deals'] if r else 0} deals finished")
    print(json.dumps(r) if args.json else format_table(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
