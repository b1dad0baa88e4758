#!/usr/bin/env bash
# scenarios/capacity_100k.yaml (100,000 hospitals, 3 tiers, fedavg, 10 rounds, timing-only with
# cohorts): whole-process wall time and peak memory, against the targets of 60 s and 4 GB.
# usage: bench/capacity_100k.sh [path/to/fedgrid]
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=${1:-build/fedgrid}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

/usr/bin/time -f "%e %M" -o "$out/time" "$fedgrid" run --overwrite scenarios/capacity_100k.yaml --out "$out/run" \
  --log-level warn >/dev/null
/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
wall, rss_kib = open(f"{out}/time").read().split()
s = json.load(open(f"{out}/run/summary.json"))
print(f"capacity_100k: {s['rounds']} rounds, simulated {s['sim_time_s']:.1f} s, "
      f"{s['bytes_total'] / 1e12:.2f} TB moved; wall {float(wall):.2f} s (target < 60), "
      f"peak RSS {int(rss_kib) / 1024:.0f} MiB (target < 4096)")
PY
