"""Draws docs/classic_reference_curve.png from docs/classic_reference_curve.csv (needs
matplotlib, which the project does not install):

    python docs/classic_reference_curve.py docs/classic_reference_curve.csv \
        docs/classic_reference_curve.png 51327168 32327168

Win rate against the heuristic per PPO step (seeds 7 and 8, 1,000 duplicate hands each).
argv: curve.csv out.png shipped_steps anneal_from. CSV columns: steps,seed7,seed8,run. The
line follows the shipped network's history; points of cl_long2 past the anneal start (not
on that history) are drawn hollow."""
import argparse
import csv

p = argparse.ArgumentParser(description="Draw the Classic reference learning curve.")
p.add_argument("csv", help="docs/classic_reference_curve.csv")
p.add_argument("png", help="the image to write")
p.add_argument("shipped_steps", type=int, help="PPO steps of the shipped checkpoint")
p.add_argument("anneal_from", type=int, help="PPO steps where the learning rate starts to fall")
args = p.parse_args()
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
if not 0 <= anneal < last or not 0 <= shipped <= last:
    p.error(f"shipped_steps and anneal_from must lie within the data (0 to {last:,.0f} steps)")
try:
    import matplotlib
except ImportError:
    p.error("needs matplotlib (pip install matplotlib); the project does not install it")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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
ax.set_title("Classic reference: 1,000 duplicate hands per point "
             f"(hollow: constant rate past {anneal / 1e6:.1f}M)", fontsize=9)
ax.grid(alpha=0.3)
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
fig.savefig(args.png, metadata={"Date": None})
