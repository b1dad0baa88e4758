#!/usr/bin/env bash
# Why an idle calibration scaled by CPU share mispredicts the emulated hosts (issue 34): the
# seconds of one training step measured by `fedgrid calibrate` under the conditions the timing
# bench's emulation creates, against the idle profile x 1/share that fedgrid's linear model
# charges.
#
#   bench/quota_slowdown.sh [BUILD_DIR] [OUT_DIR] [ARCH:CxHxW:CLASSES]
#
# 1. idle: the default calibration (one process, no quota, median of repeats), three times, to
#    see how much the idle figure itself moves between runs.
# 2. each share alone: one process in a cgroup at 0.25, 0.5 and 1 of one CPU (CFS quota, period
#    10 ms as bench/emulator uses), the rest of the machine idle (as in FedSeq and FedCross,
#    where one hospital computes at a time).
# 3. the shares together: 0.25, 0.5 and 1 stepping at once (as FedAvg's three hospitals).
# 4. two unlimited copies at once (every core busy).
# Each loaded figure is a mean over a 10 s window. Needs a writable cgroup cpu controller.
# Takes about 2 minutes; run it on an otherwise idle machine.
set -euo pipefail
build=$(realpath "${1:-build}")
out=$(realpath -m "${2:-results/quota_slowdown}")
model="${3:-cnn:1x28x28:10}"
fedgrid="$build/fedgrid"
[ -x "$fedgrid" ] || { echo "quota_slowdown: $fedgrid not built" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out"
cal() {  # NAME ARGS...: a profile in $out/NAME.csv
  local name=$1; shift
  "$fedgrid" calibrate --models "$model" --batch-sizes 32 --threads 1 --device-name x "$@" \
    --out "$out/$name.csv" > "$out/$name.log" 2>&1 || { cat "$out/$name.log"; exit 1; }
}
for i in 1 2 3; do cal "idle-$i"; done
for s in 0.25 0.5 1; do cal "alone-$s" --cpu-share "$s" --seconds 10; done
cal together --cpu-share 0.25,0.5,1 --seconds 10
cal two-copies --copies 2 --seconds 10

python3 - "$out" <<'EOF'
import csv, statistics, sys
out = sys.argv[1]
def rows(name):
    return {r["device"]: float(r["train_step_s"]) for r in csv.DictReader(l for l in open(f"{out}/{name}.csv") if not l.startswith("#"))}
idle = [rows(f"idle-{i}")["x"] for i in (1, 2, 3)]
base = statistics.median(idle)
print(f"idle calibration, three runs: {', '.join(f'{v * 1e3:.1f}' for v in idle)} ms/step "
      f"(median {base * 1e3:.1f}; runs differ by up to {(max(idle) - min(idle)) / base * 100:.0f}%)")
print(f"{'conditions':<34} {'share':>5} {'ms/step':>8} {'x idle':>7} {'x idle/share':>13}")
def line(label, share, v):
    print(f"{label:<34} {share:>5g} {v * 1e3:>8.1f} {v / base:>7.2f} {v / (base / share):>13.2f}")
for s in (0.25, 0.5, 1.0):
    line("alone in its quota", s, rows(f"alone-{s:g}")[f"x@{s:g}"])
together = rows("together")
for s in (0.25, 0.5, 1.0):
    line("0.25, 0.5 and 1 at once", s, together[f"x@{s:g}"])
line("two unlimited copies at once", 1.0, rows("two-copies")["x"])
EOF
