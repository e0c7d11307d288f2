"""tools/cluster/netstack-dask against a real Dask scheduler and two workers this test starts.

  dask_driver_test.py NETSTACK_BINARY DRIVER [unittest args]

The scheduler and the workers are Debian's `dask scheduler` / `dask worker` on 127.0.0.1 (free
ports, a scheduler file), each in its own process group, killed on every exit path. Checks:
the driver's merged output is byte-identical to one `netstack replay` of the same traces (with
and without request lines), a worker killed mid-shard is retried without losing or doubling a
shard, a shard that always fails is reported and nothing is merged or left, bad usage is one
line and exit 2, and a sweep on the default local cluster matches separate runs.

Exit 77 (skipped) without python3-distributed; under NETSTACK_REQUIRE_FIXTURES=1 that fails.
"""

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                                "cluster"))
import replay_args  # noqa: E402
import sweep_grid  # noqa: E402

NETSTACK = DRIVER = ""
PYTHON = "/usr/bin/python3"
SCHEDULER_FILE = ""
HOLD_DIR = ""  # exists only while the kill test wants shard 1's first attempt held
GROUPS = []  # process groups to kill at exit
LOGS = []  # their log files, closed after them


def kill_groups():
    for proc in GROUPS:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    GROUPS.clear()
    for log in LOGS:
        log.close()
    LOGS.clear()


def start_cluster(tmp):
    """Starts a scheduler and two one-thread workers; returns the scheduler's address."""
    global SCHEDULER_FILE
    SCHEDULER_FILE = os.path.join(tmp, "scheduler.json")
    log = open(os.path.join(tmp, "cluster.log"), "w")  # noqa: SIM115: the cluster's, till exit
    LOGS.append(log)
    env = dict(os.environ, NETSTACK_DASK_TEST_HOLD=f"1:{HOLD_DIR}")
    common = dict(stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                  start_new_session=True, env=env, cwd=tmp)
    GROUPS.append(subprocess.Popen(
        [PYTHON, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
         "--no-dashboard", "--scheduler-file", SCHEDULER_FILE], **common))
    deadline = time.monotonic() + 60
    while not os.path.exists(SCHEDULER_FILE) and time.monotonic() < deadline:
        time.sleep(0.1)
    for _ in range(2):
        GROUPS.append(subprocess.Popen(
            [PYTHON, "-m", "distributed.cli.dask_worker", "--scheduler-file", SCHEDULER_FILE,
             "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"], **common))
    time.sleep(0.5)
    with open(SCHEDULER_FILE) as f:
        return json.load(f)["address"]


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kw)


class DaskDriverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="netstack-dask-test-")
        global HOLD_DIR
        HOLD_DIR = os.path.join(cls.tmp, "hold")
        cls.address = start_cluster(cls.tmp)
        # Four small sessions of different lengths: shards of unequal work.
        cls.traces = []
        for k, n in enumerate((1500, 400, 900, 250)):
            path = os.path.join(cls.tmp, f"s{k}.jsonl")
            r = run([NETSTACK, "gen-session", "--synthetic", "--requests", str(n), "--seed",
                     str(k + 1), "-o", path, "--quiet"])
            assert r.returncode == 0, r.stderr
            cls.traces.append(path)
        cls.expected = {}
        for pages in (False, True):
            path = os.path.join(cls.tmp, f"one-run-{pages}.jsonl")
            argv = [NETSTACK, "replay", "--json", path, "--set", "rtt_ms=60"] + cls.traces
            r = run(argv + (["--json-pages"] if pages else []))
            assert r.returncode == 0, r.stderr
            with open(path, "rb") as f:
                cls.expected[pages] = f.read()
            cls.summary = r.stdout

    @classmethod
    def tearDownClass(cls):
        kill_groups()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def out_dir(self, name):
        return os.path.join(self.tmp, name)

    def driver(self, out, *extra, replay=("--set", "rtt_ms=60")):
        return [DRIVER, "--scheduler", self.address, "--netstack", NETSTACK, "--out", out] + \
            list(extra) + ["--"] + list(replay) + self.traces

    def assert_merged(self, out, pages_only, shards):
        with open(os.path.join(out, "merged.jsonl"), "rb") as f:
            self.assertEqual(f.read(), self.expected[pages_only])
        self.assertEqual(sorted(os.listdir(os.path.join(out, "shards"))),
                         [f"{i:05d}.jsonl" for i in range(shards)])

    def test_merged_equals_one_run(self):
        out = self.out_dir("requests")
        r = run(self.driver(out, "--shards", "3", "--requests"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_merged(out, False, 3)
        for i in range(3):
            self.assertEqual(r.stderr.count(f"shard {i}/3 done"), 1, r.stderr)
        # The summary is one run's, but for its wall/CPU time lines.
        same = [line for line in self.summary.splitlines() if "cpu" not in line]
        with open(os.path.join(out, "summary.txt")) as f:
            got = [line for line in f.read().splitlines() if "cpu" not in line]
        self.assertEqual(got, same)
        self.assertEqual(r.stdout.splitlines()[0], self.summary.splitlines()[0])

    def test_page_lines_only_by_default(self):
        out = self.out_dir("pages")
        r = run(self.driver(out, "--shards", "4"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_merged(out, True, 4)
        with open(os.path.join(out, "run.json")) as f:
            stats = json.load(f)
        self.assertEqual(sorted(t["shard"] for t in stats["tasks"]), [0, 1, 2, 3])

    def test_killed_worker_is_retried_once_per_shard(self):
        os.mkdir(HOLD_DIR)  # arms the hold: shard 1's first attempt waits to be killed
        try:
            out = self.out_dir("killed")
            proc = subprocess.Popen(self.driver(out, "--shards", "3", "--retries", "2"),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            pid_file = os.path.join(HOLD_DIR, "hold-1.pid")
            deadline = time.monotonic() + 60
            pid = ""
            while time.monotonic() < deadline and not pid.endswith("\n"):
                time.sleep(0.05)
                if os.path.exists(pid_file):
                    with open(pid_file) as f:
                        pid = f.read()
            self.assertTrue(pid.endswith("\n"), "shard 1 never started")
            os.kill(int(pid), signal.SIGKILL)
            stdout, stderr = proc.communicate(timeout=240)
        finally:
            shutil.rmtree(HOLD_DIR, ignore_errors=True)
        self.assertEqual(proc.returncode, 0, stderr)
        self.assert_merged(out, True, 3)
        for i in range(3):
            self.assertEqual(stderr.count(f"shard {i}/3 done"), 1, stderr)

    def test_failing_shard_is_reported_and_nothing_merged(self):
        bad = os.path.join(self.tmp, "bad.jsonl")
        with open(bad, "w") as f:
            f.write("this is not a session\n")
        out = self.out_dir("failing")
        argv = [DRIVER, "--scheduler", self.address, "--netstack", NETSTACK, "--out", out,
                "--shards", "2", "--retries", "1", "--", self.traces[0], bad, self.traces[1]]
        r = run(argv)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("shard 1/2 failed after 2 attempts: exit 2: ", r.stderr)
        self.assertIn("bad.jsonl", r.stderr)
        self.assertIn("nothing merged", r.stderr.strip().splitlines()[-1])
        self.assertFalse(os.path.exists(out))

    def test_bad_usage_is_one_line_and_creates_nothing(self):
        cases = [
            (["--out", "o", "--", "-"], "trace '-'"),
            (["--out", "o", "--", "--netlog", "n.json", "a.har"], "--netlog cannot be used"),
            (["--out", "o", "--shards", "5", "--", "a", "b"], "--shards 5 is more than the 2"),
            (["--out", "o", "--shards", "0", "--", "a"], "--shards wants a whole number"),
            (["--out", "o", "--sweep", "rtt_ms=", "--", "a"], "an empty value"),
            (["--out", "o", "--", "--bogus", "a"], "unknown replay option '--bogus'"),
            (["--out", "o"], "no traces"),
            (["--scheduler", "tcp://x:1", "--workers", "2", "--out", "o", "--", "a"],
             "not allowed with argument"),
            (["--scheduler", "tcp://x:1", "--worker-processes", "--out", "o", "--", "a"],
             "--worker-processes is for the local cluster"),
            (["--out", "full", "--", "a"], "exists and is not an empty directory"),
        ]
        work = os.path.join(self.tmp, "usage")
        os.makedirs(os.path.join(work, "full"))
        open(os.path.join(work, "full", "x"), "w").close()
        for argv, expect in cases:
            with self.subTest(argv=argv):
                r = run([DRIVER, "--netstack", NETSTACK] + argv, cwd=work)
                self.assertEqual(r.returncode, 2, r.stderr)
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(expect, lines[0])
                self.assertEqual(sorted(os.listdir(work)), ["full"])

    def test_local_cluster_of_threads_or_processes_merges_one_run(self):
        for way, extra in (("threads", []), ("processes", ["--worker-processes"])):
            with self.subTest(way=way):
                out = self.out_dir(f"local-{way}")
                r = run([DRIVER, "--workers", "2", "--netstack", NETSTACK, "--out", out,
                         "--shards", "2"] + extra + ["--", "--set", "rtt_ms=60"] + self.traces)
                self.assertEqual(r.returncode, 0, r.stderr)
                where = "2 worker processes" if extra else "2 workers (threads)"
                self.assertIn(f"a local cluster of {where}", r.stderr)
                self.assert_merged(out, True, 2)
                with open(os.path.join(out, "run.json")) as f:
                    stats = json.load(f)
                self.assertEqual(stats["local_workers"], way)
                # Worker processes report their own costs; threads are the driver's.
                self.assertEqual(bool(stats["workers"]), way == "processes")

    def test_sweep_on_a_local_cluster_matches_separate_runs(self):
        out = self.out_dir("sweep")
        r = run([DRIVER, "--workers", "2", "--netstack", NETSTACK, "--out", out, "--sweep",
                 "rtt_ms=20,80", "--", "--set", "rtt_ms=60"] + self.traces[1:3])
        self.assertEqual(r.returncode, 0, r.stderr)
        for point, rtt in enumerate(("20", "80")):
            one = os.path.join(self.tmp, f"sweep-{rtt}.jsonl")
            r1 = run([NETSTACK, "replay", "--json", one, "--json-pages", "--quiet", "--set",
                      "rtt_ms=60", "--set", f"rtt_ms={rtt}"] + self.traces[1:3])
            self.assertEqual(r1.returncode, 0, r1.stderr)
            with open(one, "rb") as a, open(os.path.join(out, f"{point:03d}", "merged.jsonl"),
                                            "rb") as b:
                self.assertEqual(b.read(), a.read())
        with open(os.path.join(out, "sweep.tsv")) as f:
            rows = [line.split("\t") for line in f.read().splitlines()]
        self.assertEqual(rows[0][:2], ["point", "rtt_ms"])
        self.assertEqual([row[:2] for row in rows[1:]], [["0", "20"], ["1", "80"]])
        self.assertEqual([row[-1] for row in rows[1:]], ["000/merged.jsonl", "001/merged.jsonl"])
        with open(os.path.join(out, "sweep.json")) as f:
            table = json.load(f)
        self.assertEqual([p["set"] for p in table["points"]], [["rtt_ms=20"], ["rtt_ms=80"]])


class DriverPartsTest(unittest.TestCase):
    """The driver's pure parts, without a cluster: the grid's order and the option sorting."""

    def test_grid_varies_the_first_axis_slowest(self):
        axes = [sweep_grid.parse_axis("rtt_ms=20,80"), sweep_grid.parse_axis("cache=on,off")]
        self.assertEqual(sweep_grid.grid(axes),
                         [[("rtt_ms", "20"), ("cache", "on")],
                          [("rtt_ms", "20"), ("cache", "off")],
                          [("rtt_ms", "80"), ("cache", "on")],
                          [("rtt_ms", "80"), ("cache", "off")]])
        self.assertEqual(sweep_grid.grid([]), [[]])
        for bad, why in (("rtt_ms", "want KEY=V1,V2"), ("=1,2", "want KEY=V1,V2"),
                         ("rtt_ms=1,1", "a value given twice"), ("rtt_ms=1,,2", "an empty value")):
            with self.assertRaisesRegex(sweep_grid.SweepError, why):
                sweep_grid.parse_axis(bad)
        with self.assertRaisesRegex(sweep_grid.SweepError, "swept twice"):
            sweep_grid.grid([("a", ["1"]), ("a", ["2"])])
        with self.assertRaisesRegex(sweep_grid.SweepError, "at most 1000"):
            forty = [str(i) for i in range(40)]
            sweep_grid.grid([("a", forty), ("b", forty)])

    def test_replay_options_go_to_the_shards_or_the_merge(self):
        a = replay_args.parse(["--set", "rtt_ms=20", "--report=r.html", "--estimate", "x.har",
                               "--seed", "7", "--compare", "desktop", "slow-4g",
                               "--summary-pages", "3", "--json-pages", "--", "--odd-name.har"])
        self.assertEqual(a.shard_options, ["--set", "rtt_ms=20", "--estimate", "--seed", "7",
                                           "--compare", "desktop", "slow-4g"])
        self.assertEqual(a.merge_options, ["--report", os.path.abspath("r.html"),
                                           "--summary-pages", "3"])
        self.assertEqual(a.traces, [os.path.abspath("x.har"), os.path.abspath("--odd-name.har")])
        self.assertTrue(a.wants_requests)
        for argv, why in ((["--compare", "a"], "two config specs"), (["--seed"], "needs a value"),
                          (["--estimate=1", "a"], "takes no value"), (["--jobs", "2", "a"],
                                                                      "--jobs cannot be used")):
            with self.assertRaisesRegex(replay_args.UsageError, why):
                replay_args.parse(argv)


def main():
    global NETSTACK, DRIVER
    if len(sys.argv) < 3:
        sys.exit("usage: dask_driver_test.py NETSTACK_BINARY DRIVER [unittest args]")
    NETSTACK, DRIVER = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if subprocess.run([PYTHON, "-c", "import distributed"], capture_output=True).returncode:
        if os.environ.get("NETSTACK_REQUIRE_FIXTURES") == "1":
            sys.exit("python3-distributed is missing and NETSTACK_REQUIRE_FIXTURES=1 "
                     "(tools/scripts/install-deps installs it)")
        print("SKIPPED: python3-distributed is not installed (tools/scripts/install-deps)")
        sys.exit(77)
    atexit.register(kill_groups)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(1))  # runs atexit: the cluster goes too
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])


if __name__ == "__main__":
    main()
