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

compare_with_fedgrid "$out/fedgrid" "$t0" "$t1" "$t2" "bare LibTorch" "$bare" fedgrid/other
