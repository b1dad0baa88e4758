#!/usr/bin/python3
"""analysis/compression_study.py's page table (summary), verdicts and the break-even's check of a
plan against its grid (grid_disagrees), against numbers worked out by hand, on a protocol folder this test writes (MODE/arm=A/seed=S with args.txt, summary.json and
rounds.csv of made-up runs; MODE/stats from analysis/seed_stats.py, run for real).

The arms, 100 rounds each (rounds.csv: rounds 1 and 100; the time to 0.80 is round 100's):
  none      final accuracy 0.80, 0.82, 0.84; 2 s a round: 200 s to 0.80 at every seed
  topk1pct  0.79, 0.82, 0.82 (none - arm: 0.01, 0, 0.02); seed 1 never reaches 0.80, seeds 2, 3
            at 1 and 1.5 s a round: 100 s and 150 s (none - arm: 100, 50)
  sign      0.70, 0.71, 0.73 (none - arm: 0.10, 0.11, 0.11); never reaches 0.80
Student's t at 2 df (3 seeds) and 1 df (2 pairs) in closed form, as tests/test_seed_stats.py:
  t(0.975, 2) = 4.302652729911275, t(0.975, 1) = 12.706204736174707
  none:  mean 82.00, sd 2 points: half-width 4.3027 x 2 / sqrt 3 = 4.97
  topk:  mean 81.00, sd sqrt 3: half-width 4.30; none - arm mean 1.00, sd 1: [1 - 2.48, 1 + 2.48]; t = sqrt 3, p = 1 - t / sqrt(2 + t^2) = 0.225
         time none - arm mean 75, sd 35.36: half-width 12.706 x 35.36 / sqrt 2 = 317.7; t = 3,
         p = 1 - (2 / pi) atan 3 = 0.205; its own time 125 +- 317.7
  sign:  mean 71.33, sd 1.528: half-width 3.79; none - arm mean 10.667, sd 0.5774: [10.667 - 1.434, 10.667 + 1.434]; t = 32, p = 1 - 32 / sqrt 1026
         = 0.000975 (bold: p < 0.05)
usage: tests/test_compression_study.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
STUDY = os.path.join(SOURCE, "analysis", "compression_study.py")
SEED_STATS = os.path.join(SOURCE, "analysis", "seed_stats.py")

# arm -> (codec --set words, {seed: (final accuracy, simulated seconds a round)}, bytes_up, encoded)
ARMS = {
    "none": ("method=none", {1: (0.80, 2.0), 2: (0.82, 2.0), 3: (0.84, 2.0)}, 4_000_000, None),
    "topk1pct": ("method=topk fraction=0.01", {1: (0.79, 1.0), 2: (0.82, 1.0), 3: (0.82, 1.5)}, 1_000_000, 50),
    "sign": ("method=sign bucket=0", {1: (0.70, 1.0), 2: (0.71, 1.0), 3: (0.73, 1.0)}, 2_000_000, 125),
}
ROUNDS = 100


def write_run(folder, sets, seed, accuracy, seconds, bytes_up, encoded):
    os.makedirs(folder)
    words = " ".join(f"--set compression.uplink.{s}" for s in sets.split())
    with open(os.path.join(folder, "args.txt"), "w") as f:
        f.write(f"scenarios/compression/long_protocol.yaml --set seed={seed} --set training.workers=1 {words}\n")
    summary = {"scenario": "hand", "algorithm": "fedavg", "seed": seed, "rounds": ROUNDS,
               "final_accuracy": accuracy, "bytes_up": bytes_up}
    if encoded:
        summary["compression"] = {"bytes_raw": 4000, "bytes_encoded": encoded}
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(summary, f)
    with open(os.path.join(folder, "rounds.csv"), "w") as f:
        f.write("round,sim_time_s,accuracy\n")
        f.write(f"1,{seconds},0.5\n{ROUNDS},{seconds * ROUNDS},{accuracy}\n")


def run(script, *args):
    result = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


class CompressionStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.mode = os.path.join(cls.tmp.name, "long")
        runs = []
        for arm, (sets, seeds, bytes_up, encoded) in ARMS.items():
            for seed, (accuracy, seconds) in seeds.items():
                runs.append(os.path.join(cls.mode, f"arm={arm}", f"seed={seed}"))
                write_run(runs[-1], sets, seed, accuracy, seconds, bytes_up, encoded)
        for metric in ("final_accuracy", "time_to:accuracy>=0.80"):
            rc, _, err = run(SEED_STATS, *runs, "--group", "arm", "--reference", "none", "--metric", metric,
                             "--out", os.path.join(cls.mode, "stats"))
            assert rc == 0, err

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def rows(self, command, *args):
        rc, out, err = run(STUDY, command, self.mode, *args)
        self.assertEqual(rc, 0, err)
        return {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines() if line.startswith("| ")}

    def test_summary_rows(self):
        rows = self.rows("summary", "--target", "0.80")
        self.assertEqual(rows["none"], "| none | 1 | 4.0 | 82.00 ± 4.97 |  | 200.0 ± 0.0 | 3/3 |  |")
        self.assertEqual(rows["topk1pct"], "| topk1pct | 80.0 | 1.0 | 81.00 ± 4.30 | +1.00 [-1.48, +3.48], p 0.23 "
                                           "| 125.0 ± 317.7 | 2/3 | +75.0 [-242.7, +392.7], p 0.2 |")
        self.assertEqual(rows["sign"], "| sign | 32.0 | 2.0 | 71.33 ± 3.79 | **+10.67 [+9.23, +12.10], p 0.00098** "
                                       "| – | 0/3 | – |")

    def test_verdicts_name_their_horizon(self):
        rows = self.rows("verdicts", "--target", "0.80")
        self.assertIn("**holds at round 100**: within noise of none (losses above 3.48 points ruled out)",
                      rows["topk1pct"])
        self.assertIn("**does not hold at round 100**: 10.67 points behind none", rows["sign"])

    def test_missing_stats_are_an_input_error(self):
        rc, out, err = run(STUDY, "summary", self.mode, "--target", "0.85")
        self.assertEqual(rc, 2)
        self.assertIn("no seed_stats table for time_to:accuracy>=0.85", err)
        self.assertNotIn("Traceback", err)


class GridAgainstPlan(unittest.TestCase):
    """A break-even plan assumes one crossing and checks the ends; the grid can see more (the
    downloads' contention shrinks a codec's lead over the hospitals' axis, the uploads' grows it
    again). grid_disagrees names the grid's verdicts where they contradict the plan."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(SOURCE, "analysis"))
        import compression_study
        cls.disagrees = staticmethod(compression_study.grid_disagrees)

    KEY = "platform.hospitals[0].count"

    def test_a_dip_inside_a_range_that_holds_at_both_ends(self):
        plan = {"verdict": "holds_everywhere", "answer": None, "direction": "largest", "key": self.KEY}
        grid = [(3, True), (300, True), (500, False), (700, False), (1000, True)]
        self.assertEqual(self.disagrees(plan, grid), "pays at 3-300; not at 500-700; pays at 1000")

    def test_a_grid_that_agrees_with_the_crossing(self):
        plan = {"verdict": "answer", "answer": 400.0, "direction": "largest", "key": self.KEY}
        self.assertIsNone(self.disagrees(plan, [(3, True), (300, True), (500, False), (1000, False)]))
        self.assertEqual(self.disagrees(plan, [(3, True), (300, False), (500, False)]), "pays at 3; not at 300-500")
        above = {"verdict": "answer", "answer": 2e7, "direction": "smallest", "key": "x_bps"}
        self.assertIsNone(self.disagrees(above, [(1e6, False), (1e8, True)]))
        self.assertEqual(self.disagrees(above, [(1e6, True), (1e8, True)]), "pays at 1 Mbit/s-100 Mbit/s")

    def test_nowhere(self):
        plan = {"verdict": "holds_nowhere", "answer": None, "direction": "largest", "key": self.KEY}
        self.assertIsNone(self.disagrees(plan, [(3, False), (1000, False)]))
        self.assertEqual(self.disagrees(plan, [(3, False), (10, True)]), "not at 3; pays at 10")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
