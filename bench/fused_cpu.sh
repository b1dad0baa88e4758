#!/usr/bin/env bash
# Does training.fuse pay on a CPU? bench/gpu_check.sh's fused-against-unfused comparison on the
# CPU: the quickstart's FedAvg and cnn, 2 rounds, three tiers alike, at each size unfused
# (training.fuse=off) and fused at each K (at most K hospitals per fused job). Training wall
# time (perf.json's wall_training_jobs_s) is compared; the simulated events must not move.
#
#   bench/fused_cpu.sh [BUILD_DIR]      (default build)
#
# FUSED_CPU_SIZES (default "9 90 900") and FUSED_CPU_K (default "8 32 1024") pick the sizes and
# fuse limits (a K above the size runs once, as K = N). One line per size:
#   fused cpu: fused/unfused at N hospitals X (K=k1: x1, K=k2: x2, ...)
# X is the best K's unfused training wall time over its fused one (above 1: fusion pays).
set -euo pipefail
build=$(realpath "${1:-build}")
fedgrid=$build/fedgrid
sizes=${FUSED_CPU_SIZES:-9 90 900}
ks=${FUSED_CPU_K:-8 32 1024}
cd "$(dirname "$0")/.."
[ -x "$fedgrid" ] || { echo "no fedgrid in $build" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {
  local name=$1; shift
  if ! "$fedgrid" run --overwrite scenarios/quickstart.yaml "$@" --set output.trace=false --out "$work/$name" \
       --log-level warn >"$work/$name.log" 2>&1; then
    echo "run $name failed:"; tail -20 "$work/$name.log"; exit 1
  fi
}
train_s() { python3 -c 'import json, sys; print("%.1f" % json.load(open(sys.argv[1]))["wall_training_jobs_s"])' "$work/$1/perf.json"; }
fused_jobs() { python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1])).get("fused_jobs", 0)))' "$work/$1/perf.json"; }

for n in $sizes; do
  third=$((n / 3))
  h=(--set stop.rounds=2 --set training.device=cpu)
  for i in 0 1 2; do h+=(--set "platform.hospitals.$i.count=$((i < 2 ? third : n - 2 * third))"); done
  run u "${h[@]}" --set training.fuse=off
  best=0 detail="" seen=" "
  for k in $ks; do
    [ "$k" -gt "$n" ] && k=$n  # K beyond the size fuses the same jobs as K = N
    case "$seen" in *" $k "*) continue ;; esac
    seen+="$k "
    run "f$k" "${h[@]}" --set training.fuse="$k"
    cmp -s "$work/u/events.csv" "$work/f$k/events.csv" || echo "  warning: events.csv differs (K=$k, $n hospitals)"
    r=$(python3 -c "print(f'{$(train_s u) / $(train_s "f$k"):.2f}')")
    echo "  $n hospitals, K=$k: training $(train_s u) s unfused, $(train_s "f$k") s fused ($(fused_jobs "f$k") fused jobs)"
    detail+="${detail:+, }K=$k: $r"
    best=$(python3 -c "print(max($best, $r))")
  done
  echo "fused cpu: fused/unfused at $n hospitals $best ($detail)"
done
