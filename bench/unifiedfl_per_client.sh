#!/usr/bin/env bash
# UnifiedFL's per-client table (Pala & Rekik 2025, Tables 5 and 7-9) over seeds: the fully
# heterogeneous setting (unifiedfl, ufedgnn, local), the partially heterogeneous one by width
# (unifiedfl, heterofl, local) and by depth (unifiedfl, inclusivefl, local) of
# scenarios/unifiedfl/fmnist_*.yaml, 100 rounds each, with
# output.site_metrics on; then analysis/per_client.py: each hospital's macro precision, recall
# and F1 on its own test split at the last round, mean and 95% interval over the seeds.
#
#   bench/unifiedfl_per_client.sh [--seeds "1 2 3"] [--build DIR] [--out DIR] [--jobs N]
#
# Runs go to OUT/setting=S/method=M/seed=K (OUT: results/unifiedfl_seeds); a run whose
# summary.json exists is kept. Table: OUT/per_client.md. Wall time here: algorithms/unifiedfl/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="1 2 3"; build=build; out=results/unifiedfl_seeds; jobs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "bench/unifiedfl_per_client.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$build/fedgrid" ] || { echo "bench/unifiedfl_per_client.sh: no $build/fedgrid (build first: see README)" >&2; exit 2; }
runs=()
for seed in $seeds; do
  for scenario in full_unifiedfl full_ufedgnn full_local partial_unifiedfl partial_heterofl partial_local \
    depth_unifiedfl depth_inclusivefl depth_local; do
    runs+=("$scenario $seed")
  done
done
run_one() {  # SCENARIO SEED
  local dir="$out/setting=${1%%_*}/method=${1#*_}/seed=$2"
  [ -f "$dir/summary.json" ] && { echo "kept  $dir"; return 0; }
  rm -rf "$dir"
  "$build/fedgrid" run --overwrite "scenarios/unifiedfl/fmnist_$1.yaml" --set "seed=$2" --set output.site_metrics=true \
    --out "$dir" --log-level warn >/dev/null 2>&1 || { echo "FAIL  $dir" >&2; return 1; }
  echo "ran   $dir"
}
export -f run_one; export out build
printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -L 1 bash -c 'run_one $0 $1'
dirs=()
for r in "${runs[@]}"; do
  set -- $r
  dirs+=("$out/setting=${1%%_*}/method=${1#*_}/seed=$2")
done
/usr/bin/python3 analysis/per_client.py "${dirs[@]}" --section setting --out "$out/per_client.md"
