#!/usr/bin/env python3
"""bench/validate_timing.py's draw of random configurations (--draw-only; no binaries run).

  python3 tests/validate_timing_draw_test.py [bench/validate_timing.py]

Checks: the same seed, N and cores give byte-identical draws; --random 12 gives 12
configurations; every one holds the constraints the bench's header states (algorithms,
3-5 hospitals, shares from the set with the server's 0.2 within 2 cores, links and latencies
in their ranges, models, samples, batch, epochs, rounds); another seed gives other draws; the
fixed six come out without --random. Exit 1 with every failed check listed.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "bench", "validate_timing.py")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def draw(*args):
    r = subprocess.run([sys.executable, SCRIPT, "--draw-only", *args], capture_output=True, text=True)
    check(r.returncode == 0, f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


first = draw("--random", "12", "--seed", "1", "--cores", "2")
second = draw("--random", "12", "--seed", "1", "--cores", "2")
check(first == second, "seed 1 drew differently twice")
lines = first.splitlines()
check(len(lines) == 12, f"--random 12 gave {len(lines)} configurations")
configs = []
for n, line in enumerate(lines, 1):
    try:
        configs.append(json.loads(line))
    except ValueError as e:
        check(False, f"line {n} is not JSON: {e}")

SHARES = {0.2, 0.25, 0.4, 0.5, 0.75, 1.0}
ALGORITHMS = {"fedavg", "fedseq", "fedcross", "fedasync"}
MODELS = {"cnn", "lenet5", "mlp"}


def in_range(x, lo, hi):
    return isinstance(x, (int, float)) and lo <= x <= hi


names = set()
for c in configs:
    name = c.get("name", "?")
    names.add(name)
    hs = c.get("hospitals", [])
    check(c.get("algorithm") in ALGORITHMS, f"{name}: algorithm {c.get('algorithm')}")
    check(c.get("arch") in MODELS, f"{name}: model {c.get('arch')}")
    check(c.get("input") == "1x28x28" and c.get("classes") == 10, f"{name}: input {c.get('input')} {c.get('classes')}")
    check(c.get("batch_size") == 32 and c.get("epochs") == 1, f"{name}: batch {c.get('batch_size')} epochs {c.get('epochs')}")
    check(3 <= len(hs) <= 5, f"{name}: {len(hs)} hospitals")
    want_rounds = 2 * len(hs) if c.get("algorithm") == "fedasync" else 3
    check(c.get("rounds") == want_rounds, f"{name}: {c.get('rounds')} rounds, want {want_rounds}")
    shares = [h.get("share") for h in hs]
    check(all(s in SHARES for s in shares), f"{name}: shares {shares}")
    check(sum(shares) + 0.2 <= 2 + 1e-9, f"{name}: shares {shares} plus the server's 0.2 exceed 2 cores")
    check(len({h.get("name") for h in hs}) == len(hs), f"{name}: hospital names repeat")
    s = c.get("server", {})
    check(s.get("share") == 0.2, f"{name}: server share {s.get('share')}")
    for who, host in [(h.get("name"), h) for h in hs] + [("server", s)]:
        for key in ("uplink_bps", "downlink_bps"):
            check(in_range(host.get(key), 5e6, 5e8), f"{name} {who}: {key} {host.get(key)}")
        check(in_range(host.get("latency_s"), 0.001, 0.1), f"{name} {who}: latency_s {host.get('latency_s')}")
    for h in hs:
        check(isinstance(h.get("samples"), int) and 256 <= h["samples"] <= 1024, f"{name} {h.get('name')}: samples {h.get('samples')}")
check(len(names) == len(configs), "configuration names repeat")
# Over 12 draws, the ranges are used, not a constant (a draw stuck on one value fails here).
check(len({c.get("algorithm") for c in configs}) >= 3, "12 draws used fewer than 3 algorithms")
check(len({len(c.get("hospitals", [])) for c in configs}) >= 2, "12 draws all have the same hospital count")
check(len({h.get("uplink_bps") for c in configs for h in c.get("hospitals", [])}) > 10, "uplinks barely vary")

other = draw("--random", "12", "--seed", "2", "--cores", "2")
check(other.strip() and other != first, "seed 2 drew what seed 1 drew")

fixed = [json.loads(l) for l in draw().splitlines() if l.strip()]
check([c.get("name") for c in fixed] == [f"{a}-{n}" for n in ("slow", "fast") for a in ("fedavg", "fedseq", "fedcross")],
      f"fixed configurations: {[c.get('name') for c in fixed]}")
check(all([h["share"] for h in c["hospitals"]] == [0.25, 0.5, 1.0] and c["rounds"] == 3 and c["arch"] == "cnn"
          and all(h["samples"] == 640 for h in c["hospitals"]) for c in fixed), "fixed configurations changed")

if failures:
    print("validate_timing draw: FAILED", *failures, sep="\n  ")
    sys.exit(1)
print(f"validate_timing draw: {len(configs)} configurations, all checks passed")
