"""Draws docs/results/classic_reference_curve.png from docs/results/classic_reference_curve.csv (needs
matplotlib, which the project does not install):

    python docs/results/classic_reference_curve.py docs/results/classic_reference_curve.csv \
        docs/results/classic_reference_curve.png 58327168 32327168 --leg 51327168 \
        --branch cl_long2:32327168 --branch cl_long3b:51327168

Win rate against the heuristic per PPO step (seeds 7 and 8, 1,000 duplicate hands each).
argv: curve.csv out.png shipped_steps anneal_from [--leg STEPS] [--branch RUN:STEPS ...].
CSV columns: steps,seed7,seed8,run. The line follows the shipped network's history; the
points of a run past its ``--branch`` steps (where the shipped network's history left it)
are drawn hollow. ``--leg``: where the last leg (random-heavy pool, its own anneal)
starts; the first anneal is shaded up to there."""
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo, installed or not
from canasta_env.cli import ArgumentParser  # noqa: E402 - errors as one line

p = ArgumentParser(description="Draw the Classic reference learning curve.")
p.add_argument("csv", help="docs/results/classic_reference_curve.csv")
p.add_argument("png", help="the image to write")
p.add_argument("shipped_steps", type=int, help="PPO steps of the shipped checkpoint")
p.add_argument("anneal_from", type=int, help="PPO steps where the learning rate starts to fall")
p.add_argument("--leg", type=int, default=None,
               help="PPO steps where the last leg (random-heavy pool) starts")
p.add_argument("--branch", action="append", default=[], metavar="RUN:STEPS",
               help="points of RUN past STEPS are off the shipped history (hollow)")
args = p.parse_args()
branches = {}
for b in args.branch:
    run, _, steps = b.rpartition(":")
    if not run or not steps.isdigit():
        p.error(f"--branch wants RUN:STEPS (e.g. cl_long2:32327168), got {b!r}")
    branches[run] = float(steps)
try:  # the input first: a bad file or argument is reported with or without matplotlib
    with open(args.csv, encoding="utf-8") as f:
        rows = [r for r in csv.reader(f) if r and r[0][:1].isdigit()]
    for r in rows:
        if len(r) != 4:
            raise ValueError(f"want steps,seed7,seed8,run; got {','.join(r)[:60]!r}")
        int(r[0]), float(r[1]), float(r[2])
except (OSError, ValueError) as e:
    p.error(f"{args.csv}: {e}")
if not rows:
    p.error(f"{args.csv}: no data rows (steps,seed7,seed8,run)")
shipped, anneal = float(args.shipped_steps), float(args.anneal_from)
last = max(float(r[0]) for r in rows)
leg = last if args.leg is None else float(args.leg)
if not 0 <= anneal < last or not 0 <= shipped <= last or not anneal < leg <= last:
    p.error(f"shipped_steps, anneal_from and --leg must lie within the data (0 to "
            f"{last:,.0f} steps; --leg after anneal_from)")
unknown = set(branches) - {r[3] for r in rows}
if unknown:
    p.error(f"--branch names runs not in the data: {', '.join(sorted(unknown))}")
try:
    import matplotlib
except ImportError:
    p.error("needs matplotlib (pip install matplotlib); the project does not install it")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def is_off(r) -> bool:
    return r[3] in branches and float(r[0]) > branches[r[3]]


path = [r for r in rows if not is_off(r)]
off = [r for r in rows if is_off(r)]
x = [float(r[0]) / 1e6 for r in path]
fig, ax = plt.subplots(figsize=(7.5, 3.8), dpi=100)
for col, mk, lab, c in ((1, "o", "seed 7", "C0"), (2, "s", "seed 8", "C1")):
    ax.plot(x, [float(r[col]) for r in path], mk + "-", ms=3, label=lab, color=c)
    if off:
        ax.plot([float(r[0]) / 1e6 for r in off], [float(r[col]) for r in off], mk, ms=4,
                mfc="none", color=c)
ax.axhline(0.5, color="grey", lw=0.8, ls=":")
ax.axvspan(anneal / 1e6, leg / 1e6, color="orange", alpha=0.12,
           label="learning rate falling (anneal)")
if leg < last:
    ax.axvspan(leg / 1e6, max(x), color="purple", alpha=0.10,
               label="last leg: random-heavy pool, rate 1e-4 falling again")
ax.axvline(shipped / 1e6, color="green", lw=0.8, ls="-.", label="shipped (chosen on seeds 100+101)")
ax.axhline(0.6, color="red", lw=0.8, ls="--", label="target 0.60")
ax.set_xlabel("PPO steps (millions)")
ax.set_ylabel("win rate vs heuristic")
ax.set_title("Classic reference: 1,000 duplicate hands per point "
             "(hollow: off the shipped network's history)", fontsize=9)
ax.grid(alpha=0.3)
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
fig.savefig(args.png, metadata={"Date": None})
