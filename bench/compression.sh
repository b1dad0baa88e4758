#!/usr/bin/env bash
# What compressing the uploads buys the quickstart's federation (scenarios/quickstart.yaml: nine
# hospitals on the shipped tiers, weak uplinks included, FedAvg on Fashion-MNIST): FedAvg with
# each codec of docs/guide/compression.md at two strengths, against no compression, over seeds.
# Only the uplink is compressed (what the papers compress: the hospitals' updates); downloads
# cross at full size. Every run goes its ROUNDS rounds (no target stop, so each curve is whole);
# the time to TARGET is read from rounds.csv (the first scored round at or above it).
# Prints, and writes to OUT/table.md: per arm the uplink bytes per round, the run's compression
# ratio, the final accuracy and the simulated time to TARGET with 95% Student-t intervals, and
# each arm minus `none`, paired by seed, with its interval and the two-sided paired t-test's p
# (p >= 0.05: within noise). Figure: OUT/accuracy_vs_time.png (analysis/plot_seeds.py).
# usage: bench/compression.sh [BUILD_DIR] [OUT_DIR] [SEEDS] [JOBS] [ROUNDS] [TARGET]
#        (default: build results/compression "1 2 3" 2 5 0.80)
# A run whose summary.json exists is kept, so an interrupted command resumes.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${2:-results/compression}
SEEDS=${3:-1 2 3}
JOBS=${4:-2}
ROUNDS=${5:-5}
TARGET=${6:-0.80}

# arm|uplink settings. Strengths: quantize 8 and 2 bits in buckets of 512 values (QSGD's
# bucket size); topk 1% and 0.1% of the entries (DGC's "99.9% redundant"); sign with one scale
# for the whole update and one per 512 values (its 1 bit a value is fixed; the scales are its
# only setting); zfp within 1e-4 and within 1e-3 of every value (APPFL's error-bounded use).
ARMS=(
  "none|method=none"
  "quantize8|method=quantize bits=8 bucket=512"
  "quantize2|method=quantize bits=2 bucket=512"
  "topk1pct|method=topk fraction=0.01"
  "topk0.1pct|method=topk fraction=0.001"
  "sign|method=sign bucket=0"
  "sign512|method=sign bucket=512"
  "zfp1e-4|method=zfp zfp_mode=accuracy error_bound=0.0001"
  "zfp1e-3|method=zfp zfp_mode=accuracy error_bound=0.001"
)

running=0
failed=0
for seed in $SEEDS; do
  for a in "${ARMS[@]}"; do
    arm=${a%%|*}
    sets=()
    for s in ${a#*|}; do sets+=(--set "compression.uplink.$s"); done
    dir=$OUT/arm=$arm/seed=$seed
    [ -f "$dir/summary.json" ] && continue
    mkdir -p "$dir"
    # One worker thread per run, JOBS runs at once; outputs do not depend on the worker count.
    "$BUILD/fedgrid" run scenarios/quickstart.yaml --set seed="$seed" --set stop.rounds="$ROUNDS" \
      --set training.workers=1 --set output.trace=false "${sets[@]}" --out "$dir" >"$dir/run.log" 2>&1 &
    running=$((running + 1))
    if [ $running -ge "$JOBS" ]; then wait -n || failed=1; running=$((running - 1)); fi
  done
done
while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
[ $failed -eq 0 ] || echo "bench/compression.sh: a run failed (its run.log says why)" >&2

arms=""
for a in "${ARMS[@]}"; do arms+=" ${a%%|*}"; done
/usr/bin/python3 - "$OUT" "$SEEDS" "$arms" "$TARGET" "$ROUNDS" <<'PY' | tee "$OUT/table.md"
import json, math, os, sys
import pandas as pd
from scipy import stats

out, seeds, arms, target, rounds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), float(sys.argv[4]), sys.argv[5]


def run(arm, seed):
    d = os.path.join(out, f"arm={arm}", f"seed={seed}")
    r = pd.read_csv(os.path.join(d, "rounds.csv"))
    s = json.load(open(os.path.join(d, "summary.json")))
    scored = r.dropna(subset=["accuracy"])
    hit = scored[scored["accuracy"] >= target]
    c = s.get("compression", {})
    return {
        "final": 100 * float(scored["accuracy"].iloc[-1]),
        "ttt": float(hit["sim_time_s"].iloc[0]) if len(hit) else None,
        "time": float(s["sim_time_s"]),
        "up_mb": float(r["bytes_up"].sum()) / 1e6 / len(r),
        "ratio": c["bytes_raw"] / c["bytes_encoded"] if c else 1.0,
    }


def interval(xs, digits=2):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return f"{m:.{digits}f}"
    h = stats.t.ppf(0.975, len(xs) - 1) * stats.sem(xs)
    return f"{m:.{digits}f} ± {h:.{digits}f}"


def paired(xs, ys, digits=2):
    """x - y over the seeds both have: mean ± 95% half-width, p (paired t), and the verdict."""
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    if len(pairs) < 2:
        return "too few pairs", ""
    d = [x - y for x, y in pairs]
    m = sum(d) / len(d)
    if max(d) == min(d):
        return f"{m:+.{digits}f} (every seed)", "-"
    h = stats.t.ppf(0.975, len(d) - 1) * stats.sem(d)
    p = stats.ttest_rel([x for x, _ in pairs], [y for _, y in pairs]).pvalue
    return f"{m:+.{digits}f} ± {h:.{digits}f}", f"{p:.3f}" + ("" if p < 0.05 else " (noise)")


runs = {a: [run(a, s) for s in seeds] for a in arms}
base = runs["none"]
print(f"FedAvg on the quickstart federation, uplink compressed, {rounds} rounds, seeds {' '.join(seeds)}; "
      f"time to {100 * target:g}% accuracy (simulated s); mean ± 95% Student-t half-width; "
      f"differences to `none` paired by seed, p from the paired t-test.\n")
print("| arm | uplink MB / round | ratio | final accuracy (%) | − none | p | time to target (s) | reached | − none | p | time of the run (s) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for a in arms:
    rs = runs[a]
    col = lambda k: [r[k] for r in rs]
    dacc, pacc = paired(col("final"), [r["final"] for r in base]) if a != "none" else ("", "")
    dttt, pttt = paired(col("ttt"), [r["ttt"] for r in base]) if a != "none" else ("", "")
    reached = sum(t is not None for t in col("ttt"))
    print(f"| {a} | {interval(col('up_mb'), 3)} | {interval(col('ratio'), 1)} | {interval(col('final'))} | {dacc} | {pacc} | "
          f"{interval(col('ttt'))} | {reached}/{len(rs)} | {dttt} | {pttt} | {interval(col('time'))} |")
print("\nper seed, time to target (s):")
for a in arms:
    print(f"  {a}: " + ", ".join(f"seed {s}: {r['ttt']:.2f}" if r["ttt"] is not None else f"seed {s}: -"
                                 for s, r in zip(seeds, runs[a])))
PY
/usr/bin/python3 analysis/plot_seeds.py "$OUT"/arm=*/seed=* --group arm --out "$OUT/accuracy_vs_time.png" >/dev/null
echo "table: $OUT/table.md; figure: $OUT/accuracy_vs_time.png"
