#!/usr/bin/python3
"""Timeline (Gantt chart) of one fedgrid run from its events.csv: one row per host, compute in
blue, server work in orange, transfers in green on the sender's row and light green on the
receiver's, so sequential, parallel and peer-to-peer schedules can be told apart at a glance.

usage: analysis/plot_timeline.py RUN_DIR [--rounds FIRST:LAST] [--out FILE]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
import pandas as pd  # noqa: E402

COLOURS = {"compute": "tab:blue", "server": "tab:orange", "send": "tab:green", "receive": "lightgreen"}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="run output directory")
    parser.add_argument("--rounds", default="1:3", help="rounds shown, FIRST:LAST (default 1:3)")
    parser.add_argument("--out", default=None, help="PNG to write (default: RUN/timeline.png)")
    args = parser.parse_args(argv)
    try:
        first, last = (int(x) for x in args.rounds.split(":"))
    except ValueError:
        parser.error(f"--rounds expects FIRST:LAST, got {args.rounds!r}")
    events = pd.read_csv(os.path.join(args.run, "events.csv"), keep_default_na=False)
    events = events[(events["round"] >= first) & (events["round"] <= last)]
    if events.empty:
        print(f"{args.run}: no events in rounds {first}-{last}", file=sys.stderr)
        return 2

    # Rows: the server first (when it did anything), then the hospitals by name.
    names = set(events["host"]) | {p for p in events["peer"] if p}
    hosts = (["server"] if "server" in names else []) + sorted(names - {"server"})
    row = {h: i for i, h in enumerate(hosts)}

    fig, ax = plt.subplots(figsize=(9, 0.45 * len(hosts) + 1.5))
    for e in events.itertuples():
        width = e.end_s - e.start_s
        if e.kind == "send":
            ax.barh(row[e.host], width, left=e.start_s, height=0.35, align="edge", color=COLOURS["send"])
            ax.barh(row[e.peer] - 0.35, width, left=e.start_s, height=0.35, align="edge", color=COLOURS["receive"])
        else:
            ax.barh(row[e.host], width, left=e.start_s, height=0.7, align="center", color=COLOURS.get(e.kind, "grey"))
    ax.set_yticks(range(len(hosts)))
    ax.set_yticklabels(hosts)
    ax.invert_yaxis()
    ax.set_xlabel("simulated time (s)")
    ax.set_title(f"{os.path.basename(os.path.normpath(args.run))}: rounds {first}-{last}")
    ax.legend(handles=[Patch(color=c, label=k) for k, c in COLOURS.items()], loc="upper left",
              bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    out = args.out or os.path.join(args.run, "timeline.png")
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
