"""The lab measurement programs' command lines, without the lab: lab_site on a real recording
(the files it writes, the manifest) and on bad input; lab-accuracy and lab-vs-replay on bad
usage. Every error is one line and exit 2, and nothing is left behind.

  lab_tools_cli_test.py LAB_SITE_BINARY NETSTACK_BINARY
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "tools", "bench")
LAB_SITE = NETSTACK = ""

HAR = {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
               "pages": [{"id": "p", "startedDateTime": "2026-01-01T00:00:00.000Z",
                          "title": "t", "pageTimings": {"onLoad": 100}}],
               "entries": []}}


def entry(url, mime, size, start_ms):
    return {"pageref": "p", "startedDateTime": "2026-01-01T00:00:00.%03dZ" % start_ms,
            "time": 10, "request": {"method": "GET", "url": url, "httpVersion": "h2",
                                    "headers": [], "queryString": [], "cookies": [],
                                    "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "", "httpVersion": "h2",
                         "headers": [{"name": "content-type", "value": mime}], "cookies": [],
                         "content": {"size": size, "mimeType": mime}, "redirectURL": "",
                         "headersSize": -1, "bodySize": size},
            "cache": {}, "timings": {"blocked": 0, "dns": 1, "connect": 2, "ssl": 1, "send": 0,
                                     "wait": 5, "receive": 1}}


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


class LabSiteCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name
        har = json.loads(json.dumps(HAR))
        har["log"]["entries"] = [entry("https://www.a.test/", "text/html", 3000, 0),
                                 entry("https://www.a.test/a.css", "text/css", 800, 20),
                                 entry("https://cdn.b.test/x.png", "image/png", 5000, 30)]
        self.har = os.path.join(self.d, "a.har")
        with open(self.har, "w") as f:
            json.dump(har, f)

    def tearDown(self):
        self.dir.cleanup()

    def test_writes_site_and_manifest(self):
        site = os.path.join(self.d, "site")
        r = run([LAB_SITE, self.har, "-o", site, "--site", "7"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(site)), ["h0.site7.lab", "h1.site7.lab"])
        self.assertEqual(os.path.getsize(os.path.join(site, "h1.site7.lab", "r2.png")), 5000)
        with open(site + ".manifest.json") as f:
            m = json.load(f)
        self.assertEqual([x["url"] for x in m["files"]],
                         ["https://h0.site7.lab/", "https://h0.site7.lab/r1.css",
                          "https://h1.site7.lab/r2.png"])
        self.assertEqual(m["hosts"][1]["recorded"], "cdn.b.test")

    def assert_usage_error(self, argv, expect):
        before = sorted(os.listdir(self.d))
        r = run(argv)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(expect, lines[0])
        self.assertEqual(sorted(os.listdir(self.d)), before)

    def test_bad_inputs(self):
        site = os.path.join(self.d, "s")
        missing = os.path.join(self.d, "missing.har")
        self.assert_usage_error([LAB_SITE, missing, "-o", site], "missing.har: cannot open")
        self.assert_usage_error([LAB_SITE, self.har, "-o", site, "--page", "2"],
                                "--page 2, but the recording has 1 page(s)")
        self.assert_usage_error([LAB_SITE, self.har], "--out is required")
        self.assert_usage_error([LAB_SITE, self.har, "-o", site, "--site", "-1"], "--site")
        self.assert_usage_error([LAB_SITE, self.har, "-o", site, "--max-files", "2"],
                                "more than 2 requests to generate")
        bad = os.path.join(self.d, "bad.har")
        with open(bad, "w") as f:
            f.write('{"log": {"entries": [')
        self.assert_usage_error([LAB_SITE, bad, "-o", site], "bad.har")

    def test_never_overwrites(self):
        site = os.path.join(self.d, "site")
        os.makedirs(os.path.join(site, "keep"))
        self.assert_usage_error([LAB_SITE, self.har, "-o", site],
                                "exists and is not an empty folder (not overwritten)")
        self.assertEqual(os.listdir(site), ["keep"])


class DriverUsageTest(unittest.TestCase):
    def check(self, argv, expect):
        r = run([sys.executable] + argv)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(expect, r.stderr.strip().splitlines()[-1])

    def test_accuracy_usage(self):
        script = os.path.join(BENCH, "lab-accuracy")
        self.check([script, "--presets", "moon", "--netstack", NETSTACK], "unknown preset 'moon'")
        self.check([script, "--runs", "0", "--netstack", NETSTACK], "--runs wants 1..100")
        self.check([script, "--netstack", "/nonexistent/netstack"], "not found or not executable")

    def test_vs_replay_usage(self):
        script = os.path.join(BENCH, "lab-vs-replay")
        self.check([script, "--runs", "0", "--netstack", NETSTACK], "--runs wants 1..100")
        self.check([script, "--browser", "lynx"], "invalid choice: 'lynx'")
        self.check([script, "--netstack", "/nonexistent/netstack"], "not found or not executable")


class ClientUsageTest(unittest.TestCase):
    def test_lab_client_usage(self):
        client = os.path.join(BENCH, "lab_client.py")
        r = run([sys.executable, client, "accuracy", "--host", "x", "--ping-count", "0"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--ping-count wants 1..10000", r.stderr.strip().splitlines()[-1])
        r = run([sys.executable, client, "dance"])
        self.assertEqual(r.returncode, 2, r.stderr)

    def test_load_page_usage(self):
        node = shutil.which("node")
        if not node:
            self.skipTest("node is not installed")
        script = os.path.join(BENCH, "lab-browser", "load_page.js")
        for argv, expect in (([], "needs --har FILE and a URL"),
                             (["--har", "x.har", "--timeout-s", "0", "https://a/"],
                              "--timeout-s wants 1..3600"),
                             (["--har", "x.har", "--bogus", "https://a/"],
                              "unexpected argument --bogus")):
            r = run([node, script] + argv)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr.strip(), "load_page.js: " + expect)


if __name__ == "__main__":
    LAB_SITE, NETSTACK = sys.argv[1], sys.argv[2]
    del sys.argv[1:3]
    unittest.main()
