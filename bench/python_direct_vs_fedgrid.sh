#!/usr/bin/env bash
# fedgrid's whole-process time against bench/python_fedavg_direct.py, the fastest plain Python
# PyTorch loop over the same work (dataset as one tensor indexed directly, no DataLoader,
# hospitals one after the other, torch on 2 threads, the global test set scored every round).
# fedgrid: the quickstart with 8 medium hospitals, iid, 2 workers x 1 torch thread, evaluating
# every round (the global model on the test set and each hospital's test split). Both timed
# from outside, start to exit; speed-up = python wall / fedgrid wall.
# usage: bench/python_direct_vs_fedgrid.sh [ROUNDS] [BUILD_DIR]
# PRECISION=bf16: fedgrid trains with training.precision: bf16 (the Python loop stays fp32).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
build=${2:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source bench/fedavg8_common.sh
t0=$(seconds)
run_fedgrid_fedavg8 "$build" "$out/fedgrid" "$rounds" --set output.eval_every=1 \
  ${PRECISION:+--set training.precision=$PRECISION}
t1=$(seconds)
python=$(/usr/bin/python3 bench/python_fedavg_direct.py --hospitals 8 --rounds "$rounds" --seed 42 --threads 2)
t2=$(seconds)
echo "$python"
compare_with_fedgrid "$out/fedgrid" "$t0" "$t1" "$t2" "python-direct" "$python" "python/fedgrid"
