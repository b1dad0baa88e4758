#!/usr/bin/env bash
# The shipped models' measured step times (fedgrid calibrate) beside what the FLOPs model
# predicts for this machine (docs/guide/time-model.md, "How accurate is the clock?").
#
#   bench/profile_vs_flops.sh [FEDGRID] [OUT_DIR]
#
# The FLOPs model charges 3 x forward FLOPs per sample at one speed per host. Its best single
# speed for this machine is the geometric mean of the models' measured training FLOP/s; each
# row shows how far that one number is from the measured step. Then DynamicFL, where FLOPs
# mislead most: the real CPU time of a round with grown diverse-branch blocks against a plain
# FedAvg round of the same federation, beside the ratio the FLOPs model charges.
# About 6 minutes on 2 cores, one thread per step.
set -euo pipefail
fedgrid=$(realpath "${1:-build/fedgrid}")
out=$(realpath -m "${2:-results/profile_vs_flops}")
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
models="cnn:1x28x28:10,lenet5:1x28x28:10,mlp:1x28x28:10,resnet10:3x32x32:10,vgg11:3x32x32:10,resnet18:3x32x32:10"
"$fedgrid" calibrate --models "$models" --batch-sizes 32 --threads 1 --device-name here --out "$out/profile.csv" \
  2> "$out/calibrate.log"
"$fedgrid" list models > "$out/models.txt"

# DynamicFL: two rounds of its Fashion-MNIST scenario against FedAvg's, real training on one
# worker so the wall time is the sum of the jobs.
for name in fmnist_fedavg fmnist_dynamicfl; do
  "$fedgrid" run --overwrite "$src/scenarios/dynamicfl/$name.yaml" --set stop.rounds=2 --set training.workers=1 \
    --out "$out/$name" --log-level warn > /dev/null
done

python3 - "$out" "$fedgrid" <<'EOF'
import csv, json, math, subprocess, sys
out, fedgrid = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(l for l in open(f"{out}/profile.csv") if not l.startswith("#"))]
header = [l.strip("# \n") for l in open(f"{out}/profile.csv") if l.startswith("# ") and ":" in l]

# Forward FLOPs per sample from a one-sample timing-only run's events (flops = 3 x forward x samples).
def train_flops_per_sample(arch, shape):
    c, h, w = (int(x) for x in shape.split("x"))
    yaml = f"""name: probe
platform: {{hospitals: [{{count: 1, tier: strong}}]}}
data: {{dataset: synthetic, samples_per_hospital: 1, synthetic: {{channels: {c}, height: {h}, width: {w}}}}}
model: {{arch: {arch}}}
training: {{mode: timing-only, batch_size: 1}}
stop: {{rounds: 1}}
output: {{trace: false}}
"""
    open(f"{out}/probe.yaml", "w").write(yaml)
    subprocess.run([fedgrid, "run", "--overwrite", f"{out}/probe.yaml", "--out", f"{out}/probe", "--log-level", "warn"],
                   check=True, stdout=subprocess.DEVNULL)
    for e in csv.DictReader(open(f"{out}/probe/events.csv")):
        if e["kind"] == "compute":
            return float(e["flops"])

measured = []
for r in rows:
    per_sample = train_flops_per_sample(r["arch"], r["input"])
    step_flops = per_sample * int(r["batch_size"])
    measured.append((r, step_flops, step_flops / float(r["train_step_s"])))
speed = math.exp(sum(math.log(m[2]) for m in measured) / len(measured))

lines = [f"Machine: {'; '.join(header)}. Batch 32, one thread. One FLOPs speed for all: "
         f"{speed / 1e9:.1f} GFLOP/s (geometric mean).", "",
         "| model | input | measured s/step (median, min) | achieved GFLOP/s | FLOPs model s/step | FLOPs model error |",
         "|---|---|---|---|---|---|"]
for r, flops, achieved in measured:
    predicted = flops / speed
    err = (predicted - float(r["train_step_s"])) / float(r["train_step_s"]) * 100
    lines.append(f"| {r['arch']} | {r['input']} | {float(r['train_step_s']):.4f} ({float(r['train_step_min_s']):.4f}) | "
                 f"{achieved / 1e9:.1f} | {predicted:.4f} | {err:+.0f}% |")

def summary(name):
    perf = json.load(open(f"{out}/{name}/perf.json"))
    compute = sum(float(h["compute_s"]) for h in csv.DictReader(open(f"{out}/{name}/hospitals.csv")))
    return perf["wall_training_wait_s"], compute
real_avg, sim_avg = summary("fmnist_fedavg")
real_dyn, sim_dyn = summary("fmnist_dynamicfl")
lines += ["", f"DynamicFL (scenarios/dynamicfl/fmnist_dynamicfl.yaml, 2 rounds, one worker) against FedAvg "
          f"(fmnist_fedavg.yaml): real training wait {real_dyn:.1f} s vs {real_avg:.1f} s = "
          f"**{real_dyn / real_avg:.2f}x**; simulated compute (FLOPs) {sim_dyn:.1f} s vs {sim_avg:.1f} s = "
          f"**{sim_dyn / sim_avg:.2f}x**."]
text = "\n".join(lines)
open(f"{out}/table.md", "w").write(text + "\n")
print(text)
EOF
