#!/usr/bin/env bash
# `fedgrid plan` at national scale: the largest count of identical weak-tier hospitals that one
# cloud server (10 Gbit/s) takes at one minute a FedAvg round, over 100 to 100,000 hospitals,
# timing-only with cohorts (scenarios/capacity/server_10g_count.yaml); and what the critical-path
# bookkeeping (output.critical_path) costs the 100,000-hospital scenario. Prints the plan's wall
# time and runs (target: under 2 minutes on 2 cores), its answer, and the two scenario timings.
# usage: bench/plan_capacity.sh [path/to/fedgrid] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=${1:-build/fedgrid}
jobs=${2:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

/usr/bin/time -f "%e" -o "$out/time" "$fedgrid" plan scenarios/capacity/server_10g_count.yaml \
  --vary 'platform.hospitals[0].count=100..100000' --target 'round_time_s <= 60' --jobs "$jobs" \
  --out "$out/plan" --log-level warn 2>/dev/null
/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
wall = float(open(f"{out}/time").read().split()[-1])
p = json.load(open(f"{out}/plan/plan.json"))
print(f"plan_capacity: {p['key']} in {p['range']}, {p['target']}: answer {p['answer']} "
      f"({p['verdict']}, monotone {p['monotone']}), {p['runs']} runs, wall {wall:.1f} s (target < 120)")
PY
# The bookkeeping's cost: capacity_100k.yaml with output.critical_path off and on, three times each.
for cp in false true false true false true; do
  /usr/bin/time -f "$cp %e %U" -a -o "$out/cp" "$fedgrid" run --overwrite scenarios/capacity_100k.yaml \
    --set output.critical_path=$cp --out "$out/c100k" --log-level warn >/dev/null
done
/usr/bin/python3 - "$out/cp" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
for cp in ("false", "true"):
    wall = statistics.median(float(r[1]) for r in rows if r[0] == cp)
    user = statistics.median(float(r[2]) for r in rows if r[0] == cp)
    print(f"capacity_100k, output.critical_path {cp}: median wall {wall:.2f} s, user {user:.2f} s")
PY
