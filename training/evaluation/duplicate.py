"""Duplicate-deal evaluation of two policies.

    python -m training.evaluate --a heuristic --b random --hands 1000
    python -m training.evaluate --a checkpoints/run/model.zip --b heuristic --hands 2000 --workers 2 --json
    python -m training.evaluate --a heuristic --b random --games 20
    python -m training.evaluate --a heuristic --b random --hands 1000 --variant hand_and_foot

POLICY is ``random``, ``heuristic``, ``search``, ``reference``, a policy file path
(:mod:`canasta_env.bots.loader`) or ``module:attribute``, a policy written outside this
package (:mod:`canasta_env.bots.outside`; a class gets one instance per seat and per
episode), e.g. ``--a mybots:MemoryBot``; the workers import the module themselves.

Duplicate deals: deal ``i`` has an env seed derived from ``--seed`` and ``i``; it is played
twice through :class:`canasta_env.raw_env`, first with A at seats 0+2 (partnership 0),
then with A at seats 1+3, so each partnership plays both sides of the same cards, dealer
and starting scores. ``--hands N`` plays ``ceil(N / 2)`` deals (``2 * ceil(N / 2)``
hands), one hand per episode, with ``starting_scores="sample"``: each deal's two
cumulative scores are drawn by the env from the deal's seed (uniform over the four
score bands), so every opening minimum (15 / 50 / 90 / 120) occurs. In Hand and Foot
(``--variant hand_and_foot``) the minimum goes by round: each deal's round is drawn
too (``starting_round="sample"``), so all four minimums 60 / 90 / 120 / 150 occur;
``--games`` plays the four rounds. ``--games N`` plays
``ceil(N / 2)`` deals of whole games (``episode="game"``, to 5,000, from 0 : 0) instead;
the unit of the win rate and score difference is then a game.

Figures (unit = hand, or game with ``--games``):

- win rate of A: (wins + ties / 2) / units -- a tie (score difference 0) counts as half a
  win; ties are also reported on their own. 95% Wilson interval over the units.
- mean score difference A - B per unit with a 95% normal-approximation (z = 1.96)
  interval computed over deals (the mean of each deal's two seatings), since the two
  seatings of a deal are correlated by design.
- opening success per opening minimum, for A and B: of the hands where the
  partnership's minimum was k, the fraction in which it opened (read from the engine:
  ``raw_env.game.minimum`` at the start of the hand, ``raw_env.game.opened`` before the
  last decision, or the partnership went out).
- decisions per hand (all four seats).

Episodes cut by the env's ``max_decisions``, or stuck in a position where the seat on
turn has no legal action (an engine bug; none should occur), are counted as
``truncated`` (the stuck ones also as ``stuck``) and left out of the figures.

Policies and variants: both policies are loaded and checked against ``--variant`` before
the first deal (:func:`canasta_env.bots.loader.check_policy_variant`): a network of
another variant is one line on stderr and exit code 2, e.g. ``policy 'reference' is a
Classic policy (observation 202, 91 actions); this game is Hand and Foot (observation 245,
98 actions)``. ``reference`` is the variant's reference policy (Classic's or Hand and
Foot's network).

Ctrl-C (SIGINT): the deals finished so far (both seatings; with ``--workers``, those of
the jobs the workers finished) are summed up and printed as
the usual table (``--json``: the object, with ``"interrupted": true``), under a line
saying how many deals of how many were played; a line on stderr says it was interrupted;
exit code 130 (128 + SIGINT, the shell's convention). Exit codes: 0 done, 2 a bad option
or policy (one line on stderr), 130 interrupted.

Batches (``--batch K``, default 64): each process plays ``K`` deals side by side (both
seatings of each, every episode on its own env, each deal through the same
:class:`canasta_env.raw_env` with the same seed as one deal after another). At each step
every running episode makes one decision; the decisions waiting for a stateless policy
(heuristic, ONNX, a checkpoint in deterministic mode) are answered by one call of it,
``act_batch(observations float32 [R, OBS_SIZE], masks int8 [R, NUM_ACTIONS]) -> int64
[R]`` when it has that method (one forward of a network), else ``act`` row by row; a
policy that draws random numbers (random) gets one instance per running episode, reset
per episode as before (:mod:`canasta_env.batching`). The records are those of
:func:`play_episode` deal after deal (the unbatched path; ``tests/training/test_evaluate_batched.py``
compares them). A batched forward may differ from a batch-1 forward in the last bits of
a float, which could change an argmax only between two logits equal to rounding; none
was seen on the deals tested. The evaluation's speed is a benchmark figure
(``python -m training.benchmark``, ``docs/results/benchmarks.md``); a ``.zip`` policy
plays with torch on one thread per worker (batch-1 forwards are faster so on 2 cores).
:func:`measure_eval_hands_per_s` measures one process.

Determinism: the env, every policy (``reset(seed)`` per episode, seed derived from the
deal) and the deal seeds depend only on ``--seed``; ``--workers W`` splits the deals
into contiguous chunks (at most ``--batch`` deals each) played by ``W`` processes and
joins them in deal order, so the figures are identical for every ``W`` and every
``--batch``. The progress bar counts finished deals in every worker.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import Iterable

from canasta_env.bots.loader import check_policy_variant, load_policy
from canasta_env.engine import preset
from canasta_env.policies import Policy

from .episodes import DEFAULT_BATCH, EpisodeRecord, check_batch, play_deals
from .stats import opening_levels, summarize


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C (``KeyboardInterrupt``) during an evaluation, carrying what was finished.

    Attributes:
        episodes: the records of the deals finished before the interrupt, both seatings
            of each, in deal order (:func:`play_match`).
        result: the figures of those deals (:func:`evaluate_policies`, with
            ``"interrupted": True``), or ``None`` when raised by :func:`play_match`.
        deals: the deals asked for.
    """

    def __init__(self, episodes: list, deals: int, result: dict | None = None) -> None:
        super().__init__(f"interrupted after {len(episodes) // 2} of {deals} deals")
        self.episodes = episodes
        self.deals = deals
        self.result = result


# ---------------------------------------------------------------------------- workers
#: Most worker processes an evaluation starts (each loads its own policies).
MAX_WORKERS = 64


_WORKER: dict = {}


def _init_worker(spec_a: str, spec_b: str, variant: str = "classic", counter=None) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool and prints what
    # was finished; the workers must not print tracebacks of their own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["a"] = load_policy(spec_a, variant=variant)
    _WORKER["b"] = load_policy(spec_b, variant=variant)
    _WORKER["counter"] = counter


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while the block runs (in the main thread; elsewhere nothing
    changes): processes started inside inherit the ignored signal, so Ctrl-C reaches
    only the parent even while a worker is still starting."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _count_deal(_deal: int) -> None:
    counter = _WORKER.get("counter")
    if counter is not None:
        with counter.get_lock():
            counter.value += 1


def _run_chunk(job: tuple[list[int], int, str, bool, int]) -> list[EpisodeRecord]:
    deals, seed, variant, games, batch = job
    return play_deals(_WORKER["a"], _WORKER["b"], deals, seed, variant, games, batch=batch,
                      on_deal=_count_deal)


def _chunks(n: int, size: int) -> list[list[int]]:
    return [list(range(i, min(n, i + size))) for i in range(0, n, size)]


def play_match(a: str | Policy, b: str | Policy, deals: int, *, seed: int = 0,
               variant: str = "classic", games: bool = False, workers: int = 1,
               progress: bool = False, batch: int = DEFAULT_BATCH) -> list[EpisodeRecord]:
    """Play deals ``0 .. deals - 1`` twice each (seatings swapped); the records in deal
    order, the same for every ``workers`` and ``batch`` (and the same as
    :func:`play_episode` deal after deal).

    Args:
        a, b: policy specs or policy objects (objects need ``workers=1``); both are
            checked against ``variant`` before the first deal (``reference``: the
            variant's reference policy).
        games: whole games per episode instead of one hand.
        workers: processes (``spawn``); each loads its own policies from the specs and
            plays contiguous chunks of deals.
        progress: a progress bar on stderr (hands or games, rate, time left; plain lines
            when stderr is not a terminal).
        batch: deals played side by side per process (:func:`play_deals`), >= 1.

    Raises:
        ValueError: bad counts or ``batch``, or policy objects with ``workers > 1``; an
            unknown variant (``canasta_env.engine.OptionsError``).
        PolicySpecError: a spec names no policy.
        PolicyVariantError: a policy was built for another variant (a
            ``PolicySpecError``).
        EvaluationInterrupted: Ctrl-C; its ``episodes`` are the deals finished (in deal
            order, both seatings each).
    """
    if not isinstance(deals, int) or deals < 1:
        raise ValueError(f"the number of deals must be a positive int, got {deals!r}")
    if not isinstance(workers, int) or isinstance(workers, bool) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be an int from 1 to {MAX_WORKERS}, got {workers!r}")
    check_batch(batch)
    if workers > 1 and not (isinstance(a, str) and isinstance(b, str)):
        raise ValueError("workers > 1 needs policy specs (strings), not policy objects")
    workers = min(workers, deals)  # never more processes than deals
    # load and check here even with workers: a bad spec or a policy of another variant
    # fails at once, before the first deal, not inside a worker
    preset(variant)
    pols = []
    for spec in (a, b):
        if isinstance(spec, str):
            pols.append(load_policy(spec, variant=variant))
        else:
            check_policy_variant(spec, variant)
            pols.append(spec)
    pol_a, pol_b = pols
    from training.common.progress import progress_bar

    episodes: list[EpisodeRecord] = []
    try:
        with progress_bar(2 * deals, f"{_label(a)} vs {_label(b)}", "game" if games else "hand",
                          progress, sys.stderr) as bar:
            if workers == 1:
                play_deals(pol_a, pol_b, range(deals), seed, variant, games, out=episodes,
                           batch=batch, on_deal=lambda _d: bar.update(2))
            else:
                ctx = multiprocessing.get_context("spawn")
                counter = ctx.Value("q", 0)  # deals finished in all workers
                jobs = [(c, seed, variant, games, batch)
                        for c in _chunks(deals, _chunk_size(deals, workers, batch))]
                with _sigint_ignored():  # the workers start with SIGINT ignored
                    pool = ctx.Pool(workers, initializer=_init_worker,
                                    initargs=(a, b, variant, counter))
                with pool:
                    results = pool.imap(_run_chunk, jobs)
                    for _ in jobs:
                        while True:
                            try:
                                res = results.next(timeout=0.2)
                                break
                            except multiprocessing.TimeoutError:
                                bar.update(max(0, 2 * counter.value - bar.n))
                        episodes.extend(res)
                        bar.update(max(0, max(len(episodes), 2 * counter.value) - bar.n))
    except KeyboardInterrupt:
        del episodes[len(episodes) // 2 * 2:]  # a deal counts once both seatings are played
        raise EvaluationInterrupted(episodes, deals) from None
    return episodes


def _chunk_size(deals: int, workers: int, batch: int) -> int:
    """Deals per job of a worker: at most one batch (a job's deals are all in flight at
    once; Ctrl-C loses at most the unfinished job of each worker), and at least four jobs
    per worker when there are enough deals (a worker that finishes early takes over
    work). The drain at the end of a job (fewer episodes left to batch) measured no
    slower than one long stream."""
    return max(1, min(batch, math.ceil(deals / (workers * 4))))


def evaluate_policies(a: str | Policy, b: str | Policy, hands: int = 1000, *,
                      games: int | None = None, variant: str = "classic", seed: int = 0,
                      workers: int = 1, progress: bool = False,
                      batch: int = DEFAULT_BATCH) -> dict:
    """Evaluate A against B on duplicate deals; returns the figures of :func:`summarize`
    plus the run's parameters (``a``, ``b``, ``seed``, ``variant``, ``workers``,
    ``seconds``).

    Args:
        a, b: policy specs (``"random"``, ``"heuristic"``, a checkpoint path) or policy
            objects (objects need ``workers=1``).
        hands: hands to play (rounded up to an even number: two per deal).
        games: play this many whole games (rounded up to even) instead of hands.
        workers: processes; the figures do not depend on it.
        progress: a progress bar on stderr (plain lines when it is not a terminal).
        batch: deals played side by side per process (>= 1); the figures do not depend
            on it.

    Raises:
        ValueError: bad counts or ``batch``, or policy objects with ``workers > 1``; an unknown
            variant (``canasta_env.engine.OptionsError``).
        PolicySpecError: a spec names no policy.
        PolicyVariantError: a policy was built for another variant (a
            ``PolicySpecError``); raised before the first deal.
        EvaluationInterrupted: Ctrl-C; its ``result`` holds the figures of the deals
            finished (with ``"interrupted": True``, ``"deals_requested"``).
    """
    count = hands if games is None else games
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ValueError(f"the number of {'hands' if games is None else 'games'} must be a "
                         f"positive int, got {count!r}")
    is_games = games is not None
    t0 = time.perf_counter()
    unit = "game" if is_games else "hand"
    try:
        episodes = play_match(a, b, (count + 1) // 2, seed=seed, variant=variant,
                              games=is_games, workers=workers, progress=progress, batch=batch)
    except EvaluationInterrupted as stop:
        out = summarize(stop.episodes, opening_levels(variant), unit)
        out.update(a=_label(a), b=_label(b), seed=seed, variant=variant, workers=workers,
                   seconds=round(time.perf_counter() - t0, 2), interrupted=True,
                   deals_requested=stop.deals)
        stop.result = out
        raise
    out = summarize(episodes, opening_levels(variant), unit)
    out.update(a=_label(a), b=_label(b), seed=seed, variant=variant, workers=workers,
               seconds=round(time.perf_counter() - t0, 2))
    return out


def _label(p: str | Policy) -> str:
    return p if isinstance(p, str) else getattr(p, "name", type(p).__name__)


def measure_eval_hands_per_s(hands: int | None = None, seconds: float | None = None, *,
                             seed: int = 0, batch: int = DEFAULT_BATCH) -> float:
    """Evaluation speed: duplicate hands per second of ``reference`` against ``random``
    (Classic), played by :func:`play_deals` in this process (one worker, ``batch`` deals
    side by side); the policies are loaded before the clock starts.

    Args:
        hands: play this many hands (rounded up to even: two per deal), or
        seconds: play deals until this much time has passed (the deals in flight then
            finish and count). Default: ``hands=400``.
        seed: evaluation seed (deals as in :func:`play_match`).
        batch: deals in flight (>= 1).

    Returns:
        Hands finished divided by the wall time of playing them (``time.perf_counter``).

    Raises:
        ValueError: both or a non-positive ``hands`` / ``seconds``, a bad ``batch``.
        PolicySpecError: the reference policy is not available.
    """
    if hands is not None and seconds is not None:
        raise ValueError("give hands or seconds, not both")
    if seconds is None:
        hands = 400 if hands is None else hands
        if not isinstance(hands, int) or isinstance(hands, bool) or hands < 1:
            raise ValueError(f"hands must be a positive int, got {hands!r}")
    elif not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    check_batch(batch)
    a, b = load_policy("reference", variant="classic"), load_policy("random", variant="classic")
    t0 = time.perf_counter()
    if seconds is None:
        deals: Iterable[int] = range((hands + 1) // 2)
    else:
        deadline = t0 + seconds
        deals = itertools.takewhile(lambda _d: time.perf_counter() < deadline, itertools.count())
    records = play_deals(a, b, deals, seed, batch=batch)
    return len(records) / (time.perf_counter() - t0)
