#!/usr/bin/env bash
# Side experiment: same link at 25 ms one-way delay, 1 repeat, varying what the
# main grid keeps at its defaults.  Writes one CSV per variant:
#   (cubic variants need cubic in the host's tcp_allowed_congestion_control;
#    set VARIANTS="cubic:sender:cubic cubic:router:cubic_router" to try them)
#   results_<date>_router.csv       kernel default CC, tbf on r's egress to b
#   results_<date>_cubic_router.csv CC=cubic, tbf on r's egress to b
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); D=$(date +%F)
for v in ${VARIANTS:-:router:router}; do
  IFS=: read -r cc at name <<< "$v"
  out=$HERE/results_${D}_$name.csv; : > "$out"; first=1
  for r in 20000000 100000000; do for s in 2300000 23000000; do for f in 1 10; do
    [[ $r == 20000000 && $s == 23000000 && $f == 10 ]] && continue
    echo "[variants] $name rate=$r size=$s flows=$f" >&2
    CC=$cc SHAPE_AT=$at NOHEADER=$((1 - first)) RATE_BPS=$r DELAY_S=0.025 SIZE_BYTES=$s FLOWS=$f REPEATS=1 \
      "$HERE/run.sh" >> "$out"
    first=0
  done; done; done
done
