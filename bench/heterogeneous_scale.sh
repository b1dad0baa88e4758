#!/usr/bin/env bash
# Distinct hospitals at scale: scenarios/capacity_100k_heterogeneous.yaml (every hospital draws
# its own figures; FedAvg, timing-only) at 1k, 10k and 100k hospitals (the tiers' counts scaled
# alike), under the exact network model (cm02: SimGrid's solver, one flow per hospital) and the
# fast one (fluid). Prints whole-process wall time and peak memory per count and model, and,
# where both ran, the largest relative difference of a round's end and of a transfer's end
# (analysis/compare_network_runs.py). Then the whole federation taking part every round.
# usage: bench/heterogeneous_scale.sh [FEDGRID] [COUNTS]   (default: 1000 10000 100000)
# EXACT_MAX (default 10000): the largest count run under cm02 (100,000 would take hours).
# ROUNDS (default 10), FRACTION (default 0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=$(realpath "${1:-build/fedgrid}")
shift || true
counts=${*:-1000 10000 100000}
exact_max=${EXACT_MAX:-10000}
rounds=${ROUNDS:-10}
fraction=${FRACTION:-0.1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # COUNT NETWORK FRACTION TAG
  local n=$1 net=$2 f=$3 tag=$4
  # The tiers' counts scaled alike (60% weak, 30% medium, 10% strong), every draw as shipped.
  sed -e "s/count: 60000/count: $((n * 6 / 10))/" -e "s/count: 30000/count: $((n * 3 / 10))/" \
    -e "s/count: 10000/count: $((n / 10))/" scenarios/capacity_100k_heterogeneous.yaml >"$out/$tag.yaml"
  /usr/bin/time -f "%e %M" -o "$out/$tag.time" "$fedgrid" run --overwrite "$out/$tag.yaml" --out "$out/$tag" --log-level warn \
    --set timing.network="$net" --set stop.rounds="$rounds" --set algorithm.fraction="$f" >/dev/null
  read -r wall rss <"$out/$tag.time"
  printf '%8d hospitals  %-6s fraction %-4s %3d rounds: wall %8.1f s, peak RSS %6.0f MiB\n' \
    "$n" "$net" "$f" "$rounds" "$wall" "$((rss / 1024))"
}

for n in $counts; do
  run "$n" fluid "$fraction" "fluid-$n"
  if [ "$n" -le "$exact_max" ]; then
    run "$n" cm02 "$fraction" "cm02-$n"
    /usr/bin/python3 analysis/compare_network_runs.py "$out/cm02-$n" "$out/fluid-$n" | sed 's/^/    /'
  else
    printf '%8d hospitals  cm02   not run (EXACT_MAX=%d)\n' "$n" "$exact_max"
  fi
  rm -rf "$out/fluid-$n" "$out/cm02-$n"
done
last=${counts##* }
run "$last" fluid 1.0 "fluid-all-$last"
