#!/usr/bin/python3
"""Plots of one or more fedgrid runs: accuracy against simulated time (the time-to-accuracy
view) and against rounds, and bytes per round. Writes PNG files into --out.

usage: analysis/plot_run.py RUN_DIR [RUN_DIR ...] [--out DIR]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import add_legend, note_no_data, runs_main, save_figure  # noqa: E402

ACCURACY_FIGURES = {
    "accuracy_vs_time.png": ("sim_time_s", "simulated time (s)"),
    "accuracy_vs_round.png": ("round", "round"),
}


def plot_accuracy(runs, out):
    """accuracy_vs_time.png and accuracy_vs_round.png in out; returns their paths."""
    written = []
    for name, (x, label) in ACCURACY_FIGURES.items():
        fig, ax = plt.subplots(figsize=(7, 4))
        for i, run in enumerate(runs):
            evaluated = run.rounds.dropna(subset=["accuracy"])
            if not evaluated.empty:  # a timing-only run has none
                ax.plot(evaluated[x], evaluated["accuracy"] * 100, marker="o", markersize=3, label=run.label,
                        color=f"C{i % 10}")
        ax.set_xlabel(label)
        if not ax.lines:
            note_no_data(ax, "no accuracy recorded (timing-only run?)")
        elif x == "round":
            ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_ylabel("test accuracy (%)")
        ax.grid(alpha=0.3)
        add_legend(ax)
        written.append(save_figure(fig, os.path.join(out, name)))
    return written


def plot_bytes_per_round(runs, out):
    """bytes_per_round.png in out: all traffic of each round; returns its path."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for run in runs:
        rounds = run.rounds
        peer = rounds["bytes_peer"].fillna(0) if "bytes_peer" in rounds else 0
        ax.plot(rounds["round"], (rounds["bytes_up"] + rounds["bytes_down"] + peer) / 1e6, marker="o", markersize=3,
                label=run.label)
    ax.set_xlabel("round")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("MB sent in the round (up + down + peer)")
    ax.grid(alpha=0.3)
    add_legend(ax)
    return save_figure(fig, os.path.join(out, "bytes_per_round.png"))


def main(argv):
    return runs_main(argv, __doc__.splitlines()[0], lambda runs, out: plot_accuracy(runs, out) + [plot_bytes_per_round(runs, out)],
                     "where to write PNGs (default: the first run dir)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
