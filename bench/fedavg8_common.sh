# Sourced by the benchmarks that compare fedgrid with other programs doing the same training:
# the one fedgrid run they all time (8 medium hospitals, cnn, Fashion-MNIST iid, batch 32,
# 1 epoch, 2 workers x 1 torch thread, evaluation after the last round only), and a clock.

seconds() { /usr/bin/python3 -c 'import time; print(time.time())'; }

# run_fedgrid_fedavg8 BUILD_DIR OUT_DIR ROUNDS
run_fedgrid_fedavg8() {
  "$1/fedgrid" run scenarios/quickstart.yaml --out "$2" --log-level warn \
    --set stop.rounds="$3" --set output.eval_every="$3" --set output.trace=false \
    --set data.partition.scheme=iid --set 'platform.hospitals=[{count: 8, tier: medium}]' \
    --set training.workers=2 --set training.threads_per_worker=1 >/dev/null
}

