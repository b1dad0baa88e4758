#!/usr/bin/python3
"""analysis/seed_stats.py against numbers worked out by hand, on run folders this test writes
(summary.json and rounds.csv of made-up runs): group means, standard deviations and t
intervals, paired differences, their intervals and paired t-test p-values, verdicts, a seed
missing from one group, a single seed, and bad input (exit 2, a message, no traceback).

Expected values are literals. Student's t has closed forms at 1 and 2 degrees of freedom,
which give them independently of scipy:
  quantile q, 1 df: tan(pi (q - 1/2));   2 df: (2q - 1) sqrt(2 / (4q (1 - q)))
  two-sided p of t, 1 df: 1 - (2/pi) atan(|t|);   2 df: 1 - |t| / sqrt(2 + t^2)
usage: tests/test_seed_stats.py SOURCE_DIR
"""
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SCRIPT = os.path.join(SOURCE, "analysis", "seed_stats.py")
T_975_2DF = 4.302652729911275   # (2 * 0.975 - 1) * sqrt(2 / (4 * 0.975 * 0.025)) = 4.30265272975 (scipy's)
T_975_1DF = 12.706204736174707  # tan(0.475 pi)

# Final accuracy per group and seed. A is the reference.
RUNS = {
    "A": {1: 0.80, 2: 0.82, 3: 0.84},
    "B": {1: 0.78, 2: 0.81, 3: 0.80},  # A - B = 0.02, 0.01, 0.04: within noise
    "C": {1: 0.70, 2: 0.71, 3: 0.73},  # A - C = 0.10, 0.11, 0.11: A better
    "M": {1: 0.78, 2: 0.81},           # seed 3 missing: pairs on seeds 1, 2 only
    "S": {1: 0.75},                    # one seed: no interval
}


def write_run(folder, algorithm, seed, accuracy, **extra):
    os.makedirs(folder)
    summary = {"scenario": "hand", "algorithm": algorithm, "seed": seed, "final_accuracy": accuracy,
               "time_to_target_s": None, **extra}
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(summary, f)
    # acc_weak at the last round is the accuracy minus 0.1: its means follow the final ones.
    weak = accuracy - 0.1 if isinstance(accuracy, float) else ""
    with open(os.path.join(folder, "rounds.csv"), "w") as f:
        f.write("round,sim_time_s,accuracy,bytes_up,bytes_down,acc_weak\n")
        f.write(f"1,1.0,0.5,10,10,0.4\n2,2.0,{accuracy},10,10,{weak}\n")


def run_stats(*args):
    result = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


class SeedStats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.runs, cls.tables = [], {}
        for group, seeds in RUNS.items():
            for seed, accuracy in seeds.items():
                cls.runs.append(os.path.join(cls.tmp.name, f"{group}-{seed}"))
                write_run(cls.runs[-1], group, seed, accuracy)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def table(self, metric="final_accuracy", *args):
        """The script's CSV rows by group and its stdout, for metric and args (run once each:
        the script takes a second to import scipy)."""
        if (metric, args) not in self.tables:
            out = tempfile.mkdtemp(dir=self.tmp.name)
            rc, stdout, stderr = run_stats(*self.runs, "--reference", "A", "--metric", metric, "--out", out, *args)
            self.assertEqual(rc, 0, stderr)
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", metric).strip("_")  # the script's file name
            with open(os.path.join(out, f"seed_stats_{stem}.csv")) as f:
                self.tables[(metric, args)] = {row["algorithm"]: row for row in csv.DictReader(f)}, stdout
        return self.tables[(metric, args)]

    def assertNumber(self, text, expected):
        self.assertTrue(math.isclose(float(text), expected, rel_tol=1e-9, abs_tol=1e-12), f"{text} != {expected}")

    def test_groups(self):
        rows, _ = self.table()
        a, b = rows["A"], rows["B"]
        self.assertEqual(a["n"], "3")
        self.assertNumber(a["mean"], 0.82)
        self.assertNumber(a["sd"], 0.02)  # sqrt((0.02^2 + 0 + 0.02^2) / 2)
        half = T_975_2DF * 0.02 / math.sqrt(3)  # 0.049682754237
        self.assertNumber(a["ci_low"], 0.82 - half)
        self.assertNumber(a["ci_high"], 0.82 + half)
        # B: mean 2.39 / 3, deviations -1/60, 1/75, 1/300: sd sqrt(7 / 30000)
        self.assertNumber(b["mean"], 0.7966666666666667)
        self.assertNumber(b["sd"], 0.015275252316519467)
        self.assertNumber(b["ci_high"], 0.7966666666666667 + T_975_2DF * 0.015275252316519467 / math.sqrt(3))

    def test_paired_within_noise(self):
        rows, _ = self.table()
        b = rows["B"]
        # differences 0.02, 0.01, 0.04: mean 0.07 / 3, sd sqrt(7 / 30000), t = sqrt(7)
        self.assertEqual(b["pairs"], "3")
        self.assertEqual(b["dropped"], "0")
        self.assertNumber(b["diff_mean"], 0.023333333333333334)
        self.assertNumber(b["diff_sd"], 0.015275252316519467)
        self.assertNumber(b["diff_ci_low"], -0.014612497004061319)
        self.assertNumber(b["diff_ci_high"], 0.061279163670727985)
        self.assertNumber(b["p_value"], 0.11808289631180314)  # 1 - sqrt(7) / 3
        self.assertEqual(b["verdict"], "within noise")

    def test_paired_better_and_direction(self):
        rows, _ = self.table()
        c = rows["C"]
        # differences 0.10, 0.11, 0.11: mean 0.32 / 3, standard error 1/300, t = 32
        self.assertNumber(c["diff_mean"], 0.10666666666666667)
        self.assertNumber(c["diff_ci_low"], 0.09232449090029575)
        self.assertNumber(c["diff_ci_high"], 0.12100884243303758)
        self.assertNumber(c["p_value"], 0.0009751343128597697)  # 1 - 32 / sqrt(1026)
        self.assertEqual(c["verdict"], "better")
        rows, _ = self.table("final_accuracy", "--lower-is-better")
        self.assertEqual(rows["C"]["verdict"], "worse")

    def test_missing_seed(self):
        rows, stdout = self.table()
        m = rows["M"]
        # seeds 1 and 2 pair: differences 0.02, 0.01, mean 0.015, standard error 0.005, t = 3
        self.assertEqual((m["n"], m["pairs"], m["dropped"]), ("2", "2", "1"))
        self.assertNumber(m["diff_ci_low"], 0.015 - T_975_1DF * 0.005)
        self.assertNumber(m["diff_ci_high"], 0.015 + T_975_1DF * 0.005)
        self.assertNumber(m["p_value"], 0.20483276469913345)  # 1 - (2 / pi) atan(3)
        self.assertEqual(m["verdict"], "within noise")
        self.assertIn("A vs M: 1 unpaired run(s) dropped, only in A: seed 3", stdout)

    def test_single_seed(self):
        rows, stdout = self.table()
        s = rows["S"]
        self.assertEqual(s["n"], "1")
        self.assertNumber(s["mean"], 0.75)
        self.assertEqual((s["sd"], s["ci_low"], s["ci_high"]), ("", "", ""))
        self.assertEqual((s["pairs"], s["diff_ci_low"], s["p_value"]), ("1", "", ""))
        self.assertEqual(s["verdict"], "too few pairs")
        self.assertIn("S: fewer than 2 seeds (1), no confidence interval", stdout)
        self.assertIn("| S | 1 | 75.00 | - | +5.00 | - | 1 | - | too few pairs |", stdout)

    def test_markdown(self):
        _, stdout = self.table()
        self.assertIn("| A | 3 | 82.00 ± 4.97 | 2.00 | (reference) |", stdout)
        self.assertIn("| B | 3 | 79.67 ± 3.79 | 1.53 | +2.33 | [-1.46, +6.13] | 3 | 0.118 | within noise |", stdout)

    def test_rounds_column_and_empty_metric(self):
        rows, _ = self.table("rounds:acc_weak")
        self.assertNumber(rows["A"]["mean"], 0.72)
        self.assertEqual(self.table("acc_weak")[0]["C"]["verdict"], "better")  # not in summary.json
        # time_to_target_s is null everywhere: every run left out, said so, no number made up.
        rows, stdout = self.table("time_to_target_s")
        self.assertEqual((rows["A"]["n"], rows["A"]["mean"]), ("0", ""))
        self.assertIn("time_to_target_s empty in 12 run(s)", stdout)

    def test_time_to_a_value(self):
        # Every rounds.csv: accuracy 0.5 at 1.0 s, then the run's final accuracy at 2.0 s.
        rows, stdout = self.table("time_to:accuracy>=0.5")
        self.assertEqual((rows["A"]["n"], rows["C"]["n"]), ("3", "3"))
        self.assertNumber(rows["A"]["mean"], 1.0)
        # 0.79: A reaches it at 2.0 s every seed; B not at seed 1 (0.78), C never, M not at
        # seed 1, S (0.75) never: 6 runs left out, said so; the rest pair on the seeds both have.
        rows, stdout = self.table("time_to:accuracy>=0.79")
        self.assertNumber(rows["A"]["mean"], 2.0)
        self.assertEqual((rows["B"]["n"], rows["B"]["pairs"], rows["C"]["n"]), ("2", "2", "0"))
        self.assertNumber(rows["B"]["diff_mean"], 0.0)
        self.assertIn("time_to:accuracy>=0.79 empty in 6 run(s)", stdout)
        self.assertIn("simulated time to accuracy >= 0.79 (s)", stdout)
        self.assertIn("lower is better", stdout)

    def test_sweep_with_folds(self):
        """A sweep folder as fedgrid sweep writes it (sweep.json, sweep.csv, a folder per cell)
        with a fold axis: runs pair on (seed, fold); one failed cell is left out, said so."""
        sweep = os.path.join(self.tmp.name, "sweep")
        os.makedirs(sweep)
        axes = [{"name": "algorithm", "key": "algorithm.name", "values": ["X", "Y"]},
                {"name": "fold", "key": "data.fold", "values": ["0", "1"]}]
        with open(os.path.join(sweep, "sweep.json"), "w") as f:
            json.dump({"name": "folds", "base": "b.yaml", "axes": axes, "seeds": [1, 2]}, f)
        # X - Y per (seed, fold): 0.01, 0.03, 0.02 ((1, 1) failed for Y): mean 0.02, sd 0.01
        accuracy = {("X", 1, 0): 0.61, ("X", 1, 1): 0.63, ("X", 2, 0): 0.62, ("X", 2, 1): 0.64,
                    ("Y", 1, 0): 0.60, ("Y", 2, 0): 0.59, ("Y", 2, 1): 0.62}
        lines = ["cell,algorithm,fold,seed,status,error,dir,final_accuracy,sim_time_s,time_to_target_s,bytes_total"]
        for i, (algorithm, fold, seed) in enumerate((a, f, s) for a in "XY" for f in (0, 1) for s in (1, 2)):
            folder = f"algorithm={algorithm},fold={fold},seed={seed}"
            value = accuracy.get((algorithm, seed, fold))
            if value is None:
                lines.append(f"{i},{algorithm},{fold},{seed},failed,crashed (exit code 1),\"{folder}\",,,,")
                continue
            write_run(os.path.join(sweep, folder), algorithm, seed, value)
            lines.append(f"{i},{algorithm},{fold},{seed},ok,,\"{folder}\",{value},2.0,,20")
        with open(os.path.join(sweep, "sweep.csv"), "w") as f:
            f.write("\n".join(lines) + "\n")
        rc, stdout, stderr = run_stats(sweep)
        self.assertEqual(rc, 0, stderr)
        with open(os.path.join(sweep, "stats", "seed_stats_final_accuracy.csv")) as f:
            y = {row["algorithm"]: row for row in csv.DictReader(f)}["Y"]
        self.assertEqual((y["n"], y["pairs"], y["dropped"]), ("3", "3", "1"))
        self.assertNumber(y["diff_mean"], 0.02)
        self.assertNumber(y["diff_sd"], 0.01)
        self.assertNumber(y["diff_ci_high"], 0.02 + T_975_2DF * 0.01 / math.sqrt(3))
        self.assertNumber(y["p_value"], 0.07417990022744858)  # t = 2 sqrt(3): 1 - 2 sqrt(3) / sqrt(14)
        self.assertIn("paired by seed and fold", stdout)
        self.assertIn("left out: failed crashed (exit code 1)", stdout)
        self.assertIn("only in X: seed 1 fold 1", stdout)

    def test_run_paths_as_axes(self):
        """Run folders laid out as bench/reproduce.sh writes them (method=M/fold=F/seed=S): the
        path's parts group (--group method: both methods are one algorithm) and pair on fold."""
        root = os.path.join(self.tmp.name, "reproduce")
        # P - Q per (fold, seed): 0.03, 0.01, 0.02: mean 0.02, sd 0.01 (as the sweep above)
        accuracy = {("P", 1, 1): 0.63, ("P", 2, 1): 0.64, ("P", 3, 1): 0.65,
                    ("Q", 1, 1): 0.60, ("Q", 2, 1): 0.63, ("Q", 3, 1): 0.63}
        runs = []
        for (method, fold, seed), value in accuracy.items():
            runs.append(os.path.join(root, f"method={method}", f"fold={fold}", f"seed={seed}"))
            write_run(runs[-1], "same", seed, value)
        rc, stdout, stderr = run_stats(*runs, "--group", "method", "--out", os.path.join(root, "stats"))
        self.assertEqual(rc, 0, stderr)
        with open(os.path.join(root, "stats", "seed_stats_final_accuracy.csv")) as f:
            q = {row["method"]: row for row in csv.DictReader(f)}["Q"]
        self.assertEqual((q["n"], q["pairs"]), ("3", "3"))
        self.assertNumber(q["diff_mean"], 0.02)
        self.assertNumber(q["p_value"], 0.07417990022744858)
        self.assertIn("paired by seed and fold", stdout)
        # analysis/plot_seeds.py draws the same runs, one curve per method; a run whose path
        # names no method is exit 2.
        plot = os.path.join(SOURCE, "analysis", "plot_seeds.py")
        png = os.path.join(root, "curves.png")
        result = subprocess.run([sys.executable, plot, *runs, "--out", png], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        result = subprocess.run([sys.executable, plot, self.runs[0], "--out", png], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("no method=VALUE part", result.stderr)

    def assertBadInput(self, args, *phrases):
        rc, _, stderr = run_stats(*args)
        self.assertEqual(rc, 2, stderr)
        self.assertNotIn("Traceback", stderr)
        for phrase in phrases:
            self.assertIn(phrase, stderr)

    def test_bad_input(self):
        tmp = self.tmp.name
        self.assertBadInput([os.path.join(tmp, "nowhere")], "nowhere: no such directory")
        self.assertBadInput([self.runs[0], "--metric", "speed"], "rounds.csv: no column 'speed'", "summary.json")
        self.assertBadInput(self.runs + ["--reference", "Z"], "--reference Z: no such algorithm")
        self.assertBadInput(self.runs + ["--group", "hospital"], "summary.json: no field 'hospital' (--group)")
        self.assertBadInput(self.runs + ["--confidence", "95"], "--confidence")
        self.assertBadInput([self.runs[0], "--metric", "time_to:accuracy"], "expected time_to:COLUMN>=NUMBER")
        self.assertBadInput([self.runs[0], "--metric", "time_to:accuracy>=high"], "expected time_to:COLUMN>=NUMBER")
        self.assertBadInput([self.runs[0], "--metric", "time_to:speed>=1"], "rounds.csv: no column 'speed'")
        words = os.path.join(tmp, "words")
        write_run(words, "A", 1, "high")
        self.assertBadInput([words], "words/summary.json: field 'final_accuracy': not a number ('high')")
        twin = os.path.join(tmp, "twin")
        write_run(twin, "A", 1, 0.5)
        self.assertBadInput([self.runs[0], twin], "same algorithm 'A' and seed 1")
        broken = os.path.join(tmp, "broken")
        os.makedirs(broken)
        with open(os.path.join(broken, "summary.json"), "w") as f:
            f.write("{not json")
        self.assertBadInput([broken], "broken/summary.json: cannot read")


if __name__ == "__main__":
    unittest.main()
