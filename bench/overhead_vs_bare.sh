#!/usr/bin/env bash
# fedgrid's whole-process time against the bare LibTorch loop doing the same training work
# (bench/bare_fedavg.cpp): 8 hospitals, cnn, Fashion-MNIST iid, batch 32, 1 epoch, 2 workers x
# 1 torch thread. fedgrid evaluates only after the last round, like the bare loop.
# usage: bench/overhead_vs_bare.sh [ROUNDS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
build=${2:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source bench/fedavg8_common.sh
t0=$(seconds)
run_fedgrid_fedavg8 "$build" "$out/fedgrid" "$rounds"
t1=$(seconds)
bare=$("$build/bare_fedavg" 8 "$rounds" 2 1 42)
t2=$(seconds)

/usr/bin/python3 - "$out" "$t0" "$t1" "$t2" "$bare" <<'PY'
import csv, sys
out, t0, t1, t2, bare = sys.argv[1], *map(float, sys.argv[2:5]), sys.argv[5]
rows = list(csv.DictReader(open(f"{out}/fedgrid/rounds.csv")))
fed_acc = float(rows[-1]["accuracy"])
bare_acc = float(bare.split("accuracy ")[1].split(",")[0])
fed, bare_wall = t1 - t0, t2 - t1
print(f"fedgrid {fed:.2f} s (accuracy {fed_acc:.4f}), bare LibTorch {bare_wall:.2f} s (accuracy {bare_acc:.4f}): "
      f"fedgrid/bare = {fed / bare_wall:.3f}")
PY
