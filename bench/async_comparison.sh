#!/usr/bin/env bash
# FedAvg against FedAsync and FedBuff on a federation with strong stragglers (scenarios/async/):
# each algorithm and seed runs to the scenarios' simulated-time budget (their target accuracy
# is lifted so the whole curve is recorded; the time to reach it is read from rounds.csv: the
# first scored round at or above it, what the target stop would report). Prints per algorithm
# the mean over seeds with a 95% t-interval: time to target, accuracy at the budget (the last
# scored round, and the mean of the last five scored rounds, which smooths the asynchronous
# methods' round-to-round swing), and the share of updates from the weak tier.
# usage: bench/async_comparison.sh [BUILD_DIR] [OUT_DIR] [SEEDS]     (default: build results/async "1 2 3")
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${2:-results/async}
SEEDS=${3:-1 2 3}
for seed in $SEEDS; do
  for method in fedavg fedasync fedbuff; do
    "$BUILD/fedgrid" run --overwrite "scenarios/async/$method.yaml" --set seed="$seed" --set stop.target_accuracy=null \
      --out "$OUT/$method/seed=$seed" >/dev/null 2>&1
  done
done
/usr/bin/python3 - "$OUT" "$SEEDS" <<'PY'
import math, os, sys
import pandas as pd
import yaml

out, seeds = sys.argv[1], sys.argv[2].split()
# Student t quantiles (0.975) by degrees of freedom.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}

def interval(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return f"{m:.2f}"
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return f"{m:.2f} ± {T975.get(len(xs) - 1, 1.96) * sd / math.sqrt(len(xs)):.2f}"

print("| method | time to target (s) | reached | accuracy at budget (%) | mean of last 5 scored (%) | rounds | weak-tier share of updates |")
print("|---|---|---|---|---|---|---|")
for method in ["fedavg", "fedasync", "fedbuff"]:
    target = yaml.safe_load(open(f"scenarios/async/{method}.yaml"))["stop"]["target_accuracy"]
    ttt, final, last5, rounds, weak = [], [], [], [], []
    for seed in seeds:
        run = os.path.join(out, method, f"seed={seed}")
        r = pd.read_csv(os.path.join(run, "rounds.csv")).dropna(subset=["accuracy"])
        hit = r[r["accuracy"] >= target]
        ttt.append(float(hit["sim_time_s"].iloc[0]) if len(hit) else None)
        final.append(100 * float(r["accuracy"].iloc[-1]))
        last5.append(100 * float(r["accuracy"].tail(5).mean()))
        rounds.append(int(pd.read_csv(os.path.join(run, "rounds.csv"))["round"].iloc[-1]))
        h = pd.read_csv(os.path.join(run, "hospitals.csv"))
        if h["staleness"].notna().any():  # updates applied: the asynchronous methods
            applied = h[h["staleness"].notna()]
        else:  # fedavg: every hospital's update is applied every round
            applied = h[h["epochs"] > 0]
        weak.append(100 * (applied["tier"] == "weak").mean())
    reached = sum(t is not None for t in ttt)
    print(f"| {method} (target {100 * target:.0f}%) | {interval(ttt)} | {reached}/{len(seeds)} | {interval(final)} | "
          f"{interval(last5)} | {interval(rounds)} | {interval(weak)}% |")
print()
print("per seed, time to target (s):")
for method in ["fedavg", "fedasync", "fedbuff"]:
    target = yaml.safe_load(open(f"scenarios/async/{method}.yaml"))["stop"]["target_accuracy"]
    row = []
    for seed in seeds:
        r = pd.read_csv(os.path.join(out, method, f"seed={seed}", "rounds.csv")).dropna(subset=["accuracy"])
        hit = r[r["accuracy"] >= target]
        row.append(f"seed {seed}: {float(hit['sim_time_s'].iloc[0]):.2f}" if len(hit) else f"seed {seed}: -")
    print(f"  {method}: " + ", ".join(row))
PY
