#!/usr/bin/python3
"""The figure of a `fedgrid plan`: the target's figure against the varied key at every point the
search ran, the target's line, the answer marked, and each point coloured by the largest phase
of its rounds' critical path (where the scenario sets output.critical_path). A break-even plan
(--against, target 'FIGURE <= against') draws the other scenario's figure as the line instead.
Reads PLAN_DIR's plan.csv and plan.json; writes PLAN_DIR/plan.png (or --out).

usage: analysis/plot_plan.py PLAN_DIR [--out FILE]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import folder_main  # noqa: E402

COLOURS = {"downlink": "tab:orange", "compute": "tab:green", "uplink": "tab:blue", "peer": "tab:purple",
           "server": "tab:red", "idle": "grey", "": "black"}


def plot_plan(folder, out=None):
    with open(os.path.join(folder, "plan.json")) as f:
        plan = json.load(f)
    points = pd.read_csv(os.path.join(folder, "plan.csv"), keep_default_na=False)
    points = points[points["figure"] != ""].copy()
    points["figure"] = points["figure"].astype(float)
    points = points.sort_values("value")
    figure, _, threshold = plan["target"].rpartition(" ")
    figure = figure.rsplit(" ", 1)[0]
    against = plan.get("against")
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.plot(points["value"], points["figure"], color="lightgrey", zorder=1)
    for phase, group in points.groupby(points["bottleneck"].astype(str)):
        ax.scatter(group["value"], group["figure"], color=COLOURS.get(phase, "black"), zorder=2,
                   label=f"bottleneck: {phase}" if phase else "run")
    if against:
        other = points[points["against_figure"] != ""]
        ax.plot(other["value"], other["against_figure"].astype(float), color="tab:red", linestyle="--", linewidth=1,
                label=f"{figure} of {os.path.basename(against)}")
    else:
        ax.axhline(float(threshold), color="tab:red", linestyle="--", linewidth=1, label=plan["target"])
    if plan.get("answer") is not None:
        ax.axvline(plan["answer"], color="black", linestyle=":", linewidth=1, label=f"answer: {plan['answer']:g}")
    low, high = plan["range"]
    if low > 0 and high / low >= 100:
        ax.set_xscale("log")
    ax.set_xlabel(plan["key"])
    ax.set_ylabel(f"{figure} (points: {os.path.basename(plan['scenario'])})" if against else figure)
    verdict = plan["verdict"] if plan.get("monotone", True) else "not monotone: the answer is a bracket"
    ax.set_title(f"{os.path.basename(os.path.normpath(folder))}: {verdict}, {plan['runs']} runs", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    path = out or os.path.join(folder, "plan.png")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv):
    return folder_main(argv, __doc__.splitlines()[0], "a plan's folder (holds plan.csv and plan.json)",
                       "the PNG to write (default: PLAN_DIR/plan.png)", plot_plan)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
