#!/usr/bin/env bash
# What each kind of fault costs a FedAvg federation (scenarios/faults/): every scenario of the
# folder and seed runs its 60 rounds (the target accuracy is lifted so the whole curve is
# recorded; the time to reach it is read from rounds.csv, the first scored round at or above it,
# what the target stop would report). Prints per scenario the mean over seeds with a 95%
# t-interval: time to target, accuracy after 60 rounds, simulated time of the 60 rounds, and
# the loss counters of summary.json (updates lost, bytes wasted, simulated time lost).
# usage: bench/faults_effect.sh [BUILD_DIR] [OUT_DIR] [SEEDS] [JOBS]   (default: build results/faults "1 2 3" 2)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${2:-results/faults}
SEEDS=${3:-1 2 3}
JOBS=${4:-2}
SCENARIOS="baseline offline availability crashes degraded_links deadline"
for seed in $SEEDS; do
  for s in $SCENARIOS; do
    echo "$BUILD/fedgrid run --overwrite scenarios/faults/$s.yaml --set seed=$seed --set stop.target_accuracy=null --set training.workers=1 --out $OUT/$s/seed=$seed"
  done
done | xargs -P "$JOBS" -I{} sh -c '{} >/dev/null 2>&1 || echo "failed: {}" >&2'
/usr/bin/python3 - "$OUT" "$SEEDS" "$SCENARIOS" <<'PY'
import json, math, os, sys
import pandas as pd
import yaml

out, seeds, scenarios = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}

def interval(xs, digits=2):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return f"{m:.{digits}f}"
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return f"{m:.{digits}f} ± {T975.get(len(xs) - 1, 1.96) * sd / math.sqrt(len(xs)):.{digits}f}"

print("| scenario | time to target (s) | reached | accuracy after 60 rounds (%) | time of 60 rounds (s) | updates lost | MB wasted | hospital-seconds lost |")
print("|---|---|---|---|---|---|---|---|")
for s in scenarios:
    target = yaml.safe_load(open(f"scenarios/faults/{s}.yaml"))["stop"]["target_accuracy"]
    ttt, final, total, lost, wasted, time_lost = [], [], [], [], [], []
    for seed in seeds:
        run = os.path.join(out, s, f"seed={seed}")
        r = pd.read_csv(os.path.join(run, "rounds.csv")).dropna(subset=["accuracy"])
        hit = r[r["accuracy"] >= target]
        ttt.append(float(hit["sim_time_s"].iloc[0]) if len(hit) else None)
        final.append(100 * float(r["accuracy"].iloc[-1]))
        summary = json.load(open(os.path.join(run, "summary.json")))
        total.append(summary["sim_time_s"])
        f = summary.get("faults", {"updates_lost": 0, "bytes_wasted": 0, "sim_time_lost_s": 0})
        lost.append(f["updates_lost"]); wasted.append(f["bytes_wasted"] / 1e6); time_lost.append(f["sim_time_lost_s"])
    reached = sum(t is not None for t in ttt)
    print(f"| {s} | {interval(ttt)} | {reached}/{len(seeds)} | {interval(final)} | {interval(total)} | "
          f"{interval(lost, 1)} | {interval(wasted, 1)} | {interval(time_lost, 1)} |")
print()
print("per seed, time to target (s):")
for s in scenarios:
    target = yaml.safe_load(open(f"scenarios/faults/{s}.yaml"))["stop"]["target_accuracy"]
    row = []
    for seed in seeds:
        r = pd.read_csv(os.path.join(out, s, f"seed={seed}", "rounds.csv")).dropna(subset=["accuracy"])
        hit = r[r["accuracy"] >= target]
        row.append(f"seed {seed}: {float(hit['sim_time_s'].iloc[0]):.2f}" if len(hit) else f"seed {seed}: -")
    print(f"  {s}: " + ", ".join(row))
PY
