#!/usr/bin/python3
"""The bookkeeping of bench/compression.sh's protocols at the claims' horizons and of its
break-even (docs/guide/compression.md, "At the claims' horizons" and "Where compression stops
paying"): the verdict table, the target a break-even uses, the timing-only scenario that replays
a run's accuracy curve, and the table of crossings.

usage:
  analysis/compression_study.py verdicts MODE_DIR [--target T] [--out FILE]
      MODE_DIR: a protocol's runs (MODE_DIR/arm=A/seed=S, each with args.txt, summary.json and
      rounds.csv; MODE_DIR/stats/ from analysis/seed_stats.py). One row per arm: the claim it
      tests, the horizon the claim needs (d/k exchanges per hospital for a sparsifier, the
      plateau for a claim about the accuracy at the end of training), the horizon run, none - arm
      in final accuracy with its 95% interval and p (paired by seed), and the verdict, which
      names its horizon: "not tested at the claim's horizon" where the run fell short of it.
  analysis/compression_study.py per-seed MODE_DIR [--targets "0.75 0.80"]
      Each run's figures, arm by arm and seed by seed: rounds, final accuracy, the simulated time
      to each target, uploaded MB, compression ratio.
  analysis/compression_study.py summary MODE_DIR --target T
      The page's table, one row per arm: compression ratio, uploaded MB a run, final accuracy
      (mean ± 95% half-width over the seeds) and none - arm paired by seed with its interval and p,
      the simulated time to T likewise with the seeds that reached it; bold where p < 0.05.
      Reads MODE_DIR/stats/ (analysis/seed_stats.py) and the runs' summary.json.
  analysis/compression_study.py target MODE_DIR [--candidates 0.88,0.85,0.80,0.75,0.70]
      Prints the highest candidate accuracy that the none arm's curve reaches in every seed.
  analysis/compression_study.py scenario RUN_DIR --target T --out FILE
      Writes a timing-only scenario that replays RUN_DIR: its scenario file and --set overrides
      (args.txt), training.mode timing-only, training.surrogate its rounds.csv (absolute path),
      stop.target_accuracy T, stop.rounds its rounds. zfp's accuracy mode (refused in a
      timing-only run: its size depends on the values) becomes its rate mode at the run's own
      bits per value (32 x bytes_encoded / bytes_raw of summary.json).
  analysis/compression_study.py reaches SCENARIO [SCENARIO ...] --target T
      Exit 0 when every replay's curve reaches T; else prints which does not, exit 1.
  analysis/compression_study.py check RUN_DIR REPLAY_DIR
      ROUND,REPLAY_TIME,RUN_TIME,RELATIVE_DIFFERENCE: the replay's last round against the run's.
  analysis/compression_study.py crossings BREAKEVEN_DIR [--out FILE]
      BREAKEVEN_DIR: bench/compression.sh breakeven's output for one protocol (plans/AXIS/arm=A,
      seed=S/plan.json, grid/AXIS/arm=A,seed=S/sweep.csv, check.csv). One row per codec and
      axis: the crossing (the largest or smallest value of the axis at which the codec's time to
      the target is at most none's) per seed, their mean with the 95% Student-t interval, and
      their range; a seed whose codec pays over the whole range, or nowhere, is said so (a
      bound, not a number) and left out of the mean.

Bad input is exit 2 with a message. Uses Debian's python3-yaml, python3-pandas and python3-scipy
(hence /usr/bin/python3).
"""
import argparse
import glob
import math
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import InputError, read_csv, read_json, safe_name  # noqa: E402
from paired_stats import describe  # noqa: E402
from seed_stats import path_values  # noqa: E402

D = 582026  # the McMahan CNN's values (docs/guide/compression.md)

# arm -> the claim it tests (docs/guide/compression.md's table of claims).
CLAIMS = {
    "quantize": "QSGD (Alistarh et al. 2017), FedPAQ (Reisizadeh et al. 2020): a few bits per value reach "
                "full precision's accuracy",
    "topk": "Stich et al. 2018: top-k with memory converges as fast as uncompressed SGD",
    "dgc": "Deep Gradient Compression (Lin et al. 2018): 99.9% of the gradient exchange is redundant",
    "sign": "signSGD (Bernstein et al. 2018), EF-SignSGD (Karimireddy et al. 2019): 1 bit a value at "
            "uncompressed accuracy",
    "zfp": "APPFL's error-bounded lossy compression (ZFP): smaller updates at no loss of accuracy",
    "powersgd": "PowerSGD (Vogels et al. 2019): rank-2 updates reach uncompressed SGD's accuracy",
}
# A plateau: none's mean accuracy over the seeds rose by less than this (points) over the last
# fifth of the rounds.
PLATEAU_POINTS = 1.0


def read_args(run):
    """(scenario, [(key, value)]) from a run's args.txt: SCENARIO --set K=V --set K=V ..."""
    path = os.path.join(run, "args.txt")
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file (bench/compression.sh writes it with each run)")
    words = open(path).read().split()
    if not words:
        raise InputError(f"{path}: empty")
    sets = []
    for i, w in enumerate(words[1:]):
        if w == "--set":
            continue
        if "=" not in w or words[i] != "--set":  # words[i] is the word before w
            raise InputError(f"{path}: expected '--set KEY=VALUE', got '{w}'")
        key, _, value = w.partition("=")
        sets.append((key, value))
    return words[0], sets


def parse_value(text):
    """A --set value as fedgrid reads it: null, a boolean, an integer, a number, else text."""
    if text == "null":
        return None
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def set_key(doc, key, value):
    """doc[key] = value for a dotted key with list items as name[i] or name.i; None unsets."""
    parts = []
    for part in key.split("."):
        m = re.fullmatch(r"([^\[\]]+)((?:\[\d+\])*)", part)
        if not m:
            raise InputError(f"--set {key}: cannot place this key in a scenario file")
        parts.append(int(m.group(1)) if m.group(1).isdigit() else m.group(1))
        parts += [int(i) for i in re.findall(r"\[(\d+)\]", m.group(2))]
    node = doc
    for p, nxt in zip(parts, parts[1:]):
        if isinstance(p, int):
            node = node[p]
        else:
            if not isinstance(node.get(p), (dict, list)):
                node[p] = [] if isinstance(nxt, int) else {}
            node = node[p]
    last = parts[-1]
    if value is None:
        if isinstance(node, dict):
            node.pop(last, None)
    else:
        node[last] = value


def arm_settings(sets):
    """The run's compression.uplink settings ({} for none)."""
    prefix = "compression.uplink."
    codec = {k[len(prefix):]: parse_value(v) for k, v in sets if k.startswith(prefix)}
    return {} if codec.get("method", "none") == "none" else codec


def runs_of(mode_dir):
    """{arm: {seed: run folder}} of the finished runs (summary.json) under mode_dir."""
    runs = {}
    for summary in sorted(glob.glob(os.path.join(mode_dir, "arm=*", "seed=*", "summary.json"))):
        run = os.path.dirname(summary)
        values = path_values(run)
        runs.setdefault(values["arm"], {})[values["seed"]] = run
    if not runs:
        raise InputError(f"{mode_dir}: no finished run (arm=A/seed=S/summary.json)")
    return runs


def arm_order(mode_dir, runs):
    """The arms in the order bench/compression.sh lists them (seed_stats' final-accuracy table), the
    others after; without that table, as found."""
    stats_csv = os.path.join(mode_dir, "stats", "seed_stats_final_accuracy.csv")
    if not os.path.isfile(stats_csv):
        return list(runs)
    listed = list(read_csv(stats_csv, keep_default_na=False, dtype=str)["arm"])
    return [a for a in listed if a in runs] + [a for a in runs if a not in listed]


def curve(run):
    """{round: accuracy} of a run's evaluated rounds."""
    return curve_file(os.path.join(run, "rounds.csv"))


# ---- the page's table ------------------------------------------------------------------------

def spread_cell(row, factor, fmt):
    """'mean ± half-width' of a seed_stats row (the mean alone for one seed), scaled by factor."""
    mean, low, high = num(row["mean"]), num(row["ci_low"]), num(row["ci_high"])
    if mean is None:
        return "–"
    text = fmt.format(factor * mean)
    return text + (f" ± {fmt.format(factor * (high - low) / 2)}" if low is not None else f" ({row['n']} seed)")


def paired_cell(row, factor, fmt):
    """none − arm with its interval and p, bold where p < 0.05; '–' without pairs."""
    if row is None or row["diff_mean"] == "":
        return "–"
    d, low, high, p = num(row["diff_mean"]), num(row["diff_ci_low"]), num(row["diff_ci_high"]), num(row["p_value"])
    sign = fmt.replace("{:", "{:+")
    text = sign.format(factor * d)
    if low is not None:
        text += f" [{sign.format(factor * low)}, {sign.format(factor * high)}]"
    if p is not None and p == p:
        text += f", p {p:.2g}"
    if low is None:
        text += f" ({row['pairs']} pair)"
    elif row["pairs"] not in ("", None) and int(row["pairs"]) < int(row["n"] or 0):
        text += f" ({row['pairs']} pairs)"
    return f"**{text}**" if p is not None and p == p and p < 0.05 else text


def summary_table(mode_dir, target_text):
    """One row per arm: ratio, uploaded MB, final accuracy and time to the target, each with none −
    arm paired by seed (positive: the arm lost accuracy, or got there sooner)."""
    runs = runs_of(mode_dir)
    metric = f"time_to:accuracy>={target_text}"
    acc = {a: seed_stats_row(mode_dir, "final_accuracy", a) for a in runs}
    timed = {a: seed_stats_row(mode_dir, metric, a) for a in runs}
    missing = [m for m, rows in (("final_accuracy", acc), (metric, timed)) if all(r is None for r in rows.values())]
    if missing:
        raise InputError(f"{os.path.join(mode_dir, 'stats')}: no seed_stats table for {', '.join(missing)} "
                         f"(analysis/seed_stats.py writes it)")
    target = float(target_text)
    lines = [f"| arm | ratio | uplink MB a run | final accuracy (%) | none − arm (points) | time to {100 * target:g}% (s) "
             f"| reached | none − arm (s) |", "|---|---|---|---|---|---|---|---|"]
    for arm in arm_order(mode_dir, runs):
        ratios, uploads = [], []
        for run in runs[arm].values():
            summary = read_json(os.path.join(run, "summary.json"))
            c = summary.get("compression") or {}
            ratios.append(c["bytes_raw"] / c["bytes_encoded"] if c.get("bytes_encoded") else 1.0)
            uploads.append(summary.get("bytes_up", 0) / 1e6)
        lo, hi = min(ratios), max(ratios)
        ratio = "1" if hi == 1.0 else (f"{lo:.1f}" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}-{hi:.1f}")
        upload = f"{sum(uploads) / len(uploads):.1f}"
        a, t = acc[arm], timed[arm]
        reached = "–" if t is None else f"{t['n']}/{len(runs[arm])}"
        cells = [arm, ratio, upload, "–" if a is None else spread_cell(a, 100, "{:.2f}"),
                 "" if arm == "none" else paired_cell(a, 100, "{:.2f}"),
                 "–" if t is None else spread_cell(t, 1, "{:.1f}"), reached,
                 "" if arm == "none" else paired_cell(t, 1, "{:.1f}")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ---- verdicts ---------------------------------------------------------------------------------

def needed_horizon(codec):
    """(exchanges per hospital the claim needs or None for the plateau, how it is derived)."""
    method = codec.get("method")
    if method == "topk":
        f = float(codec.get("fraction", 0.01))
        return math.ceil(1 / f), f"d/k = 1/{f:g}"
    if method == "dgc":
        s = float(codec.get("sparsity", 0.999))
        return math.ceil(1 / (1 - s) - 1e-9), f"d/k = 1/(1 - {s:g})"
    if method == "sign":
        return 100, "held to top-k 1%'s d/k: sign sends every coordinate, at 1 bit, and has no k of its own"
    return None, "the plateau (the end of training)"


def seed_stats_row(mode_dir, metric, arm):
    """The row of analysis/seed_stats.py's CSV for arm and metric, or None."""
    path = os.path.join(mode_dir, "stats", f"seed_stats_{safe_name(metric)}.csv")
    if not os.path.isfile(path):
        return None
    rows = read_csv(path, keep_default_na=False, dtype=str)
    rows = rows[rows["arm"] == arm]
    return None if rows.empty else rows.iloc[0]


def plateau_gain(runs):
    """Points none's mean accuracy rose over the last fifth of its rounds (from the last evaluated
    round at or before 80% of them, else the one before the last), and the rounds; None when a
    run has fewer than two evaluated rounds."""
    gains, last = [], 0
    for run in runs.values():
        c = curve(run)
        if len(c) < 2:
            return None, max(c, default=0)
        end = max(c)
        before = [r for r in c if r <= 0.8 * end] or [sorted(c)[-2]]
        gains.append(100 * (c[end] - c[max(before)]))
        last = end
    return (sum(gains) / len(gains) if gains else None), last


def num(text):
    return None if text in ("", None) else float(text)


def verdicts(mode_dir, target_text=None):
    """The verdict table; target_text: the accuracy of a time_to table in MODE_DIR/stats, written
    as the table's metric writes it (0.80, not 0.8)."""
    target = None if target_text is None else float(target_text)
    runs = runs_of(mode_dir)
    if "none" not in runs:
        raise InputError(f"{mode_dir}: no none arm to compare with")
    gain, last_round = plateau_gain(runs["none"])
    at_plateau = gain is not None and gain < PLATEAU_POINTS
    if gain is None:
        rose = f"none has fewer than two evaluated rounds in {last_round}: whether it reached its plateau is unknown"
    else:
        rose = (f"none rose by {gain:+.2f} points over the last fifth of its {last_round} rounds (mean over seeds): "
                + ("at its plateau (under 1 point)" if at_plateau else "still rising, not at its plateau"))
    lines = [f"Verdicts of {os.path.normpath(mode_dir)}: each arm against none paired by seed, final accuracy "
             f"at the last round (95% Student-t interval, analysis/seed_stats.py). {rose}. A hospital sends one "
             f"update a round, so a run's rounds are its exchanges per hospital.", "",
             "| arm | claim | horizon the claim needs | horizon run (exchanges per hospital) | none − arm, final "
             f"accuracy (points) | none − arm, time to {target:g} (s) | verdict |" if target is not None else
             "| arm | claim | horizon the claim needs | horizon run (exchanges per hospital) | none − arm, final "
             "accuracy (points) | verdict |", "|---|---|---|---|---|---|---|" if target is not None else
             "|---|---|---|---|---|---|"]
    if target is not None:
        lines.insert(1, f"The time column: the simulated time to {target:g} accuracy, none − arm paired by seed (positive: "
                        f"the arm gets there sooner), with its 95% interval and p; seeds that never reach it are left out.")
    for arm in arm_order(mode_dir, runs):
        if arm == "none":
            continue
        seeds = runs[arm]
        _, sets = read_args(next(iter(seeds.values())))
        codec = arm_settings(sets)
        method = codec.get("method", "")
        need, how = needed_horizon(codec)
        rounds = min(int(read_json(os.path.join(r, "summary.json"))["rounds"]) for r in seeds.values())
        row = seed_stats_row(mode_dir, "final_accuracy", arm)
        if row is None or row["diff_mean"] == "":
            diff, lo, hi, p = None, None, None, None
            shown = "no paired value" if row is not None else \
                f"no final-accuracy table in {os.path.join(mode_dir, 'stats')} (analysis/seed_stats.py writes it)"
        else:
            diff, lo, hi, p = num(row["diff_mean"]), num(row["diff_ci_low"]), num(row["diff_ci_high"]), num(row["p_value"])
            shown = f"{100 * diff:+.2f}" + (f" [{100 * lo:+.2f}, {100 * hi:+.2f}]" if lo is not None else "") + \
                    (f", p {p:.3g}" if p is not None and p == p else "") + f" ({row['pairs']} seeds)"
        horizon = f"{rounds} rounds = {rounds} exchanges"
        short = (need is not None and rounds < need) or (need is None and not at_plateau)
        if row is None:
            outcome = "no interval (no final-accuracy table)"
        elif diff is None or lo is None:
            outcome = "no interval (fewer than 2 seeds)"
        elif lo > 0:
            outcome = f"{100 * diff:.2f} points behind none"
        elif hi < 0:
            outcome = f"{-100 * diff:.2f} points ahead of none"
        else:
            outcome = f"within noise of none (losses above {100 * hi:.2f} points ruled out)"
        if short:
            where = f"{rounds} of the {need} exchanges it needs" if need is not None else \
                "the run did not reach none's plateau"
            verdict = f"**not tested at the claim's horizon** ({where}); at round {rounds}: {outcome}"
        elif diff is None or lo is None:
            verdict = f"at round {rounds}: {outcome}"
        elif lo > 0:
            verdict = f"**does not hold at round {rounds}**: {outcome}"
        else:
            verdict = f"**holds at round {rounds}**: {outcome}"
        need_text = f"{need} exchanges ({how})" if need is not None else how
        claim = CLAIMS.get(method, method)
        if target is None:
            lines.append(f"| {arm} | {claim} | {need_text} | {horizon} | {shown} | {verdict} |")
            continue
        t = seed_stats_row(mode_dir, f"time_to:accuracy>={target_text}", arm)
        none_t = seed_stats_row(mode_dir, f"time_to:accuracy>={target_text}", "none")
        if none_t is None:
            timed = f"no time-to-{target_text} table in {os.path.join(mode_dir, 'stats')} (analysis/seed_stats.py writes it)"
        elif none_t["n"] in ("", "0"):
            timed = f"none never reaches {target:g}"
        elif t is None or t["n"] in ("", "0"):
            timed = f"the arm never reaches {target:g}"
        elif t["diff_mean"] == "":
            timed = "no paired seeds"
        else:
            tlo, thi = num(t["diff_ci_low"]), num(t["diff_ci_high"])
            tp = num(t["p_value"])
            timed = f"{num(t['diff_mean']):+.1f}" + (f" [{tlo:+.1f}, {thi:+.1f}]" if tlo is not None else "") + \
                    (f", p {tp:.3g}" if tp is not None and tp == tp else "") + f" ({t['pairs']} seeds)"
            if method == "quantize":  # FedPAQ's claim is about the time
                fedpaq = ("sooner" if tlo is not None and tlo > 0 else "later" if thi is not None and thi < 0
                          else "within noise")
                verdict += f"; FedPAQ's shorter training: {fedpaq} to {target:g} at this horizon"
        lines.append(f"| {arm} | {claim} | {need_text} | {horizon} | {shown} | {timed} | {verdict} |")
    return "\n".join(lines) + "\n"


def per_seed(mode_dir, targets):
    """Each run's own figures, arm by arm and seed by seed: the rounds, the final accuracy, the
    simulated time to each target (the first evaluated round at or above it), the uploaded bytes
    and the compression ratio."""
    runs = runs_of(mode_dir)
    head = ["arm", "seed", "rounds", "final accuracy (%)"] + [f"time to {t:g} (s)" for t in targets] + \
        ["uplink MB", "ratio"]
    lines = [f"Per seed ({os.path.normpath(mode_dir)}): each run's figures; '–': the run never reached the "
             f"target.", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for arm in arm_order(mode_dir, runs):
        for seed in sorted(runs[arm], key=lambda v: (len(v), v)):
            run = runs[arm][seed]
            summary = read_json(os.path.join(run, "summary.json"))
            rows = read_csv(os.path.join(run, "rounds.csv"))
            times = []
            for t in targets:
                reached = rows[rows["accuracy"] >= t]
                times.append("–" if reached.empty else f"{float(reached['sim_time_s'].iloc[0]):.1f}")
            c = summary.get("compression") or {}
            ratio = f"{c['bytes_raw'] / c['bytes_encoded']:.1f}" if c.get("bytes_encoded") else "1"
            acc = summary.get("final_accuracy")
            cells = [arm, seed, str(summary.get("rounds")), "–" if acc is None else f"{100 * acc:.2f}"] + times + \
                [f"{summary.get('bytes_up', 0) / 1e6:.1f}", ratio]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ---- break-even -------------------------------------------------------------------------------

def choose_target(mode_dir, candidates):
    runs = runs_of(mode_dir)
    if "none" not in runs:
        raise InputError(f"{mode_dir}: no none arm")
    best = [max(curve(r).values(), default=0) for r in runs["none"].values()]
    for c in sorted(candidates, reverse=True):
        if all(b >= c for b in best):
            return c
    raise InputError(f"{mode_dir}: none reaches none of the targets {candidates} in every seed "
                     f"(its best accuracies: {', '.join(f'{b:.4f}' for b in best)}); give --target")


def write_scenario(run, target, out):
    scenario, sets = read_args(run)
    if not os.path.isfile(scenario):
        raise InputError(f"{run}/args.txt: scenario {scenario} not found (run from the repository root)")
    with open(scenario) as f:
        doc = yaml.safe_load(f)
    for key, value in sets:
        set_key(doc, key, parse_value(value))
    summary = read_json(os.path.join(run, "summary.json"))
    notes = []
    uplink = (doc.get("compression") or {}).get("uplink") or {}
    if uplink.get("method") == "zfp" and uplink.get("zfp_mode", "accuracy") == "accuracy":
        c = summary.get("compression") or {}
        if not c.get("bytes_raw"):
            raise InputError(f"{run}/summary.json: no compression figures for its zfp arm")
        rate = 32 * c["bytes_encoded"] / c["bytes_raw"]
        notes.append(f"zfp's accuracy mode (error bound {uplink.get('error_bound')}) replaced by its rate mode at the "
                     f"run's own {rate:.4f} bits a value (32 x bytes_encoded / bytes_raw): a timing-only run "
                     f"holds no values to size")
        doc["compression"]["uplink"] = {"method": "zfp", "zfp_mode": "rate", "rate": round(rate, 6)}
    set_key(doc, "training.mode", "timing-only")
    set_key(doc, "training.surrogate", os.path.abspath(os.path.join(run, "rounds.csv")))
    set_key(doc, "stop.target_accuracy", float(target))
    set_key(doc, "stop.rounds", int(summary["rounds"]))
    (doc.get("output") or {}).pop("dir", None)
    header = [f"Generated by analysis/compression_study.py scenario from {os.path.normpath(run)}",
              f"({scenario} {' '.join('--set ' + k + '=' + v for k, v in sets)}):",
              "a timing-only replay whose accuracy by round is that run's (training.surrogate), stopped at",
              f"accuracy {target}: time_to_target_s is the simulated time to it at this platform.", *notes]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write("".join(f"# {h}\n" for h in header))
        yaml.safe_dump(doc, f, sort_keys=False, default_flow_style=None)
    return out


def plan_answer(plan):
    """(value or None, bound text or None) of one plan.json: the crossing, or why there is none."""
    low, high = (show(v, plan.get("key", "")) for v in plan["range"])
    verdict = plan.get("verdict")
    if plan.get("answer") is not None and plan.get("monotone", True):
        return float(plan["answer"]), None
    if verdict == "holds_everywhere":
        return None, f"pays over the whole range ({low} to {high})"
    if verdict == "holds_nowhere":
        return None, f"pays nowhere in the range ({low} to {high})"
    if not plan.get("monotone", True):
        b = plan.get("bracket") or []
        return None, "not monotone: the boundary lies in [" + ", ".join(show(v, plan.get("key", "")) for v in b) + "]"
    return None, str(verdict)


def show(value, key):
    """A crossing in the axis's unit: Mbit/s for a bandwidth, a count as an integer."""
    if key.endswith("_bps"):
        return f"{value / 1e9:.4g} Gbit/s" if abs(value) >= 1e9 else f"{value / 1e6:.4g} Mbit/s"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.4g}"


def grid_verdicts(folder, axis, arm, seed):
    """[(value, pays)] along the axis's grid for one codec and seed: pays where its time to the
    target is at most none's replay of the same seed (a run that never reaches it has no time: it
    does not pay, and a codec that reaches it where none does not pays). None without both grids."""
    cells = {}
    for who in (arm, "none"):
        path = os.path.join(folder, "grid", axis, f"arm={who},seed={seed}", "sweep.csv")
        if not os.path.isfile(path):
            return None
        rows = read_csv(path, keep_default_na=False, dtype=str)
        rows = rows[rows["status"] == "ok"]
        cells[who] = {float(v): num(t) for v, t in zip(rows[axis], rows["time_to_target_s"])}
    out = []
    for value in sorted(set(cells[arm]) & set(cells["none"])):
        mine, theirs = cells[arm][value], cells["none"][value]
        out.append((value, mine is not None and (theirs is None or mine <= theirs)))
    return out


def grid_disagrees(plan, grid):
    """Where the grid contradicts a plan that assumed one crossing: the grid's verdicts as text
    ("pays at 3-300; not at 500-700; pays at 1000"), else None."""
    if not grid:
        return None
    verdict, answer = plan.get("verdict"), plan.get("answer")
    largest = plan.get("direction") == "largest"

    def expected(value):
        if verdict == "holds_everywhere":
            return True
        if verdict == "holds_nowhere":
            return False
        if answer is None:
            return None
        return value <= answer if largest else value >= answer

    if all(expected(v) in (None, pays) for v, pays in grid):
        return None
    key = plan.get("key", "")
    runs, text = [], []
    for value, pays in grid:
        if runs and runs[-1][0] == pays:
            runs[-1][2] = value
        else:
            runs.append([pays, value, value])
    for pays, low, high in runs:
        span = show(low, key) if low == high else f"{show(low, key)}-{show(high, key)}"
        text.append(("pays at " if pays else "not at ") + span)
    return "; ".join(text)


def crossings(folder):
    lines = []
    check = os.path.join(folder, "check.csv")
    for axis_dir in sorted(glob.glob(os.path.join(folder, "plans", "*")), key=lambda d: "hospitals" in d):
        axis = os.path.basename(axis_dir)
        by_arm, key = {}, axis
        for plan_dir in sorted(glob.glob(os.path.join(axis_dir, "arm=*"))):
            values = dict(p.split("=", 1) for p in os.path.basename(plan_dir).split(","))
            arm, seed = values["arm"], values["seed"]
            never = os.path.join(plan_dir, "never.txt")
            if os.path.isfile(never):
                by_arm.setdefault(arm, {})[seed] = (None, open(never).read().strip(), None)
                continue
            plan_json = os.path.join(plan_dir, "plan.json")
            if not os.path.isfile(plan_json):
                by_arm.setdefault(arm, {})[seed] = (None, "plan did not finish", None)
                continue
            plan = read_json(plan_json)
            key = plan["key"]
            # The plan's search assumes one crossing; the grid checks it (contention can make the
            # codec's lead shrink and then grow again along an axis).
            disagrees = grid_disagrees(plan, grid_verdicts(folder, axis, arm, seed))
            if disagrees:
                by_arm.setdefault(arm, {})[seed] = (None, f"not monotone, by the grid: {disagrees}", plan)
                continue
            by_arm.setdefault(arm, {})[seed] = plan_answer(plan) + (plan,)
        if not by_arm:
            continue
        lines += [f"Where each codec stops paying, over {key}: per seed, the value of the key where the "
                  f"codec's time to the target stops being at most none's (fedgrid plan --against the none "
                  f"arm's replay of the same seed); their mean ± the 95% Student-t half-width over the seeds "
                  f"that have one, and their range. A seed that pays over the whole range, or nowhere, is a "
                  f"bound, not a number: it is named and left out of the mean; so is one whose grid "
                  f"contradicts the plan's single crossing (not monotone), with the grid's verdicts.", "",
                  "| arm | per seed | mean ± 95% CI | range | the codec pays |", "|---|---|---|---|---|"]
        for arm, seeds in sorted(by_arm.items()):
            per_seed, numbers, directions = [], [], set()
            for seed in sorted(seeds, key=lambda s: (len(s), s)):
                value, bound, plan = seeds[seed]
                if value is not None:
                    numbers.append(value)
                    per_seed.append(f"seed {seed}: {show(value, key)}")
                    directions.add("below it" if plan.get("direction") == "largest" else "above it")
                else:
                    per_seed.append(f"seed {seed}: {bound}")
            if numbers:
                s = describe(numbers)
                mean = show(s.mean, key) + (f" ± {show(s.half_width, key)}" if s.half_width is not None
                                            else f" ({len(numbers)} seed)")
                spread = f"{show(min(numbers), key)} – {show(max(numbers), key)}"
            else:
                mean, spread = "–", "–"
            lines.append(f"| {arm} | {'; '.join(per_seed)} | {mean} | {spread} | {', '.join(sorted(directions))} |")
        lines.append("")
    if os.path.isfile(check):
        rows = read_csv(check)
        if not rows.empty:
            worst = rows.assign(d=rows["relative_difference"].abs()).groupby("arm")["d"].max()
            lines += ["The replays against their real runs at the tier's own uplink (check.csv: the simulated time of "
                      "the round each replay stopped at): largest relative difference per arm: "
                      + ", ".join(f"{arm} {d:.1e}" for arm, d in worst.items()) + ".", ""]
    if not lines:
        raise InputError(f"{folder}: no plans (plans/AXIS/arm=A,seed=S/plan.json)")
    return "\n".join(lines)


def reaches(scenario, target):
    """None when the replay's curve (its training.surrogate) reaches target, else why not."""
    with open(scenario) as f:
        doc = yaml.safe_load(f)
    c = curve_file(doc["training"]["surrogate"])
    if any(a >= target for a in c.values()):
        return None
    who = "none's" if "arm=none," in os.path.basename(scenario) else "its"
    return f"{who} curve never reaches {target:g} in {max(c, default=0)} rounds"


def curve_file(path):
    rows = read_csv(path)
    return {int(r): float(a) for r, a in zip(rows["round"], rows["accuracy"]) if a == a}


def check_row(run, replay):
    """The replay's last round and simulated time against the real run's at that round."""
    mine = read_csv(os.path.join(replay, "rounds.csv"))
    real = read_csv(os.path.join(run, "rounds.csv"))
    r = int(mine["round"].iloc[-1])
    t = float(mine["sim_time_s"].iloc[-1])
    row = real[real["round"] == r]
    if row.empty:
        raise InputError(f"{run}/rounds.csv: no round {r}")
    t_real = float(row["sim_time_s"].iloc[0])
    return r, t, t_real, (t - t_real) / t_real


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("verdicts")
    p.add_argument("mode_dir")
    p.add_argument("--target", default=None,
                   help="also tabulate none − arm in the time to this accuracy (a time_to table in MODE_DIR/stats)")
    p.add_argument("--out")
    p = sub.add_parser("per-seed")
    p.add_argument("mode_dir")
    p.add_argument("--targets", default="", help="space- or comma-separated accuracies")
    p = sub.add_parser("summary")
    p.add_argument("mode_dir")
    p.add_argument("--target", required=True, help="the accuracy of a time_to table in MODE_DIR/stats (0.80)")
    p = sub.add_parser("target")
    p.add_argument("mode_dir")
    p.add_argument("--candidates", default="0.88,0.85,0.80,0.75,0.70",
                   help="comma-separated accuracies, tried from the highest")
    p = sub.add_parser("scenario")
    p.add_argument("run")
    p.add_argument("--target", required=True, type=float)
    p.add_argument("--out", required=True)
    p = sub.add_parser("crossings")
    p.add_argument("folder")
    p.add_argument("--out")
    p = sub.add_parser("reaches")
    p.add_argument("scenarios", nargs="+")
    p.add_argument("--target", required=True, type=float)
    p = sub.add_parser("check")
    p.add_argument("run")
    p.add_argument("replay")
    args = parser.parse_args(argv)
    try:
        if args.command == "verdicts":
            text = verdicts(args.mode_dir, args.target)
        elif args.command == "summary":
            text = summary_table(args.mode_dir, args.target)
        elif args.command == "per-seed":
            text = per_seed(args.mode_dir, [float(t) for t in args.targets.replace(",", " ").split()])
        elif args.command == "target":
            text = f"{choose_target(args.mode_dir, [float(c) for c in args.candidates.split(',')]):g}\n"
        elif args.command == "scenario":
            text = write_scenario(args.run, args.target, args.out) + "\n"
        elif args.command == "reaches":
            why = [w for w in (reaches(f, args.target) for f in args.scenarios) if w]
            if why:
                print("; ".join(why))
                return 1
            return 0
        elif args.command == "check":
            r, t, t_real, rel = check_row(args.run, args.replay)
            text = f"{r},{t!r},{t_real!r},{rel!r}\n"
        else:
            text = crossings(args.folder)
        if getattr(args, "out", None) and args.command in ("verdicts", "crossings"):
            with open(args.out, "w") as f:
                f.write(text)
    except (InputError, OSError, KeyError, ValueError, yaml.YAMLError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
