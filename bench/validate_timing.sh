#!/usr/bin/env bash
# Simulated time against a real emulated deployment (README "How accurate is the clock?").
#
#   bench/validate_timing.sh [BUILD_DIR] [OUT_DIR]
#
# 1. `fedgrid calibrate` measures this machine's seconds per cnn training step (one thread).
# 2. For 6 configurations (FedAvg, FedSeq and peer-to-peer FedCross, each at a slow and a fast
#    network), bench/emulator's fedgrid-emulate runs the federation for real: one process per
#    host, each limited by a cgroup to its tier's share of a CPU (weak 0.25, medium 0.5,
#    strong 1.0, server 0.2: 1.95 CPUs, this 2-core machine), models sent as real bytes over
#    loopback TCP, paced to the links' bandwidths and delayed by their latencies.
# 3. fedgrid simulates the same platform: timing.compute: profile with the calibrated profile
#    scaled by each host's CPU share (speed_factor = share), the same bandwidths and latencies
#    under timing.network: cm02 (latency + size / bandwidth, max-min sharing).
# 4. Per-round times are compared; the last line is the summary.
#
# Needs root for the cgroups (fedgrid-emulate exits 77 when it cannot write them: skipped).
# Takes about 2 minutes here.
set -euo pipefail
build=$(realpath "${1:-build}")
out=$(realpath -m "${2:-results/validate_timing}")
fedgrid="$build/fedgrid"
emulate="$build/bench/emulator/fedgrid-emulate"
for b in "$fedgrid" "$emulate"; do [ -x "$b" ] || { echo "validate_timing: $b not built" >&2; exit 2; }; done
rm -rf "$out" && mkdir -p "$out"

rounds=3 samples=640 batch=32 arch=cnn input=1x28x28 classes=10
# name, CPU share, uplink bit/s, downlink bit/s, latency s (the slow network; fast = x10 bandwidth)
hosts=("weak 0.25 10e6 20e6 0.020" "medium 0.5 20e6 50e6 0.010" "strong 1.0 50e6 100e6 0.005")
server="server 0.2 100e6 100e6 0.001"

echo "calibrating this machine ($arch $input, batch $batch, 1 thread)..."
"$fedgrid" calibrate --models "$arch:$input:$classes" --batch-sizes "$batch" --threads 1 --device-name here \
  --out "$out/profile.csv" > "$out/calibrate.log" 2>&1

scale() { python3 -c "print(repr(float('$1') * $2))"; }

for net in slow fast; do
  factor=$([ $net = slow ] && echo 1 || echo 10)
  tiers="$out/tiers-$net.yaml"
  {
    echo "tiers:"
    for h in "${hosts[@]}" "$server"; do
      read -r name share up down lat <<<"$h"
      tier=$([ "$name" = server ] && echo cloud || echo "$name")
      echo "  $tier: {speed_flops: 1e9, cores: 1, memory_gb: 1, uplink_bps: $(scale "$up" $factor)," \
           "downlink_bps: $(scale "$down" $factor), latency_s: $lat, power_idle_w: 1, power_max_w: 1," \
           "profile_device: here, speed_factor: $share}"
    done
  } > "$tiers"
  for algorithm in fedavg fedseq fedcross; do
    config="$algorithm-$net"
    cat > "$out/$config.yaml" <<EOF
name: $config
seed: 42
platform:
  tiers: $tiers
  server: {tier: cloud}
  hospitals: [{count: 1, tier: weak}, {count: 1, tier: medium}, {count: 1, tier: strong}]
data: {dataset: synthetic, samples_per_hospital: $samples, synthetic: {height: 28, width: 28, classes: $classes}}
model: {arch: $arch}
training: {mode: timing-only, batch_size: $batch, local_epochs: 1}
algorithm: {name: $algorithm}
stop: {rounds: $rounds}
timing: {compute: profile, profile: $out/profile.csv, network: cm02}
output: {trace: false}
EOF
    "$fedgrid" run "$out/$config.yaml" --out "$out/$config/simulated" --log-level warn > /dev/null
    args=(--schedule "$algorithm" --rounds "$rounds" --arch "$arch" --input "$input" --classes "$classes"
          --batch-size "$batch" --epochs 1 --lr 0.01 --out "$out/$config/emulated")
    for h in "${hosts[@]}"; do
      read -r name share up down lat <<<"$h"
      args+=(--hospital "name=$name-1,share=$share,samples=$samples,uplink_bps=$(scale "$up" $factor),downlink_bps=$(scale "$down" $factor),latency_s=$lat")
    done
    read -r name share up down lat <<<"$server"
    args+=(--server "share=$share,uplink_bps=$(scale "$up" $factor),downlink_bps=$(scale "$down" $factor),latency_s=$lat")
    set +e
    "$emulate" "${args[@]}" > "$out/$config/emulate.log" 2>&1
    rc=$?
    set -e
    if [ $rc -eq 77 ]; then
      cat "$out/$config/emulate.log"
      echo "timing validation: skipped (no writable cgroup cpu controller)"
      exit 0
    fi
    [ $rc -eq 0 ] || { cat "$out/$config/emulate.log"; echo "validate_timing: the emulation of $config failed" >&2; exit 1; }
    echo "ran $config"
  done
done

python3 - "$out" <<'EOF'
import csv, statistics, sys
out = sys.argv[1]
configs = [f"{a}-{n}" for n in ("slow", "fast") for a in ("fedavg", "fedseq", "fedcross")]

def round_times(path):
    ends = [float(r["sim_time_s"]) for r in csv.DictReader(open(path))]
    return [b - a for a, b in zip([0.0] + ends[:-1], ends)]

def busy(path, kind):
    """Seconds of `kind` activities per host, summed over the run."""
    total = {}
    for r in csv.DictReader(open(path)):
        if r["kind"] == kind:
            total[r["host"]] = total.get(r["host"], 0.0) + float(r["end_s"]) - float(r["start_s"])
    return total

errors, mean_sim, mean_emu = [], {}, {}
print(f"{'configuration':<16} {'round':>5} {'simulated s':>12} {'emulated s':>11} {'error':>8}")
for c in configs:
    sim = round_times(f"{out}/{c}/simulated/rounds.csv")
    emu = round_times(f"{out}/{c}/emulated/rounds.csv")
    for r, (s, e) in enumerate(zip(sim, emu), 1):
        errors.append(abs(s - e) / e * 100)
        print(f"{c:<16} {r:>5} {s:>12.3f} {e:>11.3f} {(s - e) / e * 100:>+7.1f}%")
    mean_sim[c], mean_emu[c] = statistics.mean(sim), statistics.mean(emu)
print()
print("where the time goes (seconds summed over the run, simulated / emulated):")
for c in configs:
    parts = []
    for kind in ("compute", "send"):
        s, e = busy(f"{out}/{c}/simulated/events.csv", kind), busy(f"{out}/{c}/emulated/events.csv", kind)
        for host in sorted(set(s) | set(e)):
            parts.append(f"{kind} {host} {s.get(host, 0):.2f}/{e.get(host, 0):.2f}")
    print(f"  {c}: " + "; ".join(parts))
by_sim = sorted(configs, key=mean_sim.get)
by_emu = sorted(configs, key=mean_emu.get)
agree = sum(a == b for a, b in zip(by_sim, by_emu))
print()
print("ranking by mean round time, simulated:", " < ".join(by_sim))
print("ranking by mean round time, emulated: ", " < ".join(by_emu))
print(f"timing validation: {len(configs)} configurations, median abs error {statistics.median(errors):.1f}%, "
      f"max {max(errors):.1f}%, ranking agreement {agree}/{len(configs)}")
EOF
