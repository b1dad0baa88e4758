#!/usr/bin/env bash
# FedSKD against its baselines on the paper's two shapes (scenarios/fedskd/): FedSkin (3
# hospitals, 5 classes) and FedASD (4 hospitals, binary), Dirichlet 1.0 and 0.5, homogeneous and
# heterogeneous widths; FedSKD also with the pipelined schedule. Prints one markdown row per
# run: local and global test AUC and accuracy (means over hospitals), simulated time, and the
# bytes that went hospital to hospital against through the server.
# usage: bench/fedskd_comparison.sh [BUILD_DIR] [OUT_DIR] [extra --set args...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${2:-results/fedskd}
shift $(( $# > 2 ? 2 : $# ))
echo "| shape | beta | method | local AUC | global AUC | local acc | global acc | sim time (s) | MB peer-to-peer | MB via server |"
echo "|---|---|---|---|---|---|---|---|---|---|"
row() {  # shape beta label out_dir
  python3 - "$4/summary.json" "$1" "$2" "$3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
pct = lambda x: "-" if x is None else f"{100 * x:.2f}"
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {pct(s['final_local_test_auc'])} | {pct(s['final_global_test_auc'])} | "
      f"{pct(s['final_local_test_acc'])} | {pct(s['final_global_test_acc'])} | {s['sim_time_s']:.1f} | "
      f"{s['bytes_peer'] / 1e6:.1f} | {(s['bytes_up'] + s['bytes_down']) / 1e6:.1f} |")
PY
}
for shape in fedskin fedasd; do
  for beta in 1.0 0.5; do
    for method in fedskd fedskd_hetero fedcross fedbn fedavg local local_hetero; do
      out="$OUT/$shape-$beta/$method"
      "$BUILD/fedgrid" run --overwrite "scenarios/fedskd/${shape}_$method.yaml" --out "$out" --set data.partition.beta=$beta "$@" >/dev/null 2>&1
      row "$shape" "$beta" "$method" "$out"
    done
    if [ "$beta" = 1.0 ]; then  # same models as the barrier runs; only the timing differs
      for method in fedskd fedskd_hetero; do
        out="$OUT/$shape-$beta/${method}_pipelined"
        "$BUILD/fedgrid" run --overwrite "scenarios/fedskd/${shape}_$method.yaml" --out "$out" --set data.partition.beta=$beta \
          --set algorithm.schedule=pipelined "$@" >/dev/null 2>&1
        row "$shape" "$beta" "${method} (pipelined)" "$out"
      done
    fi
  done
done
