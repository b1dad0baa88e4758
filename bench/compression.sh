#!/usr/bin/env bash
# What compressing the uploads buys the quickstart's federation (scenarios/quickstart.yaml: nine
# hospitals on the shipped tiers, weak uplinks included, FedAvg on Fashion-MNIST): FedAvg with
# each codec of docs/guide/compression.md at two strengths, against no compression, over seeds.
# Only the uplink is compressed (what the papers compress: the hospitals' updates); downloads
# cross at full size. Every run goes its ROUNDS rounds (no target stop, so each curve is whole);
# the time to TARGET is read from rounds.csv (the first scored round at or above it).
# Prints, and writes to OUT/table.md (each table's CSV in OUT/stats/): per arm the final
# accuracy, the simulated time to TARGET and the uploaded bytes with 95% Student-t intervals, and
# `none` minus each arm, paired by seed, with its interval and the two-sided paired t-test's p
# (p >= 0.05: within noise), from analysis/seed_stats.py; then each arm's compression ratio.
# Figure: OUT/accuracy_vs_time.png (analysis/plot_seeds.py).
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
    "$BUILD/fedgrid" run --overwrite scenarios/quickstart.yaml --set seed="$seed" --set stop.rounds="$ROUNDS" \
      --set training.workers=1 --set output.trace=false "${sets[@]}" --out "$dir" >"$dir/run.log" 2>&1 &
    running=$((running + 1))
    if [ $running -ge "$JOBS" ]; then wait -n || failed=1; running=$((running - 1)); fi
  done
done
while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
[ $failed -eq 0 ] || echo "bench/compression.sh: a run failed (its run.log says why)" >&2

# Intervals and paired tests: analysis/seed_stats.py, one table per figure, each arm against
# `none` paired by seed. A run that never reaches TARGET has no time to it: seed_stats leaves it
# out and says so under the table.
runs=()
for a in "${ARMS[@]}"; do
  for seed in $SEEDS; do runs+=("$OUT/arm=${a%%|*}/seed=$seed"); done
done
stats=$OUT/stats
{
  echo "FedAvg on the quickstart federation, uplink compressed, $ROUNDS rounds, seeds $SEEDS."
  for metric in final_accuracy "time_to:accuracy>=$TARGET" bytes_up; do
    echo
    /usr/bin/python3 analysis/seed_stats.py "${runs[@]}" --group arm --reference none --metric "$metric" \
      --out "$stats" 2>/dev/null
  done
  # The compression ratio (raw bytes / encoded bytes over the run's uploads): a codec's
  # property more than a result, so its range over the seeds, without a test.
  echo
  echo "Compression ratio of the uploads (summary.json: compression.bytes_raw / bytes_encoded), over the seeds:"
  echo
  echo "| arm | ratio (lowest - highest) |"
  echo "|---|---|"
  for a in "${ARMS[@]}"; do
    arm=${a%%|*}
    dirs=()
    for seed in $SEEDS; do dirs+=("$OUT/arm=$arm/seed=$seed"); done
    /usr/bin/python3 -c 'import json, sys
r = [json.load(open(p + "/summary.json")).get("compression") for p in sys.argv[2:]]
r = [c["bytes_raw"] / c["bytes_encoded"] for c in r if c]
print(f"| {sys.argv[1]} | " + (f"{min(r):.1f} - {max(r):.1f}" if r else "1 (uncompressed)") + " |")' \
      "$arm" "${dirs[@]}"
  done
} | tee "$OUT/table.md"
/usr/bin/python3 analysis/plot_seeds.py "${runs[@]}" --group arm --out "$OUT/accuracy_vs_time.png" >/dev/null
echo "table: $OUT/table.md; figure: $OUT/accuracy_vs_time.png"
