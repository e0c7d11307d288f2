"""Tests of tools/bench/icount, the instruction-count gate, run as a program (its exit status and
output are its contract) on a small replay workload.

The build directory (with netstack built) is the first argument. The gate's tests need valgrind;
without it they skip, or fail under NETSTACK_REQUIRE_FIXTURES=1 (CI). Nothing here measures
time: callgrind's instruction counts are the same for the same binary and input.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ICOUNT = os.path.join(ROOT, "tools", "bench", "icount")
BUILD_DIR = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
# A small session keeps each callgrind run to a few seconds.
SMALL = ["--only", "replay", "--requests", "200"]
# Idle loop iterations per replayed request: several times the ~10^5 instructions a request
# costs, far past the 3 % threshold.
SPIN = "50000"


def icount(*args, env=None):
    full_env = dict(os.environ)
    full_env.pop("NETSTACK_ICOUNT_TEST_SPIN", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, ICOUNT, "--build-dir", BUILD_DIR, *args],
                          capture_output=True, text=True, env=full_env, timeout=600)


def have_valgrind():
    return shutil.which("valgrind") is not None and shutil.which("callgrind_annotate") is not None


def skip_without_valgrind(test):
    if have_valgrind():
        return test
    if os.environ.get("NETSTACK_REQUIRE_FIXTURES") == "1":
        def fail(self):
            self.fail("valgrind is not installed and NETSTACK_REQUIRE_FIXTURES=1 "
                      "(tools/scripts/install-deps --bench)")
        return fail
    return unittest.skip("valgrind is not installed")(test)


class BadInputTest(unittest.TestCase):
    """Every bad input is one line naming what and where, exit 2."""

    def assert_error(self, p, *words):
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("icount: "), lines[0])
        for w in words:
            self.assertIn(w, lines[0])

    def test_unknown_workload(self):
        self.assert_error(icount("--only", "replay,bogus"), "unknown workload 'bogus'", "replay")

    def test_bad_counts(self):
        self.assert_error(icount("--runs", "0"), "--runs", "0")
        self.assert_error(icount("--requests", "-5"), "--requests", "-5")
        self.assert_error(icount("--threshold", "0"), "--threshold")

    def test_missing_binary(self):
        self.assert_error(icount("--netstack", "/nonexistent/netstack"), "/nonexistent/netstack")

    @skip_without_valgrind
    def test_bad_baselines(self):
        with tempfile.TemporaryDirectory() as d:
            cases = {
                "absent.json": (None, "cannot read baseline"),
                "notjson.json": ("{", "not JSON"),
                "format.json": ('{"format": 7, "figures": {}}', "format 1"),
                "figures.json": ('{"format": 1, "figures": {"a": {"value": -1}}}', "'figures'"),
            }
            for name, (text, message) in cases.items():
                path = os.path.join(d, name)
                if text is not None:
                    with open(path, "w") as f:
                        f.write(text)
                p = icount(*SMALL, "--check", "--baseline", path)
                self.assert_error(p, path, message)


@skip_without_valgrind
class GateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="icount-test.")
        cls.baseline = os.path.join(cls.dir, "baseline.json")
        p = icount(*SMALL, "--update", "--baseline", cls.baseline)
        if p.returncode != 0:
            raise AssertionError("icount --update failed: " + p.stdout + p.stderr)
        with open(cls.baseline) as f:
            cls.base = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def check(self, baseline=None, env=None):
        out = os.path.join(self.dir, "run.json")
        p = icount(*SMALL, "--check", "--baseline", baseline or self.baseline, "--json", out,
                   env=env)
        figures = {}
        if os.path.exists(out):
            with open(out) as f:
                figures = {x["id"]: x["value"] for x in json.load(f)["figures"]}
            os.unlink(out)
        return p, figures

    def test_baseline_records_build_commit_and_figures(self):
        self.assertEqual(self.base["format"], 1)
        self.assertEqual(len(self.base["commit"]["sha"]), 40)
        self.assertTrue(self.base["build"]["type"])
        self.assertTrue(self.base["build"]["compiler"])
        self.assertEqual(self.base["config"], {"replay_requests": 200})
        self.assertEqual(sorted(self.base["figures"]),
                         ["replay.ir_per_event", "replay.ir_per_request"])

    def test_unchanged_binary_passes_twice_with_identical_counts(self):
        first, counts1 = self.check()
        second, counts2 = self.check()
        for p in (first, second):
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("icount: gate passed", p.stdout)
        expected = {k: v["value"] for k, v in self.base["figures"].items()}
        # The baseline rounds to 0.01; the runs are equal to each other exactly.
        self.assertEqual(counts1, counts2)
        for k, v in counts1.items():
            self.assertAlmostEqual(v, expected[k], places=1)

    def test_slowed_replay_trips_the_gate(self):
        p, counts = self.check(env={"NETSTACK_ICOUNT_TEST_SPIN": SPIN})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("icount: gate FAILED", p.stdout)
        old = self.base["figures"]["replay.ir_per_request"]["value"]
        new = counts["replay.ir_per_request"]
        self.assertGreater(new, old * 1.03)
        # The failure names the workload, both figures and the change.
        line = [x for x in p.stderr.splitlines() if "REGRESSION replay.ir_per_request" in x]
        self.assertEqual(len(line), 1, p.stderr)
        self.assertIn(f"{old:,.1f} -> {new:,.1f}", line[0])
        self.assertIn(f"{(new - old) / old * 100:+.2f} %", line[0])

    def test_a_change_under_the_threshold_passes(self):
        # 20 iterations per request: a few hundred instructions, well under 3 %, but counted.
        p, counts = self.check(env={"NETSTACK_ICOUNT_TEST_SPIN": "20"})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertGreater(counts["replay.ir_per_request"],
                           self.base["figures"]["replay.ir_per_request"]["value"])

    def test_a_gain_passes_with_a_reminder_to_update(self):
        # A baseline 10 % above today's figures: today's binary is "faster" than it.
        faster = dict(self.base)
        faster["figures"] = {k: dict(v, value=v["value"] * 1.10)
                             for k, v in self.base["figures"].items()}
        path = os.path.join(self.dir, "faster.json")
        with open(path, "w") as f:
            json.dump(faster, f)
        p, _ = self.check(baseline=path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("replay.ir_per_request fell -9.", p.stdout)
        self.assertIn("run tools/bench/icount --update", p.stdout)

    def test_update_keeps_other_figures_only_when_comparable(self):
        # A figure of a workload not run (--only) stays in a baseline of the same build and
        # workloads, and is dropped from one that is not comparable.
        same = dict(self.base, figures=dict(self.base["figures"], **{"other.ir": {"value": 7}}))
        other = dict(same, build={"type": "Debug", "compiler": "clang 99"})
        for data, kept in ((same, True), (other, False)):
            path = os.path.join(self.dir, "update.json")
            with open(path, "w") as f:
                json.dump(data, f)
            p = icount(*SMALL, "--update", "--baseline", path)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(path) as f:
                written = json.load(f)
            self.assertEqual("other.ir" in written["figures"], kept)
            self.assertIn("replay.ir_per_request", written["figures"])
            if not kept:
                self.assertIn("old baseline's figures are dropped", p.stderr)

    def test_another_build_or_workload_is_refused(self):
        other = dict(self.base, build={"type": "Debug", "compiler": "clang 99"})
        path = os.path.join(self.dir, "other.json")
        with open(path, "w") as f:
            json.dump(other, f)
        p, _ = self.check(baseline=path)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("not comparable", p.stderr)
        p = icount("--only", "replay", "--requests", "100", "--check", "--baseline",
                   self.baseline)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("'replay_requests': 200", p.stderr)


if __name__ == "__main__":
    unittest.main()
