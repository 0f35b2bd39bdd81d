"""Draws docs/classic_reference_curve.png from docs/classic_reference_curve.csv (needs
matplotlib, which the project does not install):

    python docs/classic_reference_curve.py docs/classic_reference_curve.csv \
        docs/classic_reference_curve.png 51327168 32327168

Win rate against the heuristic per PPO step (seeds 7 and 8, 1,000 duplicate hands each).
argv: curve.csv out.png shipped_steps anneal_from. CSV columns: steps,seed7,seed8,run. The
line follows the shipped network's history; points of cl_long2 past the anneal start (not
on that history) are drawn hollow."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0][0].isdigit()]
shipped, anneal = float(sys.argv[3]), float(sys.argv[4])
path = [r for r in rows if not (r[3] == "cl_long2" and float(r[0]) > anneal)]
off = [r for r in rows if r[3] == "cl_long2" and float(r[0]) > anneal]
x = [float(r[0]) / 1e6 for r in path]
fig, ax = plt.subplots(figsize=(7.5, 3.8), dpi=100)
for col, mk, lab, c in ((1, "o", "seed 7", "C0"), (2, "s", "seed 8", "C1")):
    ax.plot(x, [float(r[col]) for r in path], mk + "-", ms=3, label=lab, color=c)
    if off:
        ax.plot([float(r[0]) / 1e6 for r in off], [float(r[col]) for r in off], mk, ms=4,
                mfc="none", color=c)
ax.axhline(0.5, color="grey", lw=0.8, ls=":")
ax.axvspan(anneal / 1e6, max(x), color="orange", alpha=0.12,
           label="learning rate falling (anneal)")
ax.axvline(shipped / 1e6, color="green", lw=0.8, ls="-.", label="shipped (chosen on seeds 100+101)")
ax.axhline(0.6, color="red", lw=0.8, ls="--", label="target 0.60")
ax.set_xlabel("PPO steps (millions)")
ax.set_ylabel("win rate vs heuristic")
ax.set_title("Classic reference: 1,000 duplicate hands per point (hollow: constant rate past 32.3M)",
             fontsize=9)
ax.grid(alpha=0.3); ax.legend(loc="lower right", fontsize=8)
fig.tight_layout(); fig.savefig(sys.argv[2], metadata={"Date": None})
