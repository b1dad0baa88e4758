"""Loading fedgrid's run and sweep output folders, and the few plotting helpers the analysis
scripts share.

Every reader raises InputError with a message naming the offending file, so that a script can
print it and exit 2 instead of showing a traceback.
"""
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field

import pandas as pd

# Tiers in their natural order; any other tier name follows alphabetically.
TIER_ORDER = ["weak", "medium", "strong"]

# Summary figures of a sweep cell (sweep.csv), after the axis and bookkeeping columns.
SWEEP_METRICS = ["rounds", "final_accuracy", "best_accuracy", "final_auc", "final_tier_gap", "sim_time_s",
                 "time_to_target_s", "bytes_total", "bytes_up", "bytes_down", "bytes_peer", "messages", "energy_j"]


# Metric -> (axis label, factor applied to the stored value).
METRIC_LABELS = {
    "final_accuracy": ("final accuracy (%)", 100),
    "accuracy": ("accuracy (%)", 100),  # rounds.csv
    "best_accuracy": ("best accuracy (%)", 100),
    "final_auc": ("final AUC", 1),
    "final_tier_gap": ("final tier gap (percentage points)", 100),
    "sim_time_s": ("simulated time (s)", 1),
    "time_to_target_s": ("simulated time to target accuracy (s)", 1),
    "bytes_total": ("traffic (MB)", 1e-6),
    "bytes_up": ("traffic up (MB)", 1e-6),
    "bytes_down": ("traffic down (MB)", 1e-6),
    "bytes_peer": ("peer traffic (MB)", 1e-6),
    "energy_j": ("energy (kJ)", 1e-3),
}


def metric_label(metric):
    """(label, factor) of a sweep.csv, summary.json or rounds.csv figure."""
    if metric.startswith("final_acc_"):
        return f"final accuracy, {metric[len('final_acc_'):]} tier (%)", 100
    if metric.startswith("acc_"):  # rounds.csv
        return f"accuracy, {metric[len('acc_'):]} tier (%)", 100
    return METRIC_LABELS.get(metric, (metric, 1))


def markdown_cell(text):
    """text on one line, with the pipes that would split a markdown table cell escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


class InputError(Exception):
    """A missing or unreadable input file or folder; the message names it."""


def read_csv(path, **kwargs):
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    try:
        return pd.read_csv(path, **kwargs)
    except (OSError, ValueError, pd.errors.ParserError) as e:  # EmptyDataError is a ValueError
        raise InputError(f"{path}: cannot read: {e}") from e


def read_json(path):
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: cannot read: {e}") from e


def require_columns(frame, columns, path):
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")


def safe_name(text):
    """A file-name-safe form of text: anything outside [A-Za-z0-9_.-] becomes '_'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_") or "x"


def format_value(value, fmt, factor=1):
    """A number: value * factor formatted with fmt ("{:.2f}"); '-' when missing (None or NaN);
    anything else as it is (a stop reason)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, (int, float)):
        return fmt.format(value * factor)
    return str(value)


def ordered_tiers(tiers):
    tiers = set(tiers)
    return [t for t in TIER_ORDER if t in tiers] + sorted(tiers - set(TIER_ORDER))


@dataclass
class Run:
    """One run directory: its summary.json and rounds.csv (the small files), loaded eagerly."""
    path: str
    summary: dict
    rounds: pd.DataFrame
    label: str = ""
    _cache: dict = field(default_factory=dict, repr=False)

    def tiers(self):
        """Tiers with an acc_<tier> column in rounds.csv, in natural order."""
        return ordered_tiers(c[len("acc_"):] for c in self.rounds.columns if c.startswith("acc_"))

    def hospitals(self):
        if "hospitals" not in self._cache:
            path = os.path.join(self.path, "hospitals.csv")
            frame = read_csv(path)
            require_columns(frame, ["round", "hospital", "tier", "bytes_up", "bytes_down"], path)
            self._cache["hospitals"] = frame
        return self._cache["hospitals"]

    def events(self):
        if "events" not in self._cache:
            path = os.path.join(self.path, "events.csv")
            # Empty peer fields stay "" rather than NaN (compute and server rows have no peer).
            frame = read_csv(path, keep_default_na=False)
            require_columns(frame, ["start_s", "end_s", "host", "kind", "peer", "bytes", "round"], path)
            self._cache["events"] = frame
        return self._cache["events"]


def load_run(path, label=None):
    if not os.path.isdir(path):
        raise InputError(f"{path}: no such run directory")
    summary = read_json(os.path.join(path, "summary.json"))
    if not isinstance(summary, dict):
        raise InputError(f"{os.path.join(path, 'summary.json')}: not a JSON object")
    rounds_path = os.path.join(path, "rounds.csv")
    rounds = read_csv(rounds_path)
    require_columns(rounds, ["round", "sim_time_s", "accuracy", "bytes_up", "bytes_down"], rounds_path)
    return Run(path, summary, rounds, label or summary.get("scenario") or os.path.basename(os.path.normpath(path)))


def load_runs(paths):
    """Runs with legend labels that tell them apart: the scenario name, then the algorithm when
    two runs share a scenario, then the directory when that is still ambiguous."""
    runs = [load_run(p) for p in paths]
    for extra in (lambda r: r.summary.get("algorithm"), lambda r: os.path.basename(os.path.normpath(r.path))):
        labels = [r.label for r in runs]
        for r in runs:
            if labels.count(r.label) > 1 and extra(r):
                r.label = f"{r.label} ({extra(r)})"
    return runs


@dataclass
class Sweep:
    """A sweep folder: sweep.json (the axes) and sweep.csv (one row per cell, all fields as
    strings, summary figures as numbers, NaN where empty)."""
    path: str
    meta: dict
    cells: pd.DataFrame

    def axes(self):
        return [a["name"] for a in self.meta["axes"]]

    def axis_values(self, name):
        """The axis's values in sweep.json's order, as written; sweep.csv's own when they do
        not match (a sweep.json with numbers instead of strings)."""
        declared = next([str(v) for v in a["values"]] for a in self.meta["axes"] if a["name"] == name)
        seen = list(dict.fromkeys(self.cells[name]))
        return declared if set(seen) <= set(declared) else seen

    def axis_is_numeric(self, name):
        try:
            [float(v) for v in self.axis_values(name)]
        except ValueError:
            return False
        return True

    def ok(self):
        return self.cells[self.cells["status"] == "ok"]

    def cell_label(self, cell):
        """'axis=value, ...' for a cell row, with the seed when the sweep has several."""
        parts = [f"{a}={cell[a]}" for a in self.axes()]
        if len(self.meta.get("seeds", [])) > 1:
            parts.append(f"seed={cell['seed']}")
        return ", ".join(parts)


def load_sweep(path):
    if not os.path.isdir(path):
        raise InputError(f"{path}: no such sweep directory")
    meta_path = os.path.join(path, "sweep.json")
    meta = read_json(meta_path)
    if not isinstance(meta, dict) or not isinstance(meta.get("axes"), list) or not all(
            isinstance(a, dict) and "name" in a and isinstance(a.get("values"), list) and a["values"]
            for a in meta["axes"]):
        raise InputError(f"{meta_path}: 'axes' must be a list of {{name, key, values}} with values")
    csv_path = os.path.join(path, "sweep.csv")
    # Strings throughout: axis values stay as written ("10e6"); figures are converted below.
    cells = read_csv(csv_path, dtype=str, keep_default_na=False)
    require_columns(cells, ["cell"] + [a["name"] for a in meta["axes"]] + ["seed", "status", "error", "dir",
                    "final_accuracy", "sim_time_s", "time_to_target_s", "bytes_total"], csv_path)
    for column in SWEEP_METRICS + [c for c in cells.columns if c.startswith("final_acc_")]:
        if column in cells.columns:
            cells[column] = pd.to_numeric(cells[column], errors="coerce")
    return Sweep(path, meta, cells)


def target_kind(path):
    """'run' or 'sweep', from the files the directory holds."""
    if not os.path.isdir(path):
        raise InputError(f"{path}: no such directory")
    if os.path.isfile(os.path.join(path, "sweep.csv")):
        return "sweep"
    if os.path.isfile(os.path.join(path, "summary.json")):
        return "run"
    raise InputError(f"{path}: neither a run (summary.json) nor a sweep (sweep.csv) directory")


def targets_kind(paths):
    """'sweep' for one sweep directory, 'runs' for run directories; a sweep among other
    targets is an error (it stands on its own)."""
    kinds = [target_kind(p) for p in paths]
    if "sweep" in kinds and len(kinds) > 1:
        raise InputError(f"{paths[kinds.index('sweep')]}: a sweep directory is analysed on its own")
    return "sweep" if kinds == ["sweep"] else "runs"


def note_no_data(ax, text):
    """Writes text across an empty plot, so a figure without data says why; its meaningless
    ticks go."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="grey")


def make_out_dir(path):
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise InputError(f"{path}: cannot create output directory: {e.strerror}") from e
    return path


def add_legend(ax):
    """A legend inside the axes for a few entries, outside on the right for many (long sweep
    labels would hide the curves)."""
    handles, _ = ax.get_legend_handles_labels()
    if len(handles) > 4:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    elif handles:
        ax.legend(fontsize=8)


def save_figure(fig, path, **savefig_args):
    import matplotlib.pyplot as plt  # here, so that loading data needs no matplotlib

    fig.tight_layout()
    fig.savefig(path, dpi=120, **savefig_args)
    plt.close(fig)
    return path


def runs_main(argv, description, plot, out_help):
    """The command line of a script that plots one or more runs: RUN [RUN ...] [--out DIR].
    `plot(runs, out)` returns the paths it wrote."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("runs", nargs="+", help="run output directories")
    parser.add_argument("--out", default=None, help=out_help)
    args = parser.parse_args(argv)
    try:
        runs = load_runs(args.runs)
        out = make_out_dir(args.out or args.runs[0])
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    for path in plot(runs, out):
        print(path)
    return 0


def folder_main(argv, description, folder_help, out_help, plot):
    """The command line of a script that draws one figure from one folder: FOLDER [--out OUT].
    `plot(folder, out)` returns the path it wrote (out is None when not given); a missing or
    unreadable input is an error naming the folder, exit 2."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("folder", help=folder_help)
    parser.add_argument("--out", default=None, help=out_help)
    args = parser.parse_args(argv)
    try:
        print(plot(args.folder, args.out))
    except (InputError, OSError, ValueError, KeyError) as e:
        print(f"error: {args.folder}: {e}", file=sys.stderr)
        return 2
    return 0
