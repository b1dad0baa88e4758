#!/usr/bin/python3
"""Per-client figures over seeds: each hospital's macro precision, recall and F1 on its own test
split (hospitals.csv with output.site_metrics) at the last scored round of each run, as the
mean and 95% Student-t interval over the runs of a group (UnifiedFL's per-client tables,
Pala & Rekik 2025, Tables 7-9), one column per group, one row per hospital plus their mean.

usage: analysis/per_client.py RUN [RUN ...] [--group KEY] [--section KEY] [--confidence 0.95]
       [--out FILE]
RUN: run directories; KEY=VALUE parts of their paths (method=unifiedfl/seed=2) are axes.
--group: the axis of the columns (default method); --section: an axis giving a table each.
Prints Markdown (and writes it to --out). Bad input is exit 2 with a message.
Uses Debian's python3-scipy and python3-pandas (hence /usr/bin/python3).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import InputError, read_csv  # noqa: E402
from paired_stats import describe  # noqa: E402
from seed_stats import path_values  # noqa: E402

FIGURES = ("precision_macro", "recall_macro", "f1_macro")


def last_scored(path):
    """{hospital: (precision, recall, f1)} at the run's last round where every figure is present."""
    csv_path = os.path.join(path, "hospitals.csv")
    frame = read_csv(csv_path)
    missing = [c for c in FIGURES if c not in frame.columns]
    if missing:
        raise InputError(f"{csv_path}: no {', '.join(missing)} column (run with output.site_metrics: true)")
    scored = frame.dropna(subset=list(FIGURES))
    if scored.empty:
        raise InputError(f"{csv_path}: no round scores the hospitals")
    last = scored[scored["round"] == scored["round"].max()]
    return {str(row.hospital): tuple(float(getattr(row, f)) for f in FIGURES) for row in last.itertuples()}


def cell(values, confidence):
    spread = describe(values, confidence)
    if spread.half_width is None:
        return f"{spread.mean:.3f}"
    return f"{spread.mean:.3f} ± {spread.half_width:.3f}"


def tables(runs, group, section, confidence):
    """Markdown: per section, hospitals x groups, each cell precision / recall / F1."""
    data = {}  # section -> group -> runs, each {hospital: (p, r, f1)}
    for path in runs:
        axes = path_values(path)
        if group not in axes:
            raise InputError(f"{path}: no '{group}=' part in the path (--group)")
        sec = axes.get(section, "") if section else ""
        data.setdefault(sec, {}).setdefault(axes[group], []).append(last_scored(path))
    out = []
    for sec, groups in data.items():
        names = list(groups)
        hospitals = sorted({h for g in groups.values() for run in g for h in run})
        if sec:
            out.append(f"{section} = {sec}\n")
        out.append("| hospital | " + " | ".join(f"{g}: precision / recall / F1 (n)" for g in names) + " |")
        out.append("|---|" + "---|" * len(names))
        for hospital in hospitals + ["mean of hospitals"]:
            cells = []
            for g in names:
                if hospital == "mean of hospitals":  # one value per run: the mean over its hospitals
                    rows = [tuple(sum(f[i] for f in run.values()) / len(run) for i in range(3)) for run in groups[g]]
                else:
                    rows = [run[hospital] for run in groups[g] if hospital in run]
                if not rows:
                    cells.append("–")
                    continue
                cells.append(" / ".join(cell([r[i] for r in rows], confidence) for i in range(3)) + f" ({len(rows)})")
            out.append(f"| {hospital} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--group", default="method")
    parser.add_argument("--section")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    try:
        text = tables(args.runs, args.group, args.section, args.confidence)
    except InputError as e:
        print(f"per_client.py: {e}", file=sys.stderr)
        return 2
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
