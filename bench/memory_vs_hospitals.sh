#!/usr/bin/env bash
# Peak memory of a real-training run against the number of hospitals: one FedAvg round of the
# McMahan CNN (582,026 values = 2.33 MB per model state) on Fashion-MNIST, iid, medium tier.
# usage: bench/memory_vs_hospitals.sh [path/to/fedgrid] [COUNTS...]   (default: 10 1000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=${1:-build/fedgrid}
shift || true
counts=${*:-10 1000 10000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for n in $counts; do
  "$fedgrid" run --overwrite scenarios/quickstart.yaml --out "$out/$n" --log-level warn \
    --set stop.rounds=1 --set data.partition.scheme=iid --set output.trace=false \
    --set "platform.hospitals=[{count: $n, tier: medium}]" >/dev/null
  /usr/bin/python3 -c "
import json; p = json.load(open('$out/$n/perf.json'))
print(f\"{$n} hospitals: peak RSS {p['peak_rss_mib']:.0f} MiB, wall {p['wall_total_s']:.1f} s\")"
done
