#!/usr/bin/python3
"""Accuracy against simulated time, one curve per group of runs over seeds (and folds): at each
round, the mean over the group's runs of the simulated time and of the metric, with the 95%
Student-t interval of the metric's mean as a band. Rounds that not every run of a group reached
are left out of its curve (a run stopped early by its budget or its global stop).

usage: analysis/plot_seeds.py RUN_DIR [RUN_DIR ...] [--group KEY] [--metric COLUMN] [--out FILE]
RUN_DIR: run folders; KEY=VALUE parts of their paths (bench/reproduce.sh's method=M/seed=S)
name the group (--group, default method), and a section=VALUE part (--section KEY) gives one
panel per value. --metric: a rounds.csv column (default accuracy). Bad input is exit 2.
Uses Debian's python3-matplotlib and python3-scipy (hence /usr/bin/python3).
"""
import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from scipy import stats  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import InputError, read_csv  # noqa: E402
from seed_stats import path_values  # noqa: E402


def curve(runs, metric):
    """(time, mean, half-width) per round that every run reached, in round order."""
    by_round = []
    for path in runs:
        rows = read_csv(os.path.join(path, "rounds.csv"))
        if metric not in rows.columns:
            raise InputError(f"{path}/rounds.csv: no column '{metric}'")
        points = {}
        for r, t, v in zip(rows["round"], rows["sim_time_s"], rows[metric]):
            if v == v:  # NaN: a round not evaluated (output.eval_every)
                points[int(r)] = (float(t), float(v))
        by_round.append(points)
    common = sorted(set.intersection(*(set(p) for p in by_round)))
    out = []
    for r in common:
        times = [p[r][0] for p in by_round]
        values = [p[r][1] for p in by_round]
        n = len(values)
        mean = sum(values) / n
        half = 0.0
        if n > 1:
            sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
            half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
        out.append((sum(times) / n, mean, half))
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--group", default="method")
    parser.add_argument("--section", default=None)
    parser.add_argument("--metric", default="accuracy")
    parser.add_argument("--out", default="accuracy_vs_time.png")
    args = parser.parse_args(argv)
    try:
        panels = {}
        for path in args.runs:
            values = path_values(path)
            if args.group not in values:
                raise InputError(f"{path}: no {args.group}=VALUE part in the path")
            section = values.get(args.section, "") if args.section else ""
            panels.setdefault(section, {}).setdefault(values[args.group], []).append(path)
        fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 4.5), squeeze=False)
        for ax, (section, groups) in zip(axes[0], panels.items()):
            for name, runs in groups.items():
                points = curve(runs, args.metric)
                if not points:
                    continue
                t, m, h = zip(*points)
                line, = ax.plot(t, [100 * v for v in m], marker="o", markersize=3, label=f"{name} (n={len(runs)})")
                ax.fill_between(t, [100 * (a - b) for a, b in zip(m, h)], [100 * (a + b) for a, b in zip(m, h)],
                                color=line.get_color(), alpha=0.15)
            ax.set_ylim(bottom=max(0, ax.get_ylim()[0]), top=min(100, ax.get_ylim()[1]))
            ax.set_xlabel("simulated time (s)")
            ax.set_ylabel(f"{args.metric} (%), mean and 95% CI")
            if section:
                ax.set_title(f"{args.section} = {section}")
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.out, dpi=110)
        print(args.out)
    except (InputError, OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
