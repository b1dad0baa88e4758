#!/usr/bin/python3
"""Figures and a table of a fedgrid sweep folder (sweep.json + sweep.csv): for every axis and
metric, the metric against that axis's values with one line per combination of the other
axes (mean over seeds, min-max bars when there are several), and sweep_table.md listing every
cell. Failed cells are left out of the figures but listed in the table.

usage: analysis/plot_sweep.py SWEEP_DIR [--out DIR] [--metric NAME ...]
Default metrics: time_to_target_s (sim_time_s when no cell reached the target) and
final_accuracy. Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import argparse
import itertools
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import (SWEEP_METRICS, InputError, add_legend, format_value, load_sweep,  # noqa: E402
                             make_out_dir, markdown_cell, metric_label, note_no_data, safe_name,
                             save_figure)

LOG_SPAN = 100  # a numeric axis spanning two decades or more gets a log scale


def default_metrics(sweep):
    time = "time_to_target_s" if sweep.ok()["time_to_target_s"].notna().any() else "sim_time_s"
    return [time, "final_accuracy"]


def plot_axis(sweep, axis, metric, out):
    """sweep_<axis>_<metric>.png in out; returns its path."""
    ok = sweep.ok()
    values = sweep.axis_values(axis)
    numeric = sweep.axis_is_numeric(axis)
    xs = [float(v) for v in values] if numeric else list(range(len(values)))
    ylabel, factor = metric_label(metric)
    others = [a for a in sweep.axes() if a != axis]

    log = numeric and min(xs) > 0 and max(xs) / min(xs) >= LOG_SPAN
    combinations = list(itertools.product(*(sweep.axis_values(a) for a in others)))

    def dodged(x, line):
        # Lines a little apart sideways, so that equal values and their bars stay visible.
        shift = (line - (len(combinations) - 1) / 2) * 0.03
        if log:
            return x * 10 ** (shift * math.log10(max(xs) / min(xs)) / 2)
        return x + shift * ((max(xs) - min(xs)) / 2 if numeric else 1)

    fig, ax = plt.subplots(figsize=(7, 4.2))
    plotted = False
    for line, combination in enumerate(combinations):
        group = ok
        for other, value in zip(others, combination):
            group = group[group[other] == value]
        points = []  # (x, mean, min, max) over the seeds that have a value
        for x, value in zip(xs, values):
            seeds = group.loc[group[axis] == value, metric].dropna() * factor
            if not seeds.empty:
                points.append((dodged(x, line), seeds.mean(), seeds.min(), seeds.max()))
        if not points:
            continue
        px, mean, low, high = zip(*points)
        label = ", ".join(f"{a}={v}" for a, v in zip(others, combination)) or None
        ax.errorbar(px, mean, yerr=[[m - lo for m, lo in zip(mean, low)], [hi - m for m, hi in zip(mean, high)]],
                    marker="o", markersize=4, capsize=3, label=label)
        plotted = True
    if not plotted:
        note_no_data(ax, f"no ok cell has {metric}")

    if log:
        ax.set_xscale("log")
        ax.minorticks_off()
    ax.set_xticks(xs)
    # As written in the sweep file (10e6); slanted when they would run into each other.
    ax.set_xticklabels(values, rotation=30 if sum(len(v) for v in values) > 60 else 0)
    key = next(a.get("key", "") for a in sweep.meta["axes"] if a["name"] == axis)
    ax.set_xlabel(f"{axis} ({key})" if key else axis)
    ax.set_ylabel(ylabel)
    notes = []
    if len(sweep.meta.get("seeds", [])) > 1:
        notes.append(f"mean over {len(sweep.meta['seeds'])} seeds, bars min-max")
    if metric == "time_to_target_s":
        notes.append("cells that never reached the target left out")
    failed = len(sweep.cells) - len(ok)
    if failed:
        notes.append(f"{failed} failed cell{'s' if failed > 1 else ''} left out")
    ax.set_title(f"{sweep.meta.get('name', '')}" + (f"\n({'; '.join(notes)})" if notes else ""), fontsize=9)
    ax.grid(alpha=0.3)
    add_legend(ax)
    return save_figure(fig, os.path.join(out, f"sweep_{safe_name(axis)}_{safe_name(metric)}.png"))


def table_markdown(sweep):
    """The cells as a markdown table; failed cells show their error."""
    axes = sweep.axes()
    any_failed = (sweep.cells["status"] != "ok").any()
    header = axes + ["seed", "status", "final accuracy (%)", "simulated time (s)", "time to target (s)", "MB total"]
    header += ["error"] if any_failed else []
    lines = ["| " + " | ".join(markdown_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for _, cell in sweep.cells.iterrows():
        row = [cell[a] for a in axes] + [cell["seed"], cell["status"],
                                         format_value(cell["final_accuracy"], "{:.2f}", 100),
                                         format_value(cell["sim_time_s"], "{:.2f}"),
                                         format_value(cell["time_to_target_s"], "{:.2f}"),
                                         format_value(cell["bytes_total"], "{:.1f}", 1e-6)]
        if any_failed:
            row.append(cell["error"])
        lines.append("| " + " | ".join(markdown_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def write_table(sweep, out):
    path = os.path.join(out, "sweep_table.md")
    with open(path, "w") as f:
        f.write(f"# Sweep {sweep.meta.get('name', '')}\n\n" + table_markdown(sweep))
    return path


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", help="sweep output directory (holds sweep.json and sweep.csv)")
    parser.add_argument("--out", default=None, help="where to write PNGs and sweep_table.md (default: the sweep dir)")
    parser.add_argument("--metric", action="append", default=None,
                        help="sweep.csv column to plot, repeatable (default: time to target or simulated "
                             "time, and final_accuracy)")
    args = parser.parse_args(argv)
    try:
        sweep = load_sweep(args.sweep)
        numeric = SWEEP_METRICS + [c for c in sweep.cells.columns if c.startswith("final_acc_")]
        for metric in args.metric or []:
            if metric not in numeric or metric not in sweep.cells.columns:
                raise InputError(f"{os.path.join(args.sweep, 'sweep.csv')}: no numeric column {metric!r}")
        out = make_out_dir(args.out or args.sweep)
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    for metric in args.metric or default_metrics(sweep):
        for axis in sweep.axes():
            print(plot_axis(sweep, axis, metric, out))
    print(write_table(sweep, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
