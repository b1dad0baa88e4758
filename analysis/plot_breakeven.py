#!/usr/bin/python3
"""The break-even figure of bench/compression.sh breakeven: for each codec and none, the simulated
time to the target accuracy against the varied platform figure (the weak tier's uplink; the number
of weak hospitals sharing the server's link), the mean over the seeds' replays with their range as
a band, and each codec's crossing with none (fedgrid plan --against) marked: a dotted line at the
mean over the seeds, a shaded span over their range. Under it, each codec's time over none's
paired by seed (mean and range; below 1 it pays). One column per axis.

usage: analysis/plot_breakeven.py BREAKEVEN_DIR [--out FILE]
BREAKEVEN_DIR: OUT/PROTOCOL/target=T of bench/compression.sh breakeven (grid/AXIS/arm=A,seed=S/
sweep.csv, plans/AXIS/arm=A,seed=S/plan.json); writes BREAKEVEN_DIR/breakeven.png (or --out).
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compression_study import plan_answer, show  # noqa: E402
from fedgrid_outputs import InputError, folder_main, read_csv, read_json  # noqa: E402

AXIS_KEYS = {"weak_uplink_bps": "platform.hospitals[0].uplink_bps", "weak_hospitals": "platform.hospitals[0].count"}
AXIS_LABELS = {"weak_uplink_bps": "the weak tier's uplink (bit/s)",
               "weak_hospitals": "weak hospitals sharing the server's link (3 medium and 3 strong beside them)"}


def parts(folder):
    """{'arm': A, 'seed': S} of a folder named arm=A,seed=S."""
    return dict(p.split("=", 1) for p in os.path.basename(folder).split(","))


def grid(axis_dir, axis):
    """{arm: DataFrame(value, seed, time)} of the axis's sweeps (ok cells with a time)."""
    by_arm = {}
    for sweep in sorted(glob.glob(os.path.join(axis_dir, "arm=*", "sweep.csv"))):
        names = parts(os.path.dirname(sweep))
        cells = read_csv(sweep)
        cells = cells[(cells["status"] == "ok") & cells["time_to_target_s"].notna()]
        frame = pd.DataFrame({"value": cells[axis].astype(float), "seed": names["seed"],
                              "time": cells["time_to_target_s"].astype(float)})
        by_arm.setdefault(names["arm"], []).append(frame)
    return {arm: pd.concat(frames) for arm, frames in by_arm.items()}


def crossings(plans_dir):
    """{arm: ([crossings], [bounds])} of the axis's plans."""
    out = {}
    for plan_dir in sorted(glob.glob(os.path.join(plans_dir, "arm=*"))):
        arm = parts(plan_dir)["arm"]
        values, bounds = out.setdefault(arm, ([], []))
        never = os.path.join(plan_dir, "never.txt")
        if os.path.isfile(never):
            bounds.append("never reaches the target")
            continue
        if not os.path.isfile(os.path.join(plan_dir, "plan.json")):
            continue
        value, bound = plan_answer(read_json(os.path.join(plan_dir, "plan.json")))
        (values if value is not None else bounds).append(value if value is not None else bound)
    return out


def plot(folder, out=None):
    # The uplink first, the hospitals' count beside it.
    axes_dirs = sorted(glob.glob(os.path.join(folder, "grid", "*")), key=lambda d: "hospitals" in d)
    if not axes_dirs:
        raise InputError(f"{folder}: no grid (grid/AXIS/arm=A,seed=S/sweep.csv)")
    fig, panels = plt.subplots(3, len(axes_dirs), figsize=(7.5 * len(axes_dirs), 11), squeeze=False,
                               gridspec_kw={"height_ratios": [3, 1.1, 2]})
    colours = {}
    for column, axis_dir in enumerate(axes_dirs):
        ax, legend_ax, ratio_ax = panels[0][column], panels[1][column], panels[2][column]
        axis = os.path.basename(axis_dir)
        curves = grid(axis_dir, axis)
        key = AXIS_KEYS.get(axis, axis)
        marks = crossings(os.path.join(folder, "plans", axis))
        none = curves.get("none")
        for arm in sorted(curves, key=lambda a: (a != "none", a)):
            frame = curves[arm]
            seeds = frame["seed"].nunique()
            # The values every seed's replay reached the target at.
            stats = frame.groupby("value")["time"].agg(["mean", "min", "max", "count"])
            stats = stats[stats["count"] == seeds]
            if stats.empty:
                continue
            colour = "black" if arm == "none" else colours.setdefault(arm, f"C{len(colours)}")
            label = f"{arm} ({seeds} seed{'s' if seeds > 1 else ''})"
            values, bounds = marks.get(arm, ([], []))
            if values:
                low, high = min(values), max(values)
                mean = sum(values) / len(values)
                label += f": stops paying at {show(mean, key)} [{show(low, key)}, {show(high, key)}] " \
                         f"({len(values)} seed{'s' if len(values) > 1 else ''})"
                for a in (ax, ratio_ax):
                    a.axvline(mean, color=colour, linestyle=":", linewidth=1.2)
                    if high > low:
                        a.axvspan(low, high, color=colour, alpha=0.08)
            if bounds:
                label += ("; " if values else ": ") + "; ".join(sorted(set(bounds)))
            ax.plot(stats.index, stats["mean"], color=colour, marker="o", markersize=3,
                    linewidth=2 if arm == "none" else 1.2, label=label)
            if seeds > 1:
                ax.fill_between(stats.index, stats["min"], stats["max"], color=colour, alpha=0.15, linewidth=0)
            # Paired by seed: the codec's time over none's, at the values both have.
            if arm != "none" and none is not None:
                paired = frame.merge(none, on=["value", "seed"], suffixes=("", "_none"))
                paired["ratio"] = paired["time"] / paired["time_none"]
                r = paired.groupby("value")["ratio"].agg(["mean", "min", "max"])
                if not r.empty:
                    ratio_ax.plot(r.index, r["mean"], color=colour, marker="o", markersize=3, linewidth=1.2)
                    ratio_ax.fill_between(r.index, r["min"], r["max"], color=colour, alpha=0.15, linewidth=0)
        for a in (ax, ratio_ax):
            a.set_xscale("log")
            a.set_yscale("log")
            a.grid(alpha=0.3, which="both")
        ax.set_ylabel("simulated time to the target accuracy (s)")
        legend_ax.axis("off")
        legend_ax.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="center", frameon=False)
        ratio_ax.axhline(1, color="black", linewidth=1.5)
        ratio_ax.set_ylabel("codec's time / none's, same seed (below 1: it pays)")
        ratio_ax.set_xlabel(AXIS_LABELS.get(axis, axis))
    target = os.path.basename(os.path.normpath(folder))
    protocol = os.path.basename(os.path.dirname(os.path.normpath(folder)))
    fig.suptitle(f"{protocol}, {target.replace('=', ' ')}: mean over the seeds' replays (band: their range); "
                 f"dotted: where each codec stops paying (shaded: its range over the seeds)", fontsize=10)
    path = out or os.path.join(folder, "breakeven.png")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv):
    return folder_main(argv, __doc__.splitlines()[0], "a break-even folder (OUT/PROTOCOL/target=T)",
                       "the PNG to write (default: FOLDER/breakeven.png)", plot)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
