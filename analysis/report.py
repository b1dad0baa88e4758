#!/usr/bin/python3
"""Renders every figure of a fedgrid run, of several runs side by side, or of a sweep, and a
report.md that embeds them under a table of the summary figures; prints the files written.

usage: analysis/report.py TARGET [TARGET ...] [--out DIR]
TARGET is a run directory (holds summary.json) or a sweep directory (holds sweep.csv); several
run directories give comparison plots and need --out. The default --out is TARGET/report.
A figure whose optional input is missing (e.g. events.csv) is skipped with a warning and a
note in report.md; a missing or unreadable target is exit 2.
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import (InputError, format_value, load_run, load_runs, load_sweep,  # noqa: E402
                             make_out_dir, markdown_cell, metric_label, safe_name, targets_kind)
from plot_bytes_by_tier import plot_bytes_by_tier  # noqa: E402
from plot_critical_path import plot_critical_path  # noqa: E402
from plot_run import plot_accuracy, plot_bytes_per_round  # noqa: E402
from plot_sweep import default_metrics, plot_axis, table_markdown, write_table  # noqa: E402
from plot_tiers import plot_tier_accuracy  # noqa: E402
from plot_timeline import plot_timeline  # noqa: E402

TIMELINE_ROUNDS = (1, 3)
# Caption endings of the figures that come several from one call.
CAPTIONS = {"accuracy_vs_time.png": "against simulated time", "accuracy_vs_round.png": "against rounds"}
MAX_CELL_CURVES = 12  # more accuracy curves than this on one plot cannot be told apart

# Rows of the summary table: (heading, summary.json key, format, factor).
SUMMARY_ROWS = [
    ("algorithm", "algorithm", "{}", 1),
    ("seed", "seed", "{}", 1),
    ("rounds", "rounds", "{}", 1),
    ("stopped by", "stop_reason", "{}", 1),
    ("final accuracy (%)", "final_accuracy", "{:.2f}", 100),
    ("best accuracy (%)", "best_accuracy", "{:.2f}", 100),
    ("final AUC", "final_auc", "{:.4f}", 1),
    ("final tier gap (points)", "final_tier_gap", "{:.2f}", 100),
    ("simulated time (s)", "sim_time_s", "{:.2f}", 1),
    ("time to target (s)", "time_to_target_s", "{:.2f}", 1),
    ("traffic (MB)", "bytes_total", "{:.1f}", 1e-6),
    ("up / down / peer (MB)", None, None, None),
    ("messages", "messages", "{}", 1),
    ("energy (kJ)", "energy_j", "{:.1f}", 1e-3),
]


class Figures:
    """The figures of a report, in order, with notes on the ones that could not be drawn."""

    def __init__(self):
        self.items = []  # (title, path)
        self.notes = []

    def add(self, title, draw, *args):
        """Runs draw(*args), which returns a path, a list of paths or None (nothing to draw)."""
        try:
            result = draw(*args)
        except InputError as e:
            print(f"warning: {title} skipped: {e}", file=sys.stderr)
            self.notes.append(f"{title} skipped: {e}")
            return
        if result is None:
            self.notes.append(f"{title}: nothing to draw")
        elif isinstance(result, list):
            self.items += [(f"{title} {CAPTIONS.get(os.path.basename(p), '')}".strip(), p) for p in result]
        else:
            self.items.append((title, result))


def summary_table(runs):
    """Markdown table of the summary figures, one column per run."""
    lines = ["| | " + " | ".join(markdown_cell(r.label) for r in runs) + " |", "|---|" + "---|" * len(runs)]
    for heading, key, fmt, factor in SUMMARY_ROWS:
        if key is None:  # the traffic split, three figures in one cell
            cells = [" / ".join(format_value(r.summary.get(k), "{:.1f}", 1e-6)
                                for k in ("bytes_up", "bytes_down", "bytes_peer")) for r in runs]
        else:
            cells = [format_value(r.summary.get(key), fmt, factor) for r in runs]
        lines.append(f"| {heading} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def run_figures(runs, out):
    figures = Figures()
    first, last = TIMELINE_ROUNDS
    figures.add("Accuracy", plot_accuracy, runs, out)
    figures.add("Final accuracy per tier", plot_tier_accuracy, runs, out)
    figures.add("Bytes per round", plot_bytes_per_round, runs, out)
    for i, run in enumerate(runs):
        # One file per run when there are several; the single-run names stay plain.
        suffix = f"_{i + 1}_{safe_name(run.label)}" if len(runs) > 1 else ""
        figures.add(f"Bytes per round and tier: {run.label}", plot_bytes_by_tier, run, out,
                    f"bytes_by_tier{suffix}.png")
        figures.add(f"Timeline, rounds {first}-{last}: {run.label}", plot_timeline, run, first, last,
                    os.path.join(out, f"timeline{suffix}.png"))
        if "cp_idle_s" in run.rounds:  # output.critical_path
            figures.add(f"What ended each round: {run.label}", plot_critical_path, run, out,
                        f"critical_path{suffix}.png")
    return figures


def sweep_header(sweep):
    ok = len(sweep.ok())
    seeds = ", ".join(map(str, sweep.meta.get("seeds", [])))
    lines = [f"Base scenario: `{sweep.meta.get('base', '-')}`; seeds: {seeds}; "
             f"{len(sweep.cells)} cells, {ok} ok, {len(sweep.cells) - ok} failed.", "",
             "| axis | key | values |", "|---|---|---|"]
    for axis in sweep.meta["axes"]:
        cells = (axis["name"], axis.get("key", ""), ", ".join(map(str, axis["values"])))
        lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n\n## Cells\n\n" + table_markdown(sweep)


def sweep_figures(sweep, out):
    figures = Figures()
    for metric in default_metrics(sweep):
        for axis in sweep.axes():
            label = metric_label(metric)[0]
            figures.add(f"{label[0].upper()}{label[1:]} against {axis}", plot_axis, sweep, axis, metric, out)
    ok = sweep.ok()
    if 0 < len(ok) <= MAX_CELL_CURVES:
        figures.add("Accuracy of every ok cell",
                    lambda: plot_accuracy([load_run(os.path.join(sweep.path, cell["dir"]), sweep.cell_label(cell))
                                           for _, cell in ok.iterrows()], out))
    else:
        figures.notes.append(f"No accuracy curves per cell: {len(ok)} ok cells (at most {MAX_CELL_CURVES} are drawn).")
    return figures


def write_report(out, title, header, figures):
    path = os.path.join(out, "report.md")
    parts = [f"# fedgrid report: {title}\n", header]
    if figures.notes:
        parts.append("".join(f"- {note}\n" for note in figures.notes))
    for caption, figure in figures.items:
        parts.append(f"## {caption}\n\n![{caption}]({os.path.relpath(figure, out)})\n")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")
    return path


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+", metavar="TARGET", help="run or sweep output directory")
    parser.add_argument("--out", default=None, help="where to write (default: TARGET/report; required for several)")
    args = parser.parse_args(argv)
    if len(args.targets) > 1 and not args.out:
        parser.error("several targets need --out")
    try:
        kind = targets_kind(args.targets)
        out = args.out or os.path.join(args.targets[0], "report")
        if kind == "sweep":
            sweep = load_sweep(args.targets[0])
            make_out_dir(out)
            title, header = f"sweep {sweep.meta.get('name', '')}", sweep_header(sweep)
            written = [write_table(sweep, out)]
            figures = sweep_figures(sweep, out)
        else:
            runs = load_runs(args.targets)
            make_out_dir(out)
            title = " vs ".join(r.label for r in runs)
            header, figures, written = summary_table(runs), run_figures(runs, out), []
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    written += [path for _, path in figures.items] + [write_report(out, title, header, figures)]
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
