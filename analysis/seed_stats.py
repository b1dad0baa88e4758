#!/usr/bin/python3
"""Shows when a difference between methods is noise: per group of runs (an algorithm, or any
other key) over seeds, a metric's n, mean, standard deviation and confidence interval of the
mean (Student's t), and a reference group paired by seed (and fold) with every other group:
the mean difference, its confidence interval, the paired t-test's p-value and a verdict.

usage: analysis/seed_stats.py TARGET [TARGET ...] [--metric NAME] [--group KEY]
         [--reference VALUE] [--pair-by KEY ...] [--by KEY ...] [--confidence 0.95]
         [--lower-is-better | --higher-is-better] [--out DIR]
TARGET: one sweep directory (sweep.csv) or run directories (summary.json; KEY=VALUE parts of
their paths, e.g. method=fedskd/fold=2/seed=1, count as axes). --metric: a
summary.json figure (default final_accuracy; OUTER.INNER for a nested one, e.g.
final_site.f1_macro_mean), else a rounds.csv column at the last round (rounds:NAME forces
rounds.csv), or time_to:COLUMN>=X, the simulated time of the first round whose rounds.csv COLUMN
reaches X (empty for a run that never does; a run need not stop there). --group: a sweep axis (its name or key) or a summary.json
field (default algorithm). Units pair on the seed, an axis named fold or split, and --pair-by;
a sweep's other axes (and --by) give a table section each. Prints a Markdown table; writes it
and a CSV into --out (default for a sweep: SWEEP/stats). Bad input is exit 2 with a message.
Uses Debian's python3-scipy and python3-pandas (hence /usr/bin/python3).
"""
import argparse
import csv
import math
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import (InputError, load_sweep, make_out_dir, markdown_cell, metric_label,  # noqa: E402
                             read_csv, read_json, safe_name, targets_kind)
from paired_stats import compare, describe, verdict  # noqa: E402

# Axes that split one seed's data several ways (cross-validation): units pair on them too.
FOLD_AXES = {"fold", "split"}
# Metrics where less is better (time, traffic, energy, spread); the rest: more is better.
LOWER_IS_BETTER_PREFIXES = ("bytes", "energy", "messages", "loss", "rounds", "epoch_transfers")
LOWER_IS_BETTER_PARTS = ("_gap", "_std")


@dataclass
class Cell:
    """One run: its folder, summary.json and the values that place it (sweep axes, seed)."""
    path: str
    summary: dict
    attrs: dict

    def get(self, key):
        """key's value as text: a sweep axis (by name or key), the seed, else a scalar
        summary.json field; None when it has none."""
        if key in self.attrs:
            return self.attrs[key]
        value = self.summary.get(key)
        if value is None or isinstance(value, (dict, list)):
            return None
        return str(value)


def load_summary(path):
    summary_path = os.path.join(path, "summary.json")
    summary = read_json(summary_path)
    if not isinstance(summary, dict):
        raise InputError(f"{summary_path}: not a JSON object")
    return summary


def sweep_cells(path):
    """The ok cells of a sweep, its axes ({name: key}) and notes on the cells left out."""
    sweep = load_sweep(path)
    axes = {a["name"]: a.get("key", a["name"]) for a in sweep.meta["axes"]}
    cells, notes = [], []
    for _, row in sweep.cells.iterrows():
        attrs = {"seed": row["seed"]}
        for name, key in axes.items():
            attrs[name] = attrs[key] = row[name]
        if row["status"] != "ok":
            notes.append(f"cell {row['cell']} ({row['dir']}) left out: {row['status']} {row['error']}".strip())
            continue
        cell_dir = os.path.join(path, row["dir"])
        cells.append(Cell(cell_dir, load_summary(cell_dir), attrs))
    return sweep, axes, cells, notes


def path_values(path):
    """The KEY=VALUE components of a run directory's path (bench/reproduce.sh lays runs out as
    .../method=fedskd/fold=2/seed=1), in path order."""
    values = {}
    for part in os.path.normpath(path).split(os.sep):
        key, eq, value = part.partition("=")
        if eq and key:
            values[key] = value
    return values


def run_cells(paths):
    """Run directories as cells; their paths' KEY=VALUE components act as a sweep's axes
    (returned as the axes, each its own key), the seed's too."""
    cells, axes = [], {}
    for p in paths:
        values = path_values(p)
        axes.update({k: k for k in values if k != "seed"})
        cells.append(Cell(p, load_summary(p), values))
    return cells, axes


def resolve_key(key, axes):
    """The axis name a key stands for (its name, its scenario key, or 'algorithm' for
    algorithm.name), else the key itself (a summary.json field)."""
    for name, axis_key in axes.items():
        if key in (name, axis_key) or (key == "algorithm" and axis_key == "algorithm.name"):
            return name
    return key


def require_key(cells, key, option, axes):
    for cell in cells:
        if cell.get(key) is None:
            where = f" and no axis of the sweep (axes: {', '.join(axes)})" if axes else ""
            raise InputError(f"{os.path.join(cell.path, 'summary.json')}: no field '{key}' ({option}){where}")


TIME_TO = "time_to:"


def parse_time_to(metric):
    """time_to:COLUMN>=X as (COLUMN, X)."""
    column, sep, threshold = metric[len(TIME_TO):].partition(">=")
    try:
        value = float(threshold)
    except ValueError:
        value = None
    if not sep or not column or value is None:
        raise InputError(f"--metric {metric}: expected time_to:COLUMN>=NUMBER, e.g. time_to:accuracy>=0.8")
    return column, value


def time_to(cell, metric):
    """time_to:COLUMN>=X: sim_time_s of the first round of rounds.csv whose COLUMN is at least X
    (rounds without a value, such as unscored ones, never count), None when no round reaches it."""
    column, threshold = parse_time_to(metric)
    rounds_path = os.path.join(cell.path, "rounds.csv")
    rounds = read_csv(rounds_path)
    for needed in (column, "sim_time_s"):
        if needed not in rounds.columns:
            raise InputError(f"{rounds_path}: no column '{needed}' ({metric})")
    reached = rounds[rounds[column] >= threshold]
    return None if reached.empty else float(reached["sim_time_s"].iloc[0])


def metric_value(cell, metric):
    """The metric of a run as a float, or None where the run has none (a null summary figure,
    such as time_to_target_s of a run that never reached the target, or an empty last row)."""
    if metric.startswith(TIME_TO):
        return time_to(cell, metric)
    column = metric[len("rounds:"):] if metric.startswith("rounds:") else metric
    summary_path = os.path.join(cell.path, "summary.json")
    outer, _, inner = metric.partition(".")
    if not metric.startswith("rounds:") and metric in cell.summary:
        value, where = cell.summary[metric], f"{summary_path}: field '{metric}'"
    elif inner and isinstance(cell.summary.get(outer), dict):  # a nested figure: final_site.auc_mean
        if inner not in cell.summary[outer]:
            raise InputError(f"{summary_path}: field '{outer}' has no '{inner}'")
        value, where = cell.summary[outer][inner], f"{summary_path}: field '{metric}'"
    else:
        rounds_path = os.path.join(cell.path, "rounds.csv")
        rounds = read_csv(rounds_path)
        if column not in rounds.columns:
            looked = "" if metric.startswith("rounds:") else f"{summary_path} has no field '{metric}' and "
            raise InputError(f"{looked}{rounds_path}: no column '{column}'")
        if rounds.empty:
            raise InputError(f"{rounds_path}: no rows")
        value, where = rounds[column].iloc[-1], f"{rounds_path}: column '{column}', last row"
        value = None if isinstance(value, float) and math.isnan(value) else value
    if value is None:
        return None
    try:
        if isinstance(value, (bool, str)):  # float() would take True and "1.5"
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: not a number ({value!r})") from None


def lower_is_better(metric):
    if metric.startswith(TIME_TO):
        return True
    name = metric[len("rounds:"):] if metric.startswith("rounds:") else metric
    return (name.endswith("_s") or name.startswith(LOWER_IS_BETTER_PREFIXES)
            or any(part in name for part in LOWER_IS_BETTER_PARTS))


def unit_order(unit):
    """Units sorted numerically where their parts are numbers (seed 10 after seed 9)."""
    def part(v):
        try:
            return (0, float(v), "")
        except ValueError:
            return (1, 0.0, v)
    return tuple(part(v) for v in unit)


@dataclass
class Section:
    """The rows of one combination of the condition keys: group -> {unit: value}."""
    condition: tuple
    groups: dict


def gather(cells, metric, group, pair_keys, condition_keys):
    """Sections in first-seen order, and notes on runs without a value."""
    sections, sources, empty = {}, {}, []
    for cell in cells:
        condition = tuple(cell.get(k) for k in condition_keys)
        unit = tuple(cell.get(k) for k in pair_keys)
        value = metric_value(cell, metric)
        where = (condition, cell.get(group), unit)
        if where in sources:
            raise InputError(f"{sources[where]} and {cell.path}: same {group} '{where[1]}' and "
                             f"{describe_unit(pair_keys, unit)}; --pair-by or --by KEY must tell them apart")
        sources[where] = cell.path
        section = sections.setdefault(condition, Section(condition, {}))
        section.groups.setdefault(cell.get(group), {})
        if value is None:
            empty.append(f"{cell.get(group)} {describe_unit(pair_keys, unit)}")
        else:
            section.groups[cell.get(group)][unit] = value
    notes = [f"{metric} empty in {len(empty)} run(s), left out: {', '.join(empty)}"] if empty else []
    return list(sections.values()), notes


def describe_unit(keys, values):
    """'seed 3 fold 1': keys and their values, for notes and messages."""
    return " ".join(f"{k} {v}" for k, v in zip(keys, values))


@dataclass
class Row:
    """One group of one section, with its comparison to the reference (None for the reference)."""
    condition: tuple
    group: str
    spread: object  # paired_stats.Spread, None when the group has no value
    paired: object = None
    verdict: str = ""


def analyse(sections, reference, order, confidence, higher_is_better, pair_keys, condition_keys):
    rows, notes = [], []
    for section in sections:
        groups = sorted(section.groups, key=lambda g: (g != reference, order.index(g) if g in order else len(order)))
        ref_values = section.groups.get(reference)
        where = f" ({describe_unit(condition_keys, section.condition)})" if section.condition else ""
        if not ref_values:
            notes.append(f"no {reference} value{where}: no paired comparison")
        for g in groups:
            values = section.groups[g]
            spread = describe(values.values(), confidence) if values else None
            if spread is not None and spread.n < 2:
                notes.append(f"{g}{where}: fewer than 2 seeds ({spread.n}), no confidence interval")
            row = Row(section.condition, g, spread)
            if g != reference and ref_values:
                row.paired = compare(ref_values, values, confidence)
                row.verdict = verdict(row.paired, higher_is_better)
                for side, units in ((reference, row.paired.only_reference if row.paired else list(ref_values)),
                                    (g, row.paired.only_other if row.paired else list(values))):
                    if units:
                        listed = ", ".join(describe_unit(pair_keys, u) for u in sorted(units, key=unit_order))
                        notes.append(f"{reference} vs {g}{where}: {len(units)} unpaired run(s) dropped, "
                                     f"only in {side}: {listed}")
            rows.append(row)
    return rows, notes


def fmt(value, spec, factor):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    text = spec.format(value * factor)
    if value != 0 and float(text) == 0:  # a real difference below the table's precision
        text = ("{:+.2g}" if "+" in spec else "{:.2g}").format(value * factor)
    return text


def decimals(rows, factor):
    """Decimal places that give the table's largest mean four significant digits, so that
    every number of one table has the same precision."""
    means = [abs(r.spread.mean * factor) for r in rows if r.spread is not None]
    largest = max(means, default=0)
    return 2 if largest == 0 else max(0, 3 - math.floor(math.log10(largest)))


def markdown(rows, condition_keys, group, reference, metric, confidence, higher_is_better, pair_keys, notes):
    if metric.startswith(TIME_TO):
        column, threshold = parse_time_to(metric)
        label, factor = f"simulated time to {column} >= {threshold:g} (s)", 1
    else:
        label, factor = metric_label(metric[len("rounds:"):] if metric.startswith("rounds:") else metric)
    number = "{:.2f}" if factor == 100 else f"{{:.{decimals(rows, factor)}f}}"
    signed = number.replace("{:", "{:+")
    level = f"{confidence * 100:g}%"
    lines = [f"{label}: mean ± half-width of the {level} confidence interval of the mean (Student's t) over "
             f"each {group}'s runs; {reference} − each other {group}, paired by {' and '.join(pair_keys)}, "
             f"with the two-sided paired t-test; {'higher' if higher_is_better else 'lower'} is better.", ""]
    header = condition_keys + [group, "n", f"mean ± {level} CI", "sd", f"{reference} − {group}",
                               f"{level} CI of the difference", "pairs", "p (paired t)", f"{reference} is"]
    lines += ["| " + " | ".join(markdown_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        s = row.spread
        cells = list(row.condition) + [row.group, s.n if s else 0]
        if s is None:
            cells += ["-", "-"]
        else:
            mean = fmt(s.mean, number, factor)
            cells += [mean if s.half_width is None else f"{mean} ± {fmt(s.half_width, number, factor)}",
                      fmt(s.sd, number, factor)]
        p = row.paired
        if row.group == reference:
            cells += ["(reference)", "", "", "", ""]
        elif p is None:
            cells += ["-", "-", 0, "-", row.verdict or "-"]
        else:
            low, high = p.differences.interval()
            interval = "-" if low is None else f"[{fmt(low, signed, factor)}, {fmt(high, signed, factor)}]"
            cells += [fmt(p.differences.mean, signed, factor), interval, p.differences.n,
                      fmt(p.p_value, "{:.3g}", 1), row.verdict]
        lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    lines += [""] + [f"- {note}" for note in notes] if notes else []
    return "\n".join(lines) + "\n"


def write_csv(path, rows, condition_keys, group, reference):
    def num(value):
        return "" if value is None or (isinstance(value, float) and math.isnan(value)) else repr(float(value))

    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(condition_keys + [group, "n", "mean", "sd", "ci_low", "ci_high", "reference", "pairs",
                                       "dropped", "diff_mean", "diff_sd", "diff_ci_low", "diff_ci_high",
                                       "p_value", "verdict"])
        for row in rows:
            s, p = row.spread, row.paired
            low, high = s.interval() if s else (None, None)
            fields = list(row.condition) + [row.group, s.n if s else 0, num(s.mean if s else None),
                                            num(s.sd if s else None), num(low), num(high), reference]
            if p is None:
                fields += ["", "", "", "", "", "", "", row.verdict]
            else:
                d = p.differences
                dlow, dhigh = d.interval()
                fields += [d.n, len(p.only_reference) + len(p.only_other), num(d.mean), num(d.sd), num(dlow),
                           num(dhigh), num(p.p_value), row.verdict]
            out.writerow(fields)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+", metavar="TARGET", help="a sweep directory, or run directories")
    parser.add_argument("--metric", default="final_accuracy",
                        help="summary.json figure, rounds.csv column at the last round (rounds:NAME), "
                             "or the simulated time a column first reaches a value (time_to:COLUMN>=X)")
    parser.add_argument("--group", default="algorithm", help="sweep axis or summary.json field (default algorithm)")
    parser.add_argument("--reference", default=None, help="the group the others are compared with (default: the first)")
    parser.add_argument("--pair-by", action="append", default=[], metavar="KEY",
                        help="pair runs on this key too, besides the seed (repeatable)")
    parser.add_argument("--by", action="append", default=[], metavar="KEY",
                        help="a table section per value of this key (a sweep's other axes always are)")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument("--lower-is-better", dest="higher", action="store_false", default=None)
    direction.add_argument("--higher-is-better", dest="higher", action="store_true")
    parser.add_argument("--out", default=None, help="where to write seed_stats_<metric>.md and .csv")
    args = parser.parse_args(argv)
    if not 0 < args.confidence < 1:
        parser.error(f"--confidence {args.confidence}: must lie strictly between 0 and 1")
    try:
        axes, notes, out = {}, [], args.out
        if targets_kind(args.targets) == "sweep":
            sweep, axes, cells, notes = sweep_cells(args.targets[0])
            out = out or os.path.join(args.targets[0], "stats")
        else:
            cells, axes = run_cells(args.targets)
        if not cells:
            raise InputError(f"{args.targets[0]}: no run finished (every cell failed)")
        group = resolve_key(args.group, axes)
        folds = [name for name, key in axes.items() if name in FOLD_AXES or key.split(".")[-1] in FOLD_AXES]
        pair_keys = list(dict.fromkeys(["seed"] + folds + [resolve_key(k, axes) for k in args.pair_by]))
        condition_keys = [a for a in axes if a not in pair_keys and a != group]
        condition_keys += [resolve_key(k, axes) for k in args.by if resolve_key(k, axes) not in condition_keys]
        for key, option in [(group, "--group")] + [(k, "--pair-by") for k in pair_keys] + \
                           [(k, "--by") for k in condition_keys]:
            require_key(cells, key, option, axes)
        sections, empty_notes = gather(cells, args.metric, group, pair_keys, condition_keys)
        order = sweep.axis_values(group) if group in axes and targets_kind(args.targets) == "sweep" \
            else list(dict.fromkeys(c.get(group) for c in cells))
        reference = args.reference if args.reference is not None else order[0]
        if reference not in order:
            raise InputError(f"--reference {reference}: no such {group} (there are: {', '.join(order)})")
        higher = not lower_is_better(args.metric) if args.higher is None else args.higher
        rows, stat_notes = analyse(sections, reference, order, args.confidence, higher, pair_keys, condition_keys)
        table = markdown(rows, condition_keys, group, reference, args.metric, args.confidence, higher, pair_keys,
                         notes + empty_notes + stat_notes)
        written = []
        if out:
            make_out_dir(out)
            stem = os.path.join(out, f"seed_stats_{safe_name(args.metric)}")
            with open(stem + ".md", "w") as f:
                f.write(table)
            write_csv(stem + ".csv", rows, condition_keys, group, reference)
            written = [stem + ".md", stem + ".csv"]
    except (InputError, OSError) as e:
        print(e, file=sys.stderr)
        return 2
    print(table, end="")
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
