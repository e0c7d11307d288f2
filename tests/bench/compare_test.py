"""Tests of tools/bench/compare and tools/bench/suite_result.py on fixed samples.

compare is run as a program (its exit status and output are its contract); suite_result is
imported. Nothing here measures time.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import suite_result  # noqa: E402

COMPARE = os.path.join(ROOT, "tools", "bench", "compare")


def fig(fid, samples, better="lower", peers=None, goal=None):
    return suite_result.figure(fid, fid, "ms", better, samples, peers=peers, goal=goal)


class SuiteResultTest(unittest.TestCase):
    def test_median_and_ratio(self):
        f = fig("a", [3, 1, 2], peers={"curl": [4, 4, 5]})
        self.assertEqual(f["median"], 2)
        self.assertEqual(f["peers"]["curl"]["median"], 4)
        self.assertAlmostEqual(f["ratios"]["curl"], 0.5)

    def test_goals(self):
        on_ratio = {"text": "", "on": "ratio:curl", "max": 1.0}
        self.assertTrue(fig("a", [1], peers={"curl": [2]}, goal=on_ratio)["goal_met"])
        self.assertFalse(fig("a", [3], peers={"curl": [2]}, goal=on_ratio)["goal_met"])
        # A goal on a peer that was not measured is not met.
        self.assertFalse(fig("a", [1], goal=on_ratio)["goal_met"])
        self.assertTrue(fig("a", [2e6], better="higher",
                            goal={"text": "", "on": "median", "min": 1e6})["goal_met"])
        self.assertFalse(fig("a", [9e5], better="higher",
                             goal={"text": "", "on": "median", "min": 1e6})["goal_met"])

    def test_several_goals_each_judged_all_needed(self):
        goals = [{"text": "as fast as curl", "on": "ratio:curl", "max": 1.0},
                 {"text": "within 1.5x of h2load", "on": "ratio:h2load", "max": 1.5}]
        f = fig("a", [3], peers={"curl": [4], "h2load": [2.5]}, goal=goals)
        self.assertEqual([g["met"] for g in f["goal"]], [True, True])
        self.assertTrue(f["goal_met"])
        f = fig("a", [3], peers={"curl": [4], "h2load": [1.5]}, goal=goals)
        self.assertEqual([g["met"] for g in f["goal"]], [True, False])
        self.assertFalse(f["goal_met"])

    def test_bad_direction_is_refused(self):
        with self.assertRaises(ValueError):
            fig("a", [1], better="faster")

    def test_load_names_the_file_and_the_problem(self):
        with tempfile.TemporaryDirectory() as d:
            cases = {
                "notjson.json": ("{", "not JSON"),
                "list.json": ("[]", "top level is not an object"),
                "nofigs.json": ('{"format": 1, "name": "x"}', "no 'figures' list"),
                "version.json": ('{"format": 9, "name": "x", "figures": []}', "format 9"),
                "nosamples.json": ('{"format": 1, "name": "x", "figures": [{"id": "a", '
                                   '"samples": []}]}', "non-empty list of numbers"),
            }
            for name, (text, message) in cases.items():
                path = os.path.join(d, name)
                with open(path, "w") as f:
                    f.write(text)
                with self.assertRaises(ValueError) as e:
                    suite_result.load(path)
                self.assertIn(path, str(e.exception))
                self.assertIn(message, str(e.exception))
            with self.assertRaises(ValueError) as e:
                suite_result.load(os.path.join(d, "absent.json"))
            self.assertIn("cannot read", str(e.exception))


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, figures):
        path = os.path.join(self.dir.name, name)
        suite_result.write_section(path, "t", "test", figures)
        return path

    def compare(self, old, new, *extra):
        r = subprocess.run([COMPARE, old, new, *extra], capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr

    def line(self, out, fid):
        return next(l for l in out.splitlines() if l.startswith(fid + " "))

    def test_flags_significant_changes_by_direction(self):
        old = self.write("old.json", [
            fig("slower", [100, 101, 99, 100, 102]),
            fig("faster", [100, 101, 99, 100, 102]),
            fig("throughput.down", [1000, 1010, 990, 1005, 995], better="higher"),
            fig("noise", [100, 130, 80, 110, 95]),
            fig("small", [100, 101, 99, 100, 102]),
            fig("gone", [1, 2, 3]),
        ])
        new = self.write("new.json", [
            fig("slower", [120, 121, 119, 122, 120]),
            fig("faster", [80, 81, 79, 80, 82]),
            fig("throughput.down", [800, 810, 790, 805, 795], better="higher"),
            fig("noise", [105, 140, 85, 115, 90]),
            fig("small", [102, 103, 101, 102, 104]),  # significant but within 5%
            fig("added", [1, 2, 3]),
        ])
        code, out, err = self.compare(old, new)
        self.assertEqual(code, 0, err)
        self.assertIn("WORSE", self.line(out, "slower"))
        self.assertIn("Mann-Whitney", self.line(out, "slower"))
        self.assertIn("better", self.line(out, "faster"))
        self.assertIn("WORSE", self.line(out, "throughput.down"))
        for quiet in ("noise", "small"):
            self.assertNotIn("WORSE", self.line(out, quiet))
            self.assertNotIn("better", self.line(out, quiet))
        self.assertIn("removed", self.line(out, "gone"))
        self.assertIn("added", self.line(out, "added"))
        self.assertIn("significantly worse: slower, throughput.down", out)

        code, _, _ = self.compare(old, new, "--fail-on-regression")
        self.assertEqual(code, 1)
        code, _, _ = self.compare(old, old, "--fail-on-regression")
        self.assertEqual(code, 0)

    def test_three_samples_fall_back_to_welch(self):
        # 3 against 3: Mann-Whitney's smallest two-sided p is 0.1, so it could never flag.
        old = self.write("old.json", [fig("x", [100, 100.5, 99.5])])
        new = self.write("new.json", [fig("x", [130, 130.5, 129.5])])
        code, out, _ = self.compare(old, new)
        self.assertEqual(code, 0)
        self.assertIn("Welch", self.line(out, "x"))
        self.assertIn("WORSE", self.line(out, "x"))

    def test_single_samples_are_never_flagged(self):
        old = self.write("old.json", [fig("x", [100])])
        new = self.write("new.json", [fig("x", [200])])
        code, out, _ = self.compare(old, new, "--fail-on-regression")
        self.assertEqual(code, 0)
        self.assertIn("n<2", self.line(out, "x"))

    def test_ratios_are_shown(self):
        old = self.write("old.json", [fig("x", [10, 10, 10], peers={"curl": [20, 20, 20]})])
        new = self.write("new.json", [fig("x", [10, 10, 10], peers={"curl": [10, 10, 10]})])
        _, out, _ = self.compare(old, new)
        self.assertIn("curl 0.5 -> 1", self.line(out, "x"))

    def test_reads_a_whole_suite_file_and_skips_failed_benchmarks(self):
        path = os.path.join(self.dir.name, "suite.json")
        good = {"format": 1, "name": "a", "figures": [fig("x", [1, 2, 3])]}
        failed = {"format": 1, "name": "b", "figures": [], "error": "exit status 1"}
        with open(path, "w") as f:
            json.dump({"format": 1, "benchmarks": [good, failed]}, f)
        code, out, err = self.compare(path, path)
        self.assertEqual(code, 0, err)
        self.assertIn("x ", out)

    def test_bad_input_is_one_line_and_exit_2(self):
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w") as f:
            f.write('{"format": 1, "figures": [{"id": "x", "samples": ["fast"]}]}')
        good = self.write("good.json", [fig("x", [1, 2])])
        code, out, err = self.compare(good, bad)
        self.assertEqual(code, 2)
        self.assertEqual(len(err.strip().splitlines()), 1)
        self.assertIn(bad, err)
        code, _, err = self.compare(good, os.path.join(self.dir.name, "missing.json"))
        self.assertEqual(code, 2)
        self.assertIn("cannot read", err)
        code, _, err = self.compare(good, good, "--alpha", "2")
        self.assertEqual(code, 2)


if __name__ == "__main__":
    unittest.main()
