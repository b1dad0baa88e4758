#!/usr/bin/python3
"""Fairness across tiers: final per-tier accuracy of one or more fedgrid runs as grouped bars
(one group per tier, one colour per run). Writes tier_accuracy.png into --out.

Left panel: acc_<tier> of the last evaluated round in rounds.csv (the tier's hospitals, each on
its own test split). Right panel, when any run has it: summary.json's final_tier_accuracy (the
model each tier holds, on the global test set; empty for per-hospital models).

usage: analysis/plot_tiers.py RUN_DIR [RUN_DIR ...] [--out DIR]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import note_no_data, ordered_tiers, runs_main, save_figure  # noqa: E402


def own_split_accuracy(run):
    """{tier: acc_<tier>} from the last round where any tier was evaluated, and that round."""
    columns = [f"acc_{t}" for t in run.tiers()]
    evaluated = run.rounds.dropna(subset=columns, how="all") if columns else run.rounds.iloc[0:0]
    if evaluated.empty:
        return {}, None
    last = evaluated.iloc[-1]
    return {t: last[f"acc_{t}"] for t in run.tiers() if pd.notna(last[f"acc_{t}"])}, int(last["round"])


def global_accuracy(run):
    """{tier: accuracy} from summary.json's final_tier_accuracy, nulls left out."""
    return {t: a for t, a in (run.summary.get("final_tier_accuracy") or {}).items() if a is not None}


def draw_bars(ax, runs, values):
    """values[i] is {tier: accuracy} of runs[i]; one bar group per tier."""
    tiers = ordered_tiers(t for v in values for t in v)
    width = 0.8 / len(runs)
    for i, (run, accuracy) in enumerate(zip(runs, values)):
        xs = [j + (i - (len(runs) - 1) / 2) * width for j, t in enumerate(tiers) if t in accuracy]
        heights = [accuracy[t] * 100 for t in tiers if t in accuracy]
        bars = ax.bar(xs, heights, width=width * 0.95, label=run.label, color=f"C{i % 10}")
        if len(runs) * len(tiers) <= 16:  # room for the figures on the bars
            ax.bar_label(bars, fmt="%.1f", fontsize=7, padding=1)
    ax.set_xticks(range(len(tiers)))
    ax.set_xticklabels(tiers)
    ax.set_xlabel("tier")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.grid(axis="y", alpha=0.3)
    if not tiers:
        note_no_data(ax, "no per-tier accuracy recorded")


def plot_tier_accuracy(runs, out):
    """tier_accuracy.png in out; returns its path."""
    own = [own_split_accuracy(run) for run in runs]
    global_ = [global_accuracy(run) for run in runs]
    panels = 2 if any(global_) else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels + 1, 4), squeeze=False)
    draw_bars(axes[0][0], runs, [values for values, _ in own])
    rounds = {r for _, r in own if r is not None}
    when = f"round {rounds.pop()}" if len(rounds) == 1 else "last evaluated round"
    axes[0][0].set_title(f"own test splits, mean of the tier's hospitals\n(acc_<tier>, {when})", fontsize=9)
    if panels == 2:
        draw_bars(axes[0][1], runs, global_)
        axes[0][1].set_title("global test set, model the tier holds\n(final_tier_accuracy)", fontsize=9)
    # One legend for both panels, outside them: a run may have bars in one panel only.
    fig.legend(handles=[Patch(color=f"C{i % 10}", label=run.label) for i, run in enumerate(runs)],
               loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(runs), 4), fontsize=8)
    fig.tight_layout()
    return save_figure(fig, os.path.join(out, "tier_accuracy.png"), bbox_inches="tight")


def main(argv):
    return runs_main(argv, __doc__.splitlines()[0], lambda runs, out: [plot_tier_accuracy(runs, out)],
                     "where to write the PNG (default: the first run dir)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
