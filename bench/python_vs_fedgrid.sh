#!/usr/bin/env bash
# fedgrid's whole-process time against the same federation written the way the seed papers'
# authors write it (bench/python_fedavg.py: a Python loop over hospitals, per-sample Dataset,
# DataLoader, deepcopy + state_dict averaging, PyTorch on all cores). Same work on both sides:
# 8 hospitals, cnn, Fashion-MNIST iid, train share 0.7 of each hospital's data, SGD lr 0.01
# momentum 0.9, batch 32, 1 local epoch, inputs normalised with the train-set mean/std, scored
# on the 10,000 test images after the last round only. fedgrid runs exactly as in
# overhead_vs_bare.sh (2 workers x 1 torch thread); Python runs the hospitals one after the other
# with torch.set_num_threads(2). Both are timed from outside, start to exit (Python's per-round
# times follow its line). speed-up = python wall / fedgrid wall.
# PY_THREADS (default 2) sets torch.set_num_threads in the Python loop; 0 leaves torch's own
# default, which is what an unmodified research script gets (1 thread on this machine).
# usage: bench/python_vs_fedgrid.sh [ROUNDS] [BUILD_DIR] [PY_THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
build=${2:-build}
py_threads=${3:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source bench/fedavg8_common.sh
t0=$(seconds)
run_fedgrid_fedavg8 "$build" "$out/fedgrid" "$rounds"
t1=$(seconds)
python=$(/usr/bin/python3 bench/python_fedavg.py --hospitals 8 --rounds "$rounds" --seed 42 --threads "$py_threads" -v \
  2>"$out/python_rounds.txt")
t2=$(seconds)
echo "$python"
cat "$out/python_rounds.txt"

compare_with_fedgrid "$out/fedgrid" "$t0" "$t1" "$t2" python "$python" other/fedgrid
