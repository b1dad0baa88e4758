#!/usr/bin/python3
"""What ended each round of one fedgrid run (output.critical_path): one stacked bar per round, its
duration split along the critical path into downlink, compute, uplink, peer, server and idle
(rounds.csv's cp_*_s, which sum to the round), the hospital the path passed through named
above each bar, and the transfers' contention (time above their time alone) hatched inside
their phases' total. Writes critical_path.png into --out.

usage: analysis/plot_critical_path.py RUN_DIR [--out DIR]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import InputError, folder_main, load_run, make_out_dir, save_figure  # noqa: E402

PHASES = [("cp_downlink_s", "tab:orange", "downlink"), ("cp_compute_s", "tab:green", "compute"),
          ("cp_uplink_s", "tab:blue", "uplink"), ("cp_peer_s", "tab:purple", "peer"),
          ("cp_server_s", "tab:red", "server"), ("cp_idle_s", "lightgrey", "idle")]
MAX_NAMED = 40  # more bars than this: the critical hosts are not written above them


def plot_critical_path(run, out, name="critical_path.png"):
    """Writes the figure as out/name; returns its path, or None for a run without the columns."""
    rounds = run.rounds
    if "cp_idle_s" not in rounds:
        return None  # output.critical_path was off
    if rounds.empty:
        raise InputError(f"{os.path.join(run.path, 'rounds.csv')}: no rows")
    fig, ax = plt.subplots(figsize=(max(6, min(16, 0.35 * len(rounds) + 3)), 4.5))
    bottom = rounds["round"] * 0.0
    for column, colour, label in PHASES:
        values = rounds[column].fillna(0)
        if values.any() or column == "cp_idle_s":
            ax.bar(rounds["round"], values, bottom=bottom, color=colour, label=label, width=0.8)
        bottom += values
    if "cp_contention_s" in rounds and rounds["cp_contention_s"].fillna(0).any():
        ax.bar(rounds["round"], rounds["cp_contention_s"].fillna(0), color="none", edgecolor="black",
               hatch="//", width=0.8, linewidth=0, label="of which contention")
    if len(rounds) <= MAX_NAMED:
        for r, top, host in zip(rounds["round"], bottom, rounds["cp_host"].fillna("")):
            ax.annotate(str(host), (r, top), ha="center", va="bottom", fontsize=7, rotation=90 if len(rounds) > 12 else 0)
    ax.set_xlabel("round")
    ax.set_ylabel("simulated seconds")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.set_title(f"{run.label}: what ended each round (critical path)", fontsize=10)
    return save_figure(fig, os.path.join(out, name))


def plot_run_dir(folder, out):
    """The command line's figure: the run in `folder`, written into `out` (default: the run's folder)."""
    path = plot_critical_path(load_run(folder), make_out_dir(out or folder))
    if path is None:
        raise InputError("rounds.csv has no critical-path columns (set output.critical_path: true)")
    return path


def main(argv):
    return folder_main(argv, __doc__.splitlines()[0], "run output directory",
                       "where to write the PNG (default: the run dir)", plot_run_dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
