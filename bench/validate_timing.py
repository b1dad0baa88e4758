#!/usr/bin/env python3
"""Simulated time against a real emulated deployment (docs/guide/time-model.md, "How accurate
is the clock?").

  bench/validate_timing.sh [--random N --seed S] [--cores C] [--draw-only] [BUILD_DIR] [OUT_DIR]
  (the .sh is a thin wrapper around this script; python3 standard library only)

Configurations
  Without --random: the six fixed ones, FedAvg, FedSeq and peer-to-peer FedCross each at a
  slow and a fast network (fast = 10x the bandwidths): hospitals weak-1 / medium-1 / strong-1
  with CPU shares 0.25 / 0.5 / 1 (up 10/20/50 Mbit/s, down 20/50/100 Mbit/s, 20/10/5 ms on
  the slow network), server share 0.2 (100 Mbit/s up and down, 1 ms), cnn on 1x28x28, 640
  samples per hospital, batch 32, 1 epoch, 3 rounds.
  With --random N --seed S: N configurations drawn with random.Random(S): the algorithm
  uniformly among fedavg (parallel), fedseq (relay), fedcross (peer-to-peer) and fedasync
  (asynchronous); 3-5 hospitals; each hospital's CPU share from {0.2, 0.25, 0.4, 0.5, 0.75, 1},
  the whole set redrawn until the hospitals' shares plus the server's 0.2 fit the machine's
  cores (--cores, default os.cpu_count()); every uplink and downlink (hospitals and server)
  log-uniform in [5e6, 5e8] bit/s and every latency log-uniform in [0.001, 0.1] s; the model
  among cnn, lenet5 and mlp on 1x28x28 with 10 classes; each hospital's samples uniform in
  256..1024; batch 32, 1 epoch; 3 rounds (fedasync: 2 x hospitals mixes, a round of fedgrid's
  fedasync being one mix of the server). The draw depends only on S, N and the cores: the
  same three give the same configurations on any machine (--draw-only prints them as JSON,
  one per line, and exits; tests/validate_timing_draw_test.py checks them).
  fedasync configurations run only where fedgrid-emulate accepts --schedule fedasync (its
  --help lists it); elsewhere they are drawn (so the draw does not change) and reported as
  skipped.

For each configuration
  1. Calibration under the emulation's conditions (`fedgrid calibrate --cpu-share`, each
     process in a cgroup limited to its share of one CPU, CFS quota, 10 ms period, as the
     emulator; --seconds 8; profile devices here@SHARE): for fedavg and fedasync, whose
     hospitals compute at once, the configuration's distinct shares step at once; for fedseq
     and fedcross, where one hospital computes at a time, each share steps alone, one after
     another (here a process capped at 0.25 ran ~1.2x slower alone than beside two others:
     bench/quota_slowdown.sh). And an idle
     calibration (old mode: one process, median of repeats): profile device idle.
  2. bench/emulator's fedgrid-emulate runs the federation for real: one process per host, each
     limited by a cgroup to its share of a CPU, models sent as real bytes over loopback TCP,
     paced to the links' bandwidths and delayed by their latencies.
  3. fedgrid simulates the same platform three times (timing.compute: profile,
     timing.network: cm02), the arms:
     "matched": each hospital on profile_device here@SHARE, speed_factor 1 (the step time
     measured at its own share, beforehand: a prediction);
     "linear": profile_device idle, speed_factor = SHARE (the idle machine's step time divided
     by the share: how the bench charged before issue 34);
     "replay": each hospital's step time as the emulation realised it (its compute seconds over
     its steps), so what is left is the time model's own error (schedule, transfers, overlap)
     plus the jobs' spread around their host's mean: the model's error apart from predicting
     compute. matched minus replay is the error of predicting compute on this machine.
     The server keeps profile_device of a measured device and speed_factor 0.2 in all three
     (it trains nothing: its averaging is charged in FLOPs).
  The per-round table gives the arms against the emulation; "where the time goes" splits the
  matched arm's and the emulation's seconds into each host's compute and sends.

What the error is made of (the summary lines)
  - per arm: median and max abs error over all rounds of all configurations, ranking agreement
    (configurations ranked by mean round time, simulated against emulated, position by
    position), the abs error of each configuration's run time (its rounds summed: fedasync's
    rounds are compared in groups of as many mixes as there are hospitals: single mixes can be
    a few ms apart, where relative errors mean nothing), the abs error of each
    hospital's compute seconds summed over the run and of its send seconds, and the signed
    compute error by CPU share (the linear arm's shows how far a share's step time is from
    idle / share; the matched arm's what is left once measured);
  - drift: the first configuration's shares (and the idle profile) calibrated once more at the
    end, and how far each step time moved since the start: this machine's own noise floor.
  The last line keeps its form, for the matched arm:
    timing validation: N configurations, median abs error X%, max Y%, ranking agreement a/N

Exit codes: 0 done, or "timing validation: skipped (no writable cgroup cpu controller)" when
fedgrid-emulate exits 77 or calibrate exits 2 naming cgroups; 2 bad arguments or a missing
binary (the message names it); 1 a failed calibration, emulation or simulation (its log shown).
Needs root for the cgroups. Run it alone: builds or tests beside it take the CPU the shares
are measured with. Takes about 40 s a configuration here (2 cores).
"""
import argparse
import csv
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys

SHARES = (0.2, 0.25, 0.4, 0.5, 0.75, 1.0)
SERVER_SHARE = 0.2
ALGORITHMS = ("fedavg", "fedseq", "fedcross", "fedasync")
MODELS = ("cnn", "lenet5", "mlp")
INPUT, CLASSES, BATCH, EPOCHS, ROUNDS = "1x28x28", 10, 32, 1, 3
BPS_RANGE, LATENCY_RANGE, SAMPLES_RANGE, HOSPITALS_RANGE = (5e6, 5e8), (0.001, 0.1), (256, 1024), (3, 5)
CALIBRATE_SECONDS = 8


def share_name(share):
    return f"{share:g}"


def rounds_for(algorithm, hospitals):
    return 2 * hospitals if algorithm == "fedasync" else ROUNDS


def fixed_configurations():
    """The six configurations the bench has always run."""
    # name, CPU share, uplink bit/s, downlink bit/s, latency s (the slow network; fast = x10 bandwidth)
    hosts = [("weak", 0.25, 10e6, 20e6, 0.020), ("medium", 0.5, 20e6, 50e6, 0.010), ("strong", 1.0, 50e6, 100e6, 0.005)]
    server = (0.2, 100e6, 100e6, 0.001)
    configs = []
    for net, factor in (("slow", 1), ("fast", 10)):
        for algorithm in ("fedavg", "fedseq", "fedcross"):
            configs.append({
                "name": f"{algorithm}-{net}", "algorithm": algorithm, "arch": "cnn", "input": INPUT,
                "classes": CLASSES, "batch_size": BATCH, "epochs": EPOCHS, "rounds": ROUNDS,
                "hospitals": [{"name": f"{n}-1", "share": s, "samples": 640, "uplink_bps": up * factor,
                               "downlink_bps": down * factor, "latency_s": lat} for n, s, up, down, lat in hosts],
                "server": {"share": server[0], "uplink_bps": server[1] * factor, "downlink_bps": server[2] * factor,
                           "latency_s": server[3]},
            })
    return configs


def log_uniform(rng, lo, hi):
    # 4 significant digits (readable commands and files), kept inside [lo, hi]
    return min(hi, max(lo, float(f"{math.exp(rng.uniform(math.log(lo), math.log(hi))):.4g}")))


def draw_configurations(n, seed, cores):
    """n configurations from random.Random(seed); depends on nothing but n, seed and cores."""
    rng = random.Random(seed)
    configs = []
    for i in range(1, n + 1):
        algorithm = rng.choice(ALGORITHMS)
        count = rng.randint(*HOSPITALS_RANGE)
        while True:
            shares = [rng.choice(SHARES) for _ in range(count)]
            if sum(shares) + SERVER_SHARE <= cores + 1e-9:
                break
        arch = rng.choice(MODELS)
        hospitals = []
        for h, share in enumerate(shares, 1):
            hospitals.append({"name": f"h{h}", "share": share, "samples": rng.randint(*SAMPLES_RANGE),
                              "uplink_bps": log_uniform(rng, *BPS_RANGE), "downlink_bps": log_uniform(rng, *BPS_RANGE),
                              "latency_s": log_uniform(rng, *LATENCY_RANGE)})
        server = {"share": SERVER_SHARE, "uplink_bps": log_uniform(rng, *BPS_RANGE),
                  "downlink_bps": log_uniform(rng, *BPS_RANGE), "latency_s": log_uniform(rng, *LATENCY_RANGE)}
        configs.append({"name": f"r{i:02d}-{algorithm}", "algorithm": algorithm, "arch": arch, "input": INPUT,
                        "classes": CLASSES, "batch_size": BATCH, "epochs": EPOCHS,
                        "rounds": rounds_for(algorithm, count), "hospitals": hospitals, "server": server})
    return configs


def distinct_shares(config):
    return sorted({h["share"] for h in config["hospitals"]})


def summary_line(c):
    hs = c["hospitals"]
    mbit = lambda key: "/".join(f"{h[key] / 1e6:.3g}" for h in hs)
    ms = "/".join(f"{h['latency_s'] * 1e3:.3g}" for h in hs)
    s = c["server"]
    return (f"{c['name']}: {c['algorithm']}, {c['arch']} {c['input']}, {len(hs)} hospitals "
            f"(shares {'/'.join(share_name(h['share']) for h in hs)}, samples {'/'.join(str(h['samples']) for h in hs)}, "
            f"up {mbit('uplink_bps')} Mbit/s, down {mbit('downlink_bps')} Mbit/s, "
            f"latency {ms} ms), "
            f"server share {share_name(s['share'])} up {s['uplink_bps'] / 1e6:.3g} down {s['downlink_bps'] / 1e6:.3g} Mbit/s "
            f"latency {s['latency_s'] * 1e3:.3g} ms, {c['rounds']} rounds")


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def run_logged(cmd, log_path):
    with open(log_path, "w") as log:
        log.write(" ".join(cmd) + "\n")
        log.flush()
        return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode


def read_text(path):
    try:
        return open(path, errors="replace").read()
    except OSError:
        return ""


def calibrate(fedgrid, config, device, shares, out_csv, log_path):
    """One `fedgrid calibrate`: under cgroup shares (device NAME@SHARE) or, shares None, idle (device NAME)."""
    cmd = [fedgrid, "calibrate", "--models", f"{config['arch']}:{config['input']}:{config['classes']}",
           "--batch-sizes", str(config["batch_size"]), "--threads", "1", "--device-name", device]
    if shares is not None:
        cmd += ["--cpu-share", ",".join(share_name(s) for s in shares), "--seconds", str(CALIBRATE_SECONDS)]
    cmd += ["--out", out_csv]
    rc = run_logged(cmd, log_path)
    if rc == 2 and "cgroup" in read_text(log_path).lower():
        raise Skip(read_text(log_path))
    if rc != 0:
        raise Failure(f"{read_text(log_path)}validate_timing: calibrate ({device}) failed with exit {rc}")


# Schedules whose hospitals compute at the same time; in the others (fedseq's relay through the
# server, fedcross's hospital-to-hospital relay) one hospital computes at a time.
PARALLEL = ("fedavg", "fedasync")


def calibrate_matched(fedgrid, config, out_csv, log_prefix):
    """The matched arm's profile (devices here@SHARE), measured under the conditions the
    configuration's schedule creates: for a parallel schedule the shares step at once; for a
    relay each share steps alone, one after another (a capped process alone on the machine runs
    slower than beside others here: bench/quota_slowdown.sh)."""
    shares = distinct_shares(config)
    if config["algorithm"] in PARALLEL or len(shares) == 1:
        calibrate(fedgrid, config, "here", shares, out_csv, f"{log_prefix}.log")
        return
    comments, header, rows = [], None, []
    for share in shares:
        part = f"{out_csv}.{share_name(share)}"
        calibrate(fedgrid, config, "here", [share], part, f"{log_prefix}-{share_name(share)}.log")
        with open(part) as f:
            for line in f:
                if line.startswith("#"):
                    if not comments or line.startswith("# conditions:"):
                        comments.append(line)
                elif header is None:
                    header = line
                elif line != header:
                    rows.append(line)
        os.remove(part)
    with open(out_csv, "w") as f:
        f.writelines(comments + ["# (the shares above measured one after another)\n", header] + rows)


def profile_column(profile_csv, column):
    """device -> the column's seconds (train_step_s, eval_sample_s), from a profile CSV."""
    with open(profile_csv) as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {r["device"]: float(r[column]) for r in rows}


def step_times(profile_csv):
    return profile_column(profile_csv, "train_step_s")


def emulate(emulator, config, out_dir, log_path):
    cmd = [emulator, "--schedule", config["algorithm"], "--rounds", str(config["rounds"]), "--arch", config["arch"],
           "--input", config["input"], "--classes", str(config["classes"]), "--batch-size", str(config["batch_size"]),
           "--epochs", str(config["epochs"]), "--lr", "0.01", "--out", out_dir]
    for h in config["hospitals"]:
        cmd += ["--hospital", f"name={h['name']},share={share_name(h['share'])},samples={h['samples']},"
                              f"uplink_bps={h['uplink_bps']!r},downlink_bps={h['downlink_bps']!r},latency_s={h['latency_s']!r}"]
    s = config["server"]
    cmd += ["--server", f"share={share_name(s['share'])},uplink_bps={s['uplink_bps']!r},"
                        f"downlink_bps={s['downlink_bps']!r},latency_s={s['latency_s']!r}"]
    rc = run_logged(cmd, log_path)
    if rc == 77:
        raise Skip(read_text(log_path))
    if rc != 0:
        raise Failure(f"{read_text(log_path)}validate_timing: the emulation of {config['name']} failed (exit {rc})")


# replay-ns3: the replay with every transfer TCP packet by packet (timing.network: ns3), where the
# others run cm02, the rule the emulator's pacer follows: its send errors say what the pacer
# leaves out (handshakes, slow start, queues, losses).
ARMS = ("matched", "linear", "replay", "replay-ns3")


def replay_profile(config, cdir):
    """profile/replay.csv: each hospital's seconds per training step as the emulation realised
    them (its compute seconds over the run / the steps it trained; fedgrid charges a trailing
    batch pro rata, so a job counts samples / batch steps). Simulated on these, the round times
    differ from the emulation's only by the time model and by the jobs' spread around their
    host's mean: the model's own error, apart from predicting compute."""
    jobs, seconds = {}, {}
    with open(os.path.join(cdir, "emulated", "events.csv")) as f:
        for r in csv.DictReader(f):
            if r["kind"] == "compute":
                jobs[r["host"]] = jobs.get(r["host"], 0) + 1
                seconds[r["host"]] = seconds.get(r["host"], 0.0) + float(r["end_s"]) - float(r["start_s"])
    evals = profile_column(os.path.join(cdir, "profile", "here.csv"), "eval_sample_s")
    with open(os.path.join(cdir, "profile", "replay.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device", "arch", "width_multiplier", "input", "classes", "batch_size", "threads", "train_step_s",
                    "train_step_min_s", "eval_sample_s", "eval_sample_min_s", "repeats", "spread"])
        for h in config["hospitals"]:
            if h["name"] not in jobs:
                raise Failure(f"validate_timing: {config['name']}: the emulation recorded no compute of {h['name']}")
            steps = jobs[h["name"]] * config["epochs"] * h["samples"] / config["batch_size"]
            step = seconds[h["name"]] / steps
            ev = evals[f"here@{share_name(h['share'])}"]
            w.writerow([f"replay-{h['name']}", config["arch"], 1, config["input"], config["classes"], config["batch_size"],
                        1, f"{step:.9g}", f"{step:.9g}", f"{ev:.9g}", f"{ev:.9g}", jobs[h["name"]], 0])


def simulate(fedgrid, config, cdir, arm):
    """fedgrid run of the configuration; arm 'matched' (here@SHARE, factor 1), 'linear' (idle,
    factor SHARE), 'replay' (each hospital's realised step time, replay-NAME, factor 1) or
    'replay-ns3' (the replay under timing.network: ns3; the others run cm02)."""
    s = config["server"]
    tiers = os.path.join(cdir, "tiers.yaml")
    with open(tiers, "w") as f:
        f.write("tiers:\n"
                "  site: {speed_flops: 1e9, cores: 1, memory_gb: 1, uplink_bps: 1e8, downlink_bps: 1e8, latency_s: 0.01,"
                " power_idle_w: 1, power_max_w: 1}\n"
                f"  cloud: {{speed_flops: 1e9, cores: 1, memory_gb: 1, uplink_bps: {s['uplink_bps']!r},"
                f" downlink_bps: {s['downlink_bps']!r}, latency_s: {s['latency_s']!r}, power_idle_w: 1, power_max_w: 1}}\n")
    roster = os.path.join(cdir, f"roster-{arm}.csv")
    with open(roster, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "tier", "speed_flops", "uplink_bps", "downlink_bps", "latency_s", "profile_device",
                    "speed_factor", "samples"])
        for h in config["hospitals"]:
            device, factor = {"matched": (f"here@{share_name(h['share'])}", 1.0), "linear": ("idle", h["share"]),
                              "replay": (f"replay-{h['name']}", 1.0),
                              "replay-ns3": (f"replay-{h['name']}", 1.0)}[arm]
            w.writerow([h["name"], "site", "", repr(h["uplink_bps"]), repr(h["downlink_bps"]), repr(h["latency_s"]),
                        device, repr(factor), h["samples"]])
    server_device = "idle" if arm == "linear" else f"here@{share_name(distinct_shares(config)[0])}"
    scenario = os.path.join(cdir, f"{arm}.yaml")
    with open(scenario, "w") as f:
        f.write(f"""name: {config['name']}-{arm}
seed: 42
platform:
  tiers: {tiers}
  server: {{tier: cloud, profile_device: '{server_device}', speed_factor: {s['share']!r}}}
  roster: {roster}
data: {{dataset: synthetic, synthetic: {{height: 28, width: 28, classes: {config['classes']}}}}}
model: {{arch: {config['arch']}}}
training: {{mode: timing-only, batch_size: {config['batch_size']}, local_epochs: {config['epochs']}}}
algorithm: {{name: {config['algorithm']}}}
stop: {{rounds: {config['rounds']}}}
timing: {{compute: profile, profile: {os.path.join(cdir, 'profile')}, network: {'ns3' if arm == 'replay-ns3' else 'cm02'}}}
output: {{trace: false}}
""")
    log_path = os.path.join(cdir, f"{arm}.log")
    rc = run_logged([fedgrid, "run", "--overwrite", scenario, "--out", os.path.join(cdir, arm), "--log-level", "warn"], log_path)
    if rc != 0:
        raise Failure(f"{read_text(log_path)}validate_timing: the {arm} simulation of {config['name']} failed (exit {rc})")


def round_times(path, group=1):
    """Seconds between round ends, taking every `group`-th round's end: fedasync's rounds are
    single mixes, a few ms apart when two pushes arrive together (ill-conditioned relative
    errors, and an order that compute noise can swap), so its "round" here is as many mixes as
    there are hospitals (each hospital's model mixed once, on average)."""
    with open(path) as f:
        ends = [float(r["sim_time_s"]) for r in csv.DictReader(f)][group - 1::group]
    return [b - a for a, b in zip([0.0] + ends[:-1], ends)]


def busy(path, kind):
    """Seconds of `kind` activities per host, summed over the run."""
    total = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["kind"] == kind:
                total[r["host"]] = total.get(r["host"], 0.0) + float(r["end_s"]) - float(r["start_s"])
    return total


def pct(s, e):
    return (s - e) / e * 100 if e else float("nan")


def median_max(values):
    values = [v for v in values if not math.isnan(v)]
    return (statistics.median(values), max(values)) if values else (float("nan"), float("nan"))


def report(out, configs):
    """The per-round table, the breakdown and the summary lines; returns the last line's figures."""
    arms = ARMS
    errors = {a: [] for a in arms}
    totals = {a: [] for a in arms}
    means = {a: {} for a in arms + ("emulated",)}
    host_err = {(a, k): [] for a in arms for k in ("compute", "send")}
    by_share = {a: {} for a in arms}
    print(f"{'configuration':<16} {'round':>5}" + "".join(f" {a + ' s':>10} {'error':>8}" for a in arms) + f" {'emulated s':>11}")
    for c in configs:
        cdir = os.path.join(out, c["name"])
        group = len(c["hospitals"]) if c["algorithm"] == "fedasync" else 1
        emu = round_times(os.path.join(cdir, "emulated", "rounds.csv"), group)
        sims = {a: round_times(os.path.join(cdir, a, "rounds.csv"), group) for a in arms}
        for a in arms:
            if len(sims[a]) != len(emu):
                print(f"  note: {c['name']} {a}: {len(sims[a])} simulated rounds, {len(emu)} emulated; compared the first "
                      f"{min(len(sims[a]), len(emu))}")
        for r, e in enumerate(emu, 1):
            cells = "".join(f" {sims[a][r - 1]:>10.3f} {pct(sims[a][r - 1], e):>+7.1f}%" if r <= len(sims[a]) else f" {'':>10} {'':>8}"
                            for a in arms)
            print(f"{c['name']:<16} {r:>5}{cells} {e:>11.3f}")
        for a in arms:
            errors[a] += [abs(pct(s, e)) for s, e in zip(sims[a], emu)]
            n = min(len(sims[a]), len(emu))
            totals[a].append(abs(pct(sum(sims[a][:n]), sum(emu[:n]))))
            means[a][c["name"]] = statistics.mean(sims[a])
        means["emulated"][c["name"]] = statistics.mean(emu)
        shares = {h["name"]: h["share"] for h in c["hospitals"]}
        for kind in ("compute", "send"):
            e = busy(os.path.join(cdir, "emulated", "events.csv"), kind)
            for a in arms:
                s = busy(os.path.join(cdir, a, "events.csv"), kind)
                for host in sorted(set(s) | set(e)):
                    err = pct(s.get(host, 0.0), e.get(host, 0.0))
                    host_err[(a, kind)].append(abs(err))
                    if kind == "compute" and host in shares:
                        by_share[a].setdefault(shares[host], []).append(err)
    print()
    print("where the time goes (seconds summed over the run, simulated matched / emulated):")
    for c in configs:
        cdir = os.path.join(out, c["name"])
        parts = []
        for kind in ("compute", "send"):
            s = busy(os.path.join(cdir, "matched", "events.csv"), kind)
            e = busy(os.path.join(cdir, "emulated", "events.csv"), kind)
            for host in sorted(set(s) | set(e)):
                parts.append(f"{kind} {host} {s.get(host, 0):.2f}/{e.get(host, 0):.2f}")
        print(f"  {c['name']}: " + "; ".join(parts))
    names = [c["name"] for c in configs]
    by_emu = sorted(names, key=means["emulated"].get)
    print()
    print("ranking by mean round time, emulated:         ", " < ".join(by_emu))
    result = {}
    for a in arms:
        by_sim = sorted(names, key=means[a].get)
        agree = sum(x == y for x, y in zip(by_sim, by_emu))
        print(f"ranking by mean round time, simulated {a + ':':<8}", " < ".join(by_sim))
        result[a] = (*median_max(errors[a]), agree)
    print()
    for a in arms:
        med, mx, agree = result[a]
        tm, tx = median_max(totals[a])
        cm, cx = median_max(host_err[(a, "compute")])
        sm, sx = median_max(host_err[(a, "send")])
        shares = ", ".join(f"{share_name(k)} {statistics.median(v):+.1f}%" for k, v in sorted(by_share[a].items()))
        print(f"arm {a}: round time median abs error {med:.1f}%, max {mx:.1f}%, ranking agreement {agree}/{len(names)}; "
              f"run time (all rounds) median abs error {tm:.1f}% (max {tx:.1f}%); per-host compute s median abs error {cm:.1f}% (max {cx:.1f}%), send s {sm:.1f}% (max {sx:.1f}%); "
              f"compute error by share (median, signed): {shares}")
    return result["matched"]


def main():
    p = argparse.ArgumentParser(prog="validate_timing", description=__doc__.split("\n")[0])
    p.add_argument("build_dir", nargs="?", default="build")
    p.add_argument("out_dir", nargs="?", default="results/validate_timing")
    p.add_argument("--random", type=int, metavar="N", help="N drawn configurations instead of the fixed six")
    p.add_argument("--seed", type=int, metavar="S", help="the draw's seed (with --random)")
    p.add_argument("--cores", type=float, default=float(os.cpu_count() or 1),
                   help="CPUs the shares must fit in (default: os.cpu_count())")
    p.add_argument("--draw-only", action="store_true", help="print the configurations as JSON, one a line, and exit")
    args = p.parse_args()
    if (args.random is None) != (args.seed is None):
        p.error("--random N and --seed S go together")
    if args.random is not None and args.random < 1:
        p.error("--random N needs N >= 1")
    if args.random is not None and args.cores < HOSPITALS_RANGE[1] * min(SHARES) + SERVER_SHARE:
        p.error(f"--cores {args.cores:g} cannot hold {HOSPITALS_RANGE[1]} hospitals at the smallest share "
                f"{min(SHARES):g} plus the server's {SERVER_SHARE:g}")
    configs = fixed_configurations() if args.random is None else draw_configurations(args.random, args.seed, args.cores)
    if args.draw_only:
        for c in configs:
            print(json.dumps(c, sort_keys=True))
        return 0

    build = os.path.realpath(args.build_dir)
    out = os.path.abspath(args.out_dir)
    fedgrid = os.path.join(build, "fedgrid")
    emulator = os.path.join(build, "bench", "emulator", "fedgrid-emulate")
    for b in (fedgrid, emulator):
        if not os.access(b, os.X_OK):
            print(f"validate_timing: {b} not built", file=sys.stderr)
            return 2
    calibrate_help = subprocess.run([fedgrid, "calibrate", "--help"], capture_output=True, text=True).stdout
    if "--cpu-share" not in calibrate_help:
        print(f"validate_timing: {fedgrid} calibrate has no --cpu-share (rebuild fedgrid)", file=sys.stderr)
        return 2
    emulator_help = subprocess.run([emulator, "--help"], capture_output=True, text=True)
    has_fedasync = "fedasync" in emulator_help.stdout + emulator_help.stderr
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)

    ran, skipped = [], []
    try:
        for i, c in enumerate(configs, 1):
            print(f"[{i}/{len(configs)}] {summary_line(c)}", flush=True)
            if c["algorithm"] == "fedasync" and not has_fedasync:
                print(f"  skipped: {emulator} has no --schedule fedasync", flush=True)
                skipped.append(c["name"])
                continue
            cdir = os.path.join(out, c["name"])
            os.makedirs(os.path.join(cdir, "profile"))
            with open(os.path.join(cdir, "config.json"), "w") as f:
                json.dump(c, f, indent=1, sort_keys=True)
            calibrate_matched(fedgrid, c, os.path.join(cdir, "profile", "here.csv"), os.path.join(cdir, "calibrate-here"))
            calibrate(fedgrid, c, "idle", None, os.path.join(cdir, "profile", "idle.csv"),
                      os.path.join(cdir, "calibrate-idle.log"))
            steps = {**step_times(os.path.join(cdir, "profile", "here.csv")),
                     **step_times(os.path.join(cdir, "profile", "idle.csv"))}
            print("  step s: " + ", ".join(f"{d} {t * 1e3:.2f} ms" for d, t in sorted(steps.items())), flush=True)
            emulate(emulator, c, os.path.join(cdir, "emulated"), os.path.join(cdir, "emulate.log"))
            replay_profile(c, cdir)
            for arm in ARMS:
                simulate(fedgrid, c, cdir, arm)
            print(f"  ran {c['name']}", flush=True)
            ran.append(c)
        drift_lines = []
        if ran:
            # The machine's own noise floor: the first configuration's calibrations again, now.
            first = ran[0]
            ddir = os.path.join(out, "drift")
            os.makedirs(ddir)
            calibrate_matched(fedgrid, first, os.path.join(ddir, "here.csv"), os.path.join(ddir, "calibrate-here"))
            calibrate(fedgrid, first, "idle", None, os.path.join(ddir, "idle.csv"), os.path.join(ddir, "calibrate-idle.log"))
            before = {**step_times(os.path.join(out, first["name"], "profile", "here.csv")),
                      **step_times(os.path.join(out, first["name"], "profile", "idle.csv"))}
            after = {**step_times(os.path.join(ddir, "here.csv")), **step_times(os.path.join(ddir, "idle.csv"))}
            drift_lines = [f"{d} {before[d] * 1e3:.2f} -> {after[d] * 1e3:.2f} ms ({pct(after[d], before[d]):+.1f}%)"
                           for d in sorted(before) if d in after]
    except Skip as s:
        print(str(s), end="")
        print("timing validation: skipped (no writable cgroup cpu controller)")
        return 0
    except Failure as f:
        print(str(f), file=sys.stderr)
        return 1

    if not ran:
        print(f"timing validation: 0 configurations ran ({len(skipped)} skipped: {', '.join(skipped)})")
        return 0
    print()
    med, mx, agree = report(out, ran)
    if skipped:
        print(f"skipped (fedgrid-emulate has no --schedule fedasync): {', '.join(skipped)}")
    print(f"drift of the calibration ({ran[0]['name']}'s {ran[0]['arch']}, start -> end of the bench): "
          + "; ".join(drift_lines))
    print(f"timing validation: {len(ran)} configurations, median abs error {med:.1f}%, max {mx:.1f}%, "
          f"ranking agreement {agree}/{len(ran)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
