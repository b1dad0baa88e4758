#!/usr/bin/env bash
# DynamicFL against its baselines under one simulated wall-clock budget (scenarios/dynamicfl/):
# runs the five fmnist_*.yaml scenarios and prints one markdown row per method: rounds that fit
# the budget, final global accuracy, per-tier accuracy (each tier's model on the global test
# set), the tier gap, the spread across hospitals, and bytes.
# usage: bench/dynamicfl_comparison.sh [BUILD_DIR] [OUT_DIR] [extra --set args...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${2:-results/dynamicfl}
shift $(( $# > 2 ? 2 : $# ))
echo "| method | rounds in budget | sim time (s) | accuracy | weak | medium | strong | tier gap | hospital std | GB sent |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for method in dynamicfl heterofl fedrolex feddf fedavg; do
  "$BUILD/fedgrid" run --overwrite "scenarios/dynamicfl/fmnist_$method.yaml" --out "$OUT/$method" "$@" >/dev/null 2>&1
  python3 - "$OUT/$method/summary.json" "$method" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["final_tier_accuracy"]
pct = lambda x: "-" if x is None else f"{100 * x:.2f}"
print(f"| {sys.argv[2]} | {s['rounds']} | {s['sim_time_s']:.1f} | {pct(s['final_accuracy'])} | {pct(t.get('weak'))} | "
      f"{pct(t.get('medium'))} | {pct(t.get('strong'))} | {pct(s['final_tier_gap'])} | {pct(s['final_hospital_acc_std'])} | "
      f"{s['bytes_total'] / 1e9:.2f} |")
PY
done
