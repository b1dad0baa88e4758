#!/usr/bin/env bash
# What a command costs before it does its work: CPU time (user + system) and peak memory of
# `fedgrid --version`, `list keys`, `list metrics`, `validate` of the quickstart (a run that
# trains: its data read through, no network built), and a timing-only run of 100 hospitals
# (capacity_100k.yaml at 60/30/10, one round). None of them loads LibTorch
# (sim/jobs/torch_module.hpp); the aim is each under 0.3 CPU s and 100 MB. A run that trains is
# shown for comparison (the quickstart's first round). Median of five (the training run: one).
# usage: bench/startup_cost.sh [path/to/fedgrid]
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=${1:-build/fedgrid}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

measure() {  # NAME REPEATS ARGS...
  local name=$1 repeats=$2
  shift 2
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "$name %U %S %M" -a -o "$out/times" "$fedgrid" "$@" >/dev/null 2>&1
  done
}
measure version 5 --version
measure list-keys 5 list keys
measure list-metrics 5 list metrics
measure validate-quickstart 5 validate scenarios/quickstart.yaml
measure timing-only-100 5 run --overwrite scenarios/capacity_100k.yaml --set 'platform.hospitals[0].count=60' \
  --set 'platform.hospitals[1].count=30' --set 'platform.hospitals[2].count=10' --set stop.rounds=1 \
  --out "$out/t100" --log-level warn
measure training-quickstart-1-round 1 run --overwrite scenarios/quickstart.yaml --set stop.rounds=1 \
  --out "$out/q" --log-level warn
/usr/bin/python3 - "$out/times" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
for name in dict.fromkeys(r[0] for r in rows):
    mine = [r for r in rows if r[0] == name]
    cpu = statistics.median(float(r[1]) + float(r[2]) for r in mine)
    mb = statistics.median(float(r[3]) / 1024 for r in mine)
    print(f"{name:28s} cpu {cpu:6.2f} s  peak memory {mb:7.1f} MB")
PY
