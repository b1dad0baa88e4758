#!/usr/bin/python3
"""Timeline (Gantt chart) of one fedgrid run from its events.csv: one row per host, compute in
blue, server work in orange, transfers in green on the sender's row and light green on the
receiver's, so sequential, parallel and peer-to-peer schedules can be told apart at a glance.

usage: analysis/plot_timeline.py RUN_DIR [--rounds FIRST:LAST] [--out FILE]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import argparse
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import InputError, load_run, make_out_dir, save_figure  # noqa: E402

COLOURS = {"compute": "tab:blue", "server": "tab:orange", "send": "tab:green", "receive": "lightgreen"}
MAX_HOSTS = 40  # more rows would be unreadable: a sample spread over all hosts is shown, and the title says so


def natural_key(name):
    """weak-2 before weak-10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def plot_timeline(run, first, last, out):
    """Writes the timeline of rounds first..last to the PNG out; returns out, or None when
    those rounds have no events."""
    events = run.events()
    events = events[(events["round"] >= first) & (events["round"] <= last)]
    if events.empty:
        return None
    first, last = events["round"].min(), events["round"].max()  # the title names the rounds there are

    # Rows: the server first (when it did anything), then the hospitals by name.
    names = set(events["host"]) | {p for p in events["peer"] if p}
    hosts = (["server"] if "server" in names else []) + sorted(names - {"server"}, key=natural_key)
    # Evenly spaced by name, so that every tier keeps some rows.
    shown = [hosts[round(i * (len(hosts) - 1) / (MAX_HOSTS - 1))] for i in range(MAX_HOSTS)] \
        if len(hosts) > MAX_HOSTS else hosts
    row = {h: i for i, h in enumerate(shown)}

    fig, ax = plt.subplots(figsize=(9, 0.45 * len(shown) + 1.5))

    def draw(frame, host_column, kind, offset, height):
        # One broken_barh per row: far faster than one bar per event.
        for host, group in frame.groupby(host_column):
            if host in row:
                spans = list(zip(group["start_s"], group["end_s"] - group["start_s"]))
                ax.broken_barh(spans, (row[host] + offset, height), color=COLOURS.get(kind, "grey"))

    sends = events[events["kind"] == "send"]
    draw(sends, "host", "send", 0.0, 0.35)
    draw(sends, "peer", "receive", -0.35, 0.35)
    for kind, frame in events[events["kind"] != "send"].groupby("kind"):
        draw(frame, "host", kind, -0.35, 0.7)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels(shown)
    ax.set_ylim(len(shown) - 0.5, -0.5)  # first host on top
    ax.set_xlabel("simulated time (s)")
    title = f"{run.label}: rounds {first}-{last}"
    if len(shown) < len(hosts):
        title += f" ({len(shown)} of {len(hosts)} hosts, evenly spaced)"
    ax.set_title(title)
    ax.legend(handles=[Patch(color=c, label=k) for k, c in COLOURS.items()], loc="upper left",
              bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return save_figure(fig, out)


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
    out = args.out or os.path.join(args.run, "timeline.png")
    try:
        run = load_run(args.run)
        make_out_dir(os.path.dirname(os.path.abspath(out)))
        written = plot_timeline(run, first, last, out)
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    if written is None:
        print(f"{os.path.join(args.run, 'events.csv')}: no events in rounds {first}-{last}", file=sys.stderr)
        return 2
    print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
