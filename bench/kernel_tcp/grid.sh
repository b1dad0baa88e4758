#!/usr/bin/env bash
# Measurement grid used for results_<date>.csv (see README.md).  Root only.
#   ./grid.sh [OUT.csv]      env: DELAYS="0 0.005 0.025" REPEATS=3 BIG_REPEATS=1
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/results_$(date +%F).csv}
DELAYS=${DELAYS:-"0 0.005 0.025"}
REPEATS=${REPEATS:-3}
BIG_REPEATS=${BIG_REPEATS:-1}   # 23 MB x 10 flows at 20 Mbit/s (~95 s each)
: > "$OUT"
first=1; t0=$(date +%s)
one() {  # rate delay size flows repeats
  echo "[grid +$(( $(date +%s) - t0 ))s] rate=$1 delay=$2 size=$3 flows=$4 repeats=$5" >&2
  NOHEADER=$((1 - first)) RATE_BPS=$1 DELAY_S=$2 SIZE_BYTES=$3 FLOWS=$4 REPEATS=$5 "$HERE/run.sh" >> "$OUT"
  first=0
}
for d in $DELAYS; do
  for r in 20000000 100000000; do
    for s in 10000 2300000 23000000; do
      for f in 1 10; do
        [[ $r == 20000000 && $s == 23000000 && $f == 10 ]] && continue
        one $r $d $s $f "$REPEATS"
      done
    done
  done
done
if (( BIG_REPEATS > 0 )); then
  for d in $DELAYS; do one 20000000 $d 23000000 10 "$BIG_REPEATS"; done
fi
echo "[grid] done in $(( $(date +%s) - t0 ))s -> $OUT" >&2
