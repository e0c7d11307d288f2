"""tools/bench/lab_compare.py on fixed inputs: phase extraction from HAR timings, matching of two
loads of a page, the error figures and their goals, MAPE, Spearman, bad HAR files."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "bench"))
import lab_compare  # noqa: E402


def entry(url, start_s, timings, page="page_1"):
    return {"pageref": page, "startedDateTime": "2026-01-01T00:00:%06.3fZ" % start_s,
            "time": sum(v for v in timings.values() if v > 0), "request": {"url": url},
            "timings": timings}


T_NEW = {"blocked": 0, "dns": 10, "connect": 50, "ssl": 20, "send": 0, "wait": 40, "receive": 5}
T_REUSED = {"blocked": 1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 30,
            "receive": 9}


def har(entries, onload=200.0):
    return {"log": {"pages": [{"id": "page_1", "startedDateTime": "2026-01-01T00:00:00.000Z",
                               "pageTimings": {"onLoad": onload}}],
                    "entries": entries}}


class PhaseTest(unittest.TestCase):
    def test_phases_split_tls_from_connect(self):
        p = lab_compare.entry_phases({"timings": dict(T_NEW, blocked=3)})
        self.assertEqual(p, {"dns": 13, "connect": 30, "ssl": 20, "wait": 40, "receive": 5,
                             "response": 45})

    def test_reused_connection_has_no_setup_phases(self):
        p = lab_compare.entry_phases({"timings": T_REUSED})
        self.assertIsNone(p["dns"])
        self.assertIsNone(p["connect"])
        self.assertIsNone(p["ssl"])
        self.assertEqual(p["wait"], 30)

    def test_missing_or_bad_timings_are_absent(self):
        p = lab_compare.entry_phases({"timings": {"wait": "x", "connect": True}})
        self.assertEqual(p, {k: None for k in lab_compare.PHASES})

    def test_pages_start_at_first_request_and_keep_onload(self):
        pages = lab_compare.har_pages(har([entry("https://a/", 0.0, T_NEW),
                                           entry("https://a/x", 0.130, T_REUSED)]))
        self.assertEqual(len(pages), 1)
        e = pages[0]["entries"]
        self.assertAlmostEqual(e[1]["start"], 130.0, places=3)
        self.assertAlmostEqual(e[1]["end"], 170.0, places=3)
        self.assertTrue(e[0]["new_connection"])
        self.assertFalse(e[1]["new_connection"])
        self.assertEqual(lab_compare.page_load(pages[0]), 200.0)
        lead = har([entry("https://a/", 0.018, T_NEW)], 200.0)
        self.assertAlmostEqual(lab_compare.page_load(lab_compare.har_pages(lead)[0]), 182.0,
                               places=3)
        pages[0]["onload"] = None
        self.assertAlmostEqual(lab_compare.page_load(pages[0]), 170.0, places=3)


class CompareTest(unittest.TestCase):
    def test_matching_by_url_in_order(self):
        a = {"entries": [{"url": "u"}, {"url": "u"}, {"url": "v"}]}
        b = {"entries": [{"url": "u"}, {"url": "w"}, {"url": "u"}]}
        pairs, only_a, only_b = lab_compare.match_entries(a, b)
        self.assertEqual(len(pairs), 2)
        self.assertEqual((only_a, only_b), (1, 1))

    def test_compare_loads_errors(self):
        live = lab_compare.har_pages(har([entry("https://a/", 0, T_NEW),
                                          entry("https://a/x", 0.1, T_REUSED)], 200))[0]
        t = dict(T_NEW, wait=44)
        rep = lab_compare.har_pages(har([entry("https://a/", 0, t),
                                         entry("https://a/x", 0.1, T_REUSED)], 210))[0]
        c = lab_compare.compare_loads(live, rep)
        self.assertAlmostEqual(c["load_ape_pct"], 5.0)
        self.assertEqual(c["phases"]["wait"], [(40, 44), (30, 30)])
        self.assertEqual(c["phases"]["dns"], [(10, 10)])
        self.assertEqual((c["live_connections"], c["replay_connections"]), (1, 1))

    def test_error_causes_split_idle_busy_and_record_size(self):
        def with_size(e, n):
            e["response"] = {"bodySize": n}
            return e
        t_busy = dict(T_NEW, connect=70, ssl=30)
        live = lab_compare.har_pages(har([with_size(entry("https://a/", 0, T_NEW), 1000),
                                          with_size(entry("https://b/", 0.1, t_busy), 40000)]))[0]
        rep = lab_compare.har_pages(har([with_size(entry("https://a/", 0, T_NEW), 1000),
                                         with_size(entry("https://b/", 0.1, T_NEW), 40000)]))[0]
        c = lab_compare.error_causes(live, rep)
        self.assertEqual(c["idle_connect"], [0])
        self.assertEqual(c["busy_connect"], [10])  # (70 - 30) - (50 - 20)
        self.assertEqual(c["busy_ssl"], [10])
        self.assertEqual(c["small_receive"], [(5, 5)])
        self.assertEqual(c["large_receive"], [(5, 5)])

    def test_phase_summary_goal_ms_or_percent(self):
        s = lab_compare.phase_summary([(100, 103), (100, 104), (100, 90)])
        self.assertEqual(s["median_abs_error_ms"], 4)
        self.assertTrue(s["goal_met"])  # 4 ms of 100: 4 %
        s = lab_compare.phase_summary([(10, 13.5), (10, 14)])
        self.assertFalse(s["goal_met"])  # 3.75 ms, 37 %
        s = lab_compare.phase_summary([(1, 2.5)])
        self.assertTrue(s["goal_met"])  # 1.5 ms
        self.assertEqual(lab_compare.phase_summary([]), {"count": 0})

    def test_mape_and_spearman(self):
        self.assertAlmostEqual(lab_compare.mape([100, 200, 0], [110, 180, 5]), 10.0)
        self.assertIsNone(lab_compare.mape([0], [1]))
        self.assertAlmostEqual(lab_compare.spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1.0)
        self.assertAlmostEqual(lab_compare.spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
        self.assertAlmostEqual(lab_compare.spearman([1, 2, 2, 3], [1, 2, 3, 4]), 0.9486832981,
                               places=6)
        self.assertIsNone(lab_compare.spearman([1], [1]))
        self.assertIsNone(lab_compare.spearman([1, 1], [1, 2]))

    def test_link_throughput_counts_headers(self):
        self.assertAlmostEqual(lab_compare.link_throughput_kbps(1448000), 1500.0)


class BadInputTest(unittest.TestCase):
    def test_bad_files_are_one_line_errors(self):
        with tempfile.TemporaryDirectory() as d:
            cases = {"missing.har": None, "text.har": b"not json {", "array.har": b"[1,2]"}
            for name, data in cases.items():
                path = os.path.join(d, name)
                if data is not None:
                    with open(path, "wb") as f:
                        f.write(data)
                with self.assertRaises(lab_compare.HarError) as ctx:
                    lab_compare.read_har(path)
                msg = str(ctx.exception)
                self.assertTrue(msg.startswith(path + ": "), msg)
                self.assertNotIn("\n", msg)

    def test_entries_without_pages_or_dates_do_not_crash(self):
        pages = lab_compare.har_pages({"log": {"entries": [{"request": {}}, 7]}})
        self.assertEqual(len(pages), 1)
        self.assertEqual(pages[0]["entries"][0]["start"], 0.0)


if __name__ == "__main__":
    unittest.main()
