#!/usr/bin/python3
"""Plots of one or more fedgrid runs: accuracy against simulated time (the time-to-accuracy
view) and against rounds, and bytes per round. Writes PNG files into --out.

usage: analysis/plot_run.py RUN_DIR [RUN_DIR ...] [--out DIR]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def load(run_dir):
    rounds = pd.read_csv(os.path.join(run_dir, "rounds.csv"))
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    return summary.get("scenario", os.path.basename(run_dir)), rounds


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run output directories")
    parser.add_argument("--out", default=None, help="where to write PNGs (default: the first run dir)")
    args = parser.parse_args(argv)
    out = args.out or args.runs[0]
    os.makedirs(out, exist_ok=True)
    runs = [load(r) for r in args.runs]

    figures = {
        "accuracy_vs_time.png": ("sim_time_s", "simulated time (s)"),
        "accuracy_vs_round.png": ("round", "round"),
    }
    for name, (x, label) in figures.items():
        fig, ax = plt.subplots(figsize=(6, 4))
        for run_name, rounds in runs:
            evaluated = rounds.dropna(subset=["accuracy"])
            ax.plot(evaluated[x], evaluated["accuracy"] * 100, marker="o", markersize=3, label=run_name)
        ax.set_xlabel(label)
        ax.set_ylabel("global test accuracy (%)")
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, name), dpi=120)
        plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    for run_name, rounds in runs:
        peer = rounds["bytes_peer"] if "bytes_peer" in rounds else 0
        ax.plot(rounds["round"], (rounds["bytes_up"] + rounds["bytes_down"] + peer) / 1e6, marker="o", markersize=3,
                label=run_name)
    ax.set_xlabel("round")
    ax.set_ylabel("MB sent in the round (up + down + peer)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bytes_per_round.png"), dpi=120)
    plt.close(fig)
    print("wrote accuracy_vs_time.png, accuracy_vs_round.png, bytes_per_round.png to", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
