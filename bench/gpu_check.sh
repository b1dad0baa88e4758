#!/usr/bin/env bash
# fedgrid on a CUDA machine, the checks of issue 33 in one go (a few minutes on an H100):
#   1. the quickstart, 5 rounds, on CUDA against the CPU (wall time, accuracy, peak memory);
#   2. the same CUDA run again: rounds.csv, hospitals.csv, events.csv, summary.json identical?
#   3. fused against unfused training (training.fuse auto vs off) at 9, 90 and 900 hospitals
#      (the quickstart's FedAvg and cnn, 2 rounds, three tiers alike): training wall time,
#      hospital-epochs per second, and whether the simulated events stayed byte-identical;
#   4. training FLOP/s (perf.json) against the device's fp32 matrix-product peak (peak_flops).
#
#   bench/gpu_check.sh [BUILD_DIR]      BUILD_DIR holds fedgrid and peak_flops (default build)
#
# GPU_CHECK_DEVICE=cpu runs every step on the CPU instead (a dry run of the script where no GPU
# is); GPU_CHECK_SIZES (default "9 90 900") and GPU_CHECK_ROUNDS (quickstart rounds, default 5)
# shrink it. Last line:
#   gpu check: cuda/cpu X, fused/unfused at 900 hospitals Y, Z% of peak, rerun identical yes|no
# X: the CPU's wall time over CUDA's; Y: unfused training wall time over fused; Z: the fused
# 900-hospital run's training FLOP/s over peak_flops' fp32 figure for the device.
set -euo pipefail
build=$(realpath "${1:-build}")
fedgrid=$build/fedgrid
dev=${GPU_CHECK_DEVICE:-cuda}
sizes=${GPU_CHECK_SIZES:-9 90 900}
qrounds=${GPU_CHECK_ROUNDS:-5}
cd "$(dirname "$0")/.."
[ -x "$fedgrid" ] && [ -x "$build/peak_flops" ] || { echo "no fedgrid or peak_flops in $build" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=(rounds.csv hospitals.csv events.csv summary.json)

# run NAME ARGS...: the quickstart with ARGS, outputs in $work/NAME.
run() {
  local name=$1; shift
  if ! "$fedgrid" run --overwrite scenarios/quickstart.yaml "$@" --set output.trace=false --out "$work/$name" \
       --log-level warn >"$work/$name.log" 2>&1; then
    echo "run $name failed:"; tail -20 "$work/$name.log"; exit 1
  fi
}
# json FILE KEY: one figure of a JSON object.
json() { python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print(v if v is not None else "nan")' "$1" "$2"; }
perf() { json "$work/$1/perf.json" "$2"; }
ratio() { python3 -c 'import sys; a, b = map(float, sys.argv[1:]); print(f"{a / b:.2f}" if b > 0 else "nan")' "$1" "$2"; }
# Hospital-epochs trained (hospitals.csv's epochs column summed) per second of training.
epochs_per_s() {
  python3 - "$work/$1/hospitals.csv" "$(perf "$1" wall_training_jobs_s)" <<'PY'
import csv, sys
epochs = sum(int(r["epochs"] or 0) for r in csv.DictReader(open(sys.argv[1])))
print(f"{epochs / float(sys.argv[2]):.1f}" if float(sys.argv[2]) > 0 else "nan")
PY
}
same_bytes() {
  local f
  for f in "${files[@]}"; do cmp -s "$work/$1/$f" "$work/$2/$f" || { echo no; return; }; done
  echo yes
}

echo "== device"
if [ "$dev" = cuda ]; then nvidia-smi -L 2>/dev/null | head -1 || true; fi
"$build/peak_flops" | tee "$work/peak.txt"
if [ "$dev" = cuda ]; then
  peak=$(awk '/^cuda:/ { print $2 }' "$work/peak.txt")
else
  peak=$(awk '/threads?: / { print $(NF-1); exit }' "$work/peak.txt")
fi
[ -n "$peak" ] || { echo "peak_flops gave no $dev figure (does this LibTorch see the GPU?)"; exit 1; }

echo "== quickstart, $qrounds rounds: $dev against cpu"
q=(--set stop.rounds="$qrounds")
run q_dev "${q[@]}" --set training.device="$dev"
run q_dev_again "${q[@]}" --set training.device="$dev"
run q_cpu "${q[@]}" --set training.device=cpu
printf '%-8s %9s %9s %9s %12s\n' device wall_s train_s accuracy peak_rss_mib
for r in q_dev q_cpu; do
  printf '%-8s %9.1f %9.1f %9s %12.0f\n' "$([ $r = q_dev ] && echo "$dev" || echo cpu)" "$(perf $r wall_total_s)" "$(perf $r wall_training_jobs_s)" "$(json "$work/$r/summary.json" final_accuracy)" \
    "$(perf $r peak_rss_mib)"
done
speedup=$(ratio "$(perf q_cpu wall_total_s)" "$(perf q_dev wall_total_s)")
rerun=$(same_bytes q_dev q_dev_again)
echo "$dev/cpu (wall): $speedup; rerun on $dev identical: $rerun"

echo "== fused (training.fuse=${GPU_CHECK_FUSE:-auto}) against unfused, FedAvg cnn, 2 rounds, on $dev"
printf '%-9s %-7s %9s %9s %14s %12s %8s %11s\n' hospitals fuse wall_s train_s hosp_epochs/s train_GFLOP/s of_peak jobs_fused
fused_ratio=nan peak_share=nan largest=0
for n in $sizes; do
  third=$((n / 3))
  h=(--set stop.rounds=2 --set training.device="$dev")
  for i in 0 1 2; do h+=(--set "platform.hospitals.$i.count=$((i < 2 ? third : n - 2 * third))"); done
  run "u$n" "${h[@]}" --set training.fuse=off
  run "f$n" "${h[@]}" --set training.fuse="${GPU_CHECK_FUSE:-auto}"
  for r in "u$n" "f$n"; do
    flops=$(perf "$r" training_flops_per_s)
    printf '%-9s %-7s %9.1f %9.2f %14s %12.1f %7.1f%% %11.0f\n' "$n" "$([ "$r" = "u$n" ] && echo off || echo "${GPU_CHECK_FUSE:-auto}")" \
      "$(perf "$r" wall_total_s)" "$(perf "$r" wall_training_jobs_s)" "$(epochs_per_s "$r")" \
      "$(python3 -c "print($flops / 1e9)")" "$(python3 -c "print(100 * $flops / 1e9 / $peak)")" \
      "$(perf "$r" training_jobs_fused)"
  done
  cmp -s "$work/u$n/events.csv" "$work/f$n/events.csv" && same=yes || same=no
  echo "  $n hospitals: fused/unfused (training wall) $(ratio "$(perf "u$n" wall_training_jobs_s)" "$(perf "f$n" wall_training_jobs_s)"), events.csv identical: $same"
  if [ "$n" -ge "$largest" ]; then
    largest=$n
    fused_ratio=$(ratio "$(perf "u$n" wall_training_jobs_s)" "$(perf "f$n" wall_training_jobs_s)")
    peak_share=$(python3 -c "print(f'{100 * $(perf "f$n" training_flops_per_s) / 1e9 / $peak:.1f}')")
  fi
done

label=$([ "$dev" = cuda ] && echo cuda || echo "$dev (dry run)")
echo "gpu check: $label/cpu $speedup, fused/unfused at $largest hospitals $fused_ratio, $peak_share% of peak, rerun identical $rerun"
