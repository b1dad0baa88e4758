#!/usr/bin/env bash
# Speed-up of the compute executor: one 8-hospital FedAvg round (McMahan CNN, Fashion-MNIST,
# iid) with 1 and with 2 workers (1 torch thread each), same simulated results.
# usage: bench/worker_speedup.sh [path/to/fedgrid]
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=${1:-build/fedgrid}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for w in 1 2; do
  "$fedgrid" run --overwrite scenarios/quickstart.yaml --out "$out/w$w" --log-level warn \
    --set stop.rounds=1 --set data.partition.scheme=iid --set output.trace=false \
    --set 'platform.hospitals=[{count: 8, tier: medium}]' \
    --set training.workers=$w --set training.threads_per_worker=1 >/dev/null
done

cmp -s "$out/w1/rounds.csv" "$out/w2/rounds.csv" && same=yes || same=NO
/usr/bin/python3 - "$out" "$same" <<'PY'
import json, sys
out, same = sys.argv[1], sys.argv[2]
def training_wall(w):
    p = json.load(open(f"{out}/w{w}/perf.json"))
    # The round's wall time minus its evaluation: what the executor's training jobs took.
    return p["wall_simulation_s"] - p["wall_evaluation_s"] - p["wall_output_s"]
t1, t2 = training_wall(1), training_wall(2)
print(f"training wall, 8 hospitals x 1 epoch: 1 worker {t1:.2f} s, 2 workers {t2:.2f} s, "
      f"speed-up {t1 / t2:.2f}x, identical rounds.csv: {same}")
PY
