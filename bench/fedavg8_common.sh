# Sourced by the benchmarks that compare fedgrid with other programs doing the same training:
# the one fedgrid run they all time (8 medium hospitals, cnn, Fashion-MNIST iid, batch 32,
# 1 epoch, 2 workers x 1 torch thread, evaluation after the last round only), and a clock.

seconds() { /usr/bin/python3 -c 'import time; print(time.time())'; }

# run_fedgrid_fedavg8 BUILD_DIR OUT_DIR ROUNDS [--set KEY=VALUE ...]   (later sets win)
run_fedgrid_fedavg8() {
  "$1/fedgrid" run --overwrite scenarios/quickstart.yaml --out "$2" --log-level warn \
    --set stop.rounds="$3" --set output.eval_every="$3" --set output.trace=false \
    --set data.partition.scheme=iid --set 'platform.hospitals=[{count: 8, tier: medium}]' \
    --set training.workers=2 --set training.threads_per_worker=1 "${@:4}" >/dev/null
}


# compare_with_fedgrid FEDGRID_OUT T0 T1 T2 LABEL OTHER_LINE RATIO
# Prints both wall times (fedgrid ran T0..T1, the other program T1..T2) and final accuracies
# (fedgrid's from rounds.csv, the other's from "accuracy X" in its output line), then RATIO:
# "fedgrid/other" (overhead) or "other/fedgrid" (speed-up).
compare_with_fedgrid() {
  /usr/bin/python3 - "$@" <<'PY'
import csv, sys
out, t0, t1, t2, label, other, ratio = sys.argv[1], *map(float, sys.argv[2:5]), *sys.argv[5:8]
fed_acc = float(list(csv.DictReader(open(f"{out}/rounds.csv")))[-1]["accuracy"])
other_acc = float(other.split("accuracy ")[1].split(",")[0])
fed, other_wall = t1 - t0, t2 - t1
head = f"fedgrid {fed:.2f} s (accuracy {fed_acc:.4f}), {label} {other_wall:.2f} s (accuracy {other_acc:.4f}): "
if ratio == "fedgrid/other":
    print(head + f"fedgrid/{label.split()[0]} = {fed / other_wall:.3f}")
else:
    print(head + f"speed-up {label}/fedgrid = {other_wall / fed:.2f}x")
PY
}
