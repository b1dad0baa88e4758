#!/usr/bin/env bash
# training.executor: mpi (docs/guide/mpi-executor.md): the quickstart's wall time with the local
# executor against `mpirun -np 2` and `-np 3` on this machine, the bytes each job's outcome
# moves, and the speed-up to expect on k nodes, with its arithmetic.
#
#   bench/mpi_executor.sh [BUILD_DIR]      (default build)
#
# MPI_BENCH_ROUNDS (default 2) rounds of scenarios/quickstart.yaml, training.workers=1 and
# trace off, so that every rank is one worker and -np N on N free cores would be N workers.
# On a machine with fewer cores than ranks the ranks share them (--oversubscribe): the
# difference to the local run is then the cost of the messages, the replicated simulation and
# the ranks' start-up, not a speed-up. Every run must give the local bytes.
set -euo pipefail
build=$(realpath "${1:-build}")
fedgrid=$build/fedgrid
rounds=${MPI_BENCH_ROUNDS:-2}
cd "$(dirname "$0")/.."
[ -x "$fedgrid" ] || { echo "no fedgrid in $build" >&2; exit 2; }
[ -e "$build/libfedgrid_openmpi.so" ] || { echo "fedgrid was built without MPI" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
common=(run --overwrite scenarios/quickstart.yaml --set stop.rounds="$rounds" --set output.trace=false
        --set training.workers=1 --set training.device=cpu --log-level warn)

timed() {  # timed NAME COMMAND...: wall seconds of COMMAND into $work/NAME.s
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  if ! "$@" >"$work/$name.log" 2>&1; then echo "run $name failed:"; tail -20 "$work/$name.log"; exit 1; fi
  t1=$(date +%s.%N)
  python3 -c "print('%.1f' % ($t1 - $t0))" >"$work/$name.s"
}
perf() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/$1/perf.json" "$2"; }

timed local "$fedgrid" "${common[@]}" --out "$work/local"
for n in 2 3; do
  timed "np$n" mpirun --oversubscribe -np "$n" "$fedgrid" "${common[@]}" --set training.executor=mpi --out "$work/np$n"
  for f in rounds.csv hospitals.csv events.csv summary.json; do
    cmp -s "$work/local/$f" "$work/np$n/$f" || { echo "-np $n: $f differs from the local run's"; exit 1; }
  done
done

python3 - "$work" "$rounds" <<'EOF'
import json, sys
work, rounds = sys.argv[1], int(sys.argv[2])
perf = lambda run: json.load(open(f"{work}/{run}/perf.json"))
wall = lambda run: float(open(f"{work}/{run}.s").read())
local = perf("local")
print(f"machine: {open('/proc/cpuinfo').read().count('processor')} cores; quickstart, {rounds} rounds, 9 hospitals, training.workers=1")
print(f"local executor : {wall('local'):6.1f} s wall (training jobs {local['wall_training_jobs_s']:.1f} s, "
      f"evaluation {local['wall_evaluation_s']:.1f} s, set-up {local['wall_setup_s']:.1f} s)")
for n in (2, 3):
    p = perf(f"np{n}")
    print(f"mpirun -np {n}   : {wall(f'np{n}'):6.1f} s wall (rank 0: training jobs {p['wall_training_jobs_s']:.1f} s, "
          f"waiting on jobs {p['wall_training_wait_s']:.1f} s, evaluation {p['wall_evaluation_s']:.1f} s, "
          f"{int(p['training_jobs_on_other_ranks'])} of {9 * rounds} jobs and "
          f"{int(p['evaluation_parts_on_other_ranks'])} evaluation batches from other ranks); same bytes as local")

# A job's message (sim/jobs/mpi/job_exchange.cpp): a 45-byte header, the weights at 4 bytes a value,
# the mini-batch losses at 8; its rank sends it to each of the N - 1 others.
cnn_values = 582026                    # fedgrid list models: cnn, 1x28x28, 10 classes
batches = -(-int(60000 * 0.7 / 9) // 32)  # a quickstart hospital's mini-batches, on average
job_bytes = 45 + 4 * cnn_values + 8 * batches
print(f"bytes a job moves: 45 + 4 x {cnn_values} + 8 x ~{batches} = {job_bytes / 1e6:.2f} MB to each other rank")

# Speed-up on k nodes, one rank and one worker each (Amdahl): the training jobs and the
# evaluation's batches divide over the ranks; set-up and the simulation are replicated and do
# not; every rank receives the (k - 1)/k of a round's outcomes it did not compute, here over
# 10 Gb/s (1.25 GB/s). An evaluation batch's message (1,000 samples: losses, confusion,
# probabilities, labels) is ~50 kB, negligible beside the weights.
link = 1.25e9
jobs = 9 * rounds
job_s = local["wall_training_jobs_s"] / jobs
eval_s = local["wall_evaluation_s"] / rounds
rest_s = max((local["wall_simulation_s"] - local["wall_training_jobs_s"] - local["wall_evaluation_s"]) / rounds, 0)
def round_s(n_jobs, job, evaluation, repl, msg, k):
    return (n_jobs * job + evaluation) / k + repl + (k - 1) / k * n_jobs * msg / link
print(f"quickstart, measured: {job_s:.2f} s a job, {eval_s:.2f} s evaluation, {rest_s:.2f} s else a round")
one = round_s(9, job_s, eval_s, rest_s, job_bytes, 1)
for k in (2, 3, 9):
    many = round_s(9, job_s, eval_s, rest_s, job_bytes, k)
    print(f"  k={k}: a round (9 x {job_s:.2f} + {eval_s:.2f}) / {k} + {rest_s:.2f} + {(k - 1) / k:.2f} x 9 x "
          f"{job_bytes / 1e6:.2f} MB / 1.25 GB/s = {many:.2f} s against {one:.2f} s: speed-up {one / many:.2f}")

# ResNet-18 (CIFAR variant, fedgrid list models: 11,172,810 parameters + 9,600 batch-norm
# statistics = 44.7 MB; the issue's 11.7 M / 46.8 MB is the ImageNet head) for 100 hospitals of
# 500 CIFAR-10 samples, one epoch a round, the global test of 10,000 images each round. Job and
# evaluation times from this machine's measured training rate (perf.json training_flops_per_s,
# one worker); a forward pass is taken at the same rate; 5 s a round of simulation (a hundred
# hospitals' actors and transfers, replicated).
rate = local["training_flops_per_s"]
fwd = 1108.49e6
r_job = 3 * fwd * 500 / rate
r_eval = fwd * 10000 / rate
r_bytes = 45 + 4 * (11172810 + 9600) + 8 * 16
print(f"ResNet-18, 100 hospitals, at {rate / 1e9:.1f} GFLOP/s a worker: a job 3 x {fwd / 1e9:.3f} GFLOP x 500 = "
      f"{r_job:.0f} s, the test {fwd / 1e9:.3f} GFLOP x 10,000 = {r_eval:.0f} s, {r_bytes / 1e6:.1f} MB a job")
r_one = round_s(100, r_job, r_eval, 5.0, r_bytes, 1)
for k in (4, 16, 100):
    many = round_s(100, r_job, r_eval, 5.0, r_bytes, k)
    print(f"  k={k}: a round (100 x {r_job:.0f} + {r_eval:.0f}) / {k} + 5 + {(k - 1) / k:.2f} x 100 x "
          f"{r_bytes / 1e6:.1f} MB / 1.25 GB/s = {many:.0f} s against {r_one:.0f} s: speed-up {r_one / many:.1f}")
EOF
