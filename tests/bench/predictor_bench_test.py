"""Tests of tools/bench/predictor_bench.py's figures on fixed JSON lines: the pairing with off,
the ceiling and the share, precision with fetch-ahead apart, stats fields an older netstack does
not write, the goals (met, missed, not meaningful) and recall per 100 navigations. Nothing here
runs a replay or measures time.
"""

import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
import predictor_bench as pb  # noqa: E402


def page(index, load, oracle=0.0, ready=0, opened=0):
    return {"kind": "page", "page": index, "page_load_ms": load,
            "oracle": {"setup_ms": oracle, "critical_requests": 2},
            "preconnect": {"ready": ready, "late": 0}, "sockets": {"opened": opened, "reused": 0}}


def stats(preconnect=(0, 0, 0, 0), preresolve=(0, 0, 0, 0), fetch=(0, 0, 0, 0), needed=0,
          ready=0):
    act = lambda t: dict(zip(("taken", "used", "late", "wasted"), t))
    return {"predictor": {"policy": "x", "stats": {
        "preconnect": act(preconnect), "preresolve": act(preresolve), "fetch_ahead": act(fetch),
        "connections": {"needed": needed, "ready": ready, "late": 0}}}, "connect_wait_ms": 10}


class FiguresTest(unittest.TestCase):
    def test_saved_ceiling_and_share_pair_page_by_page(self):
        off = {0: page(0, 1000, oracle=300), 1: page(1, 800, oracle=100), 2: page(2, 500, 50)}
        policy = {0: page(0, 850), 1: page(1, 850)}  # page 2 missing: not paired
        f = pb.run_figures(off, policy, stats())
        self.assertEqual(f["navs"], 2)
        self.assertEqual(f["saved_ms"], 100)
        self.assertEqual(f["ceiling_ms"], 400)
        c = pb.case_figures([f, f])
        self.assertEqual(c["saved_per_nav_ms"], 50)
        self.assertEqual(c["ceiling_per_nav_ms"], 200)
        self.assertEqual(c["share"], 0.25)

    def test_precision_keeps_fetch_ahead_apart(self):
        f = pb.run_figures({}, {}, stats(preconnect=(10, 6, 2, 2), preresolve=(10, 2, 0, 8),
                                         fetch=(4, 1, 0, 3), needed=20, ready=5))
        c = pb.case_figures([f])
        self.assertEqual(c["precision_connect"], 0.5)
        self.assertEqual(c["precision_fetch_ahead"], 0.25)
        self.assertEqual(c["recall"], 0.25)
        self.assertEqual(c["wasted_connections"], 2)
        self.assertEqual(c["wasted_resolves"], 8)

    def test_missing_fields_read_as_zero_and_nothing_taken_is_no_figure(self):
        f = pb.run_figures({}, {}, {"connect_wait_ms": 0})
        self.assertEqual(f["preconnect.used_background"], 0)
        self.assertEqual(f["fetch_ahead.warmed"], 0)
        c = pb.case_figures([f])
        self.assertIsNone(c["precision_connect"])
        self.assertIsNone(c["share"])
        self.assertIsNone(c["saved_per_nav_ms"])

    def test_read_run_wants_a_summary(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write(json.dumps(page(0, 1)) + "\n")
        try:
            with self.assertRaises(ValueError):
                pb.read_run(f.name)
            with open(f.name, "a") as out:
                out.write(json.dumps({"kind": "summary", "totals": stats()}) + "\n")
            pages, totals = pb.read_run(f.name)
            self.assertEqual(list(pages), [0])
            self.assertIn("predictor", totals)
        finally:
            os.unlink(f.name)


def figures(saved, ceiling=100.0, wasted=0, precision=0.9, share=None):
    return {"saved_per_nav_ms": saved, "ceiling_per_nav_ms": ceiling, "wasted_connections": wasted,
            "precision_connect": precision, "share": saved / ceiling if share is None else share}


class GoalsTest(unittest.TestCase):
    def test_every_goal_met(self):
        g = pb.goals({"off": figures(0), "chrome": figures(40, wasted=10),
                      "loading": figures(50, wasted=5), "learned": figures(65, wasted=10)}, 5)
        self.assertEqual([x["met"] for x in g], [True] * 5)
        self.assertIn("1.62x", g[0]["numbers"])

    def test_misses_name_the_numbers(self):
        g = {x["goal"]: x for x in pb.goals(
            {"off": figures(0), "chrome": figures(50, wasted=3), "loading": figures(60),
             "learned": figures(55, wasted=4, precision=0.5)}, 5)}
        self.assertFalse(g["learned saves >= 1.3x chrome"]["met"])
        self.assertIn("1.10x: 55.0 vs 50.0 ms/nav", g["learned saves >= 1.3x chrome"]["numbers"])
        self.assertFalse(g["learned saves more than loading"]["met"])
        self.assertFalse(g["no more wasted connections than chrome"]["met"])
        self.assertFalse(g["preconnect precision >= 0.8"]["met"])
        self.assertFalse(g["share of the ceiling >= 60 %"]["met"])

    def test_without_loading_its_goal_is_left_out(self):
        g = pb.goals({"off": figures(0), "chrome": figures(0), "learned": figures(70)}, 5)
        self.assertNotIn("learned saves more than loading", [x["goal"] for x in g])
        self.assertTrue(g[0]["met"])  # chrome saved nothing, learned saved
        self.assertIn("chrome saved nothing", g[0]["numbers"])

    def test_a_case_without_a_meaningful_saving_has_no_goals(self):
        self.assertIsNone(pb.goals({"off": figures(0, ceiling=4.9), "learned": figures(1)}, 5))
        self.assertIsNone(pb.goals({"off": figures(0)}, 5))


class RecallTest(unittest.TestCase):
    def test_recall_per_window_from_page_lines(self):
        pages = {i: page(i, 1, ready=1 if i < 100 else 0, opened=2) for i in range(250)}
        self.assertEqual(pb.recall_windows(pages), [0.5, 0.0, 0.0])
        self.assertEqual(pb.recall_windows({0: page(0, 1)}), [None])

    def test_the_predictors_critical_counts_win_when_the_page_line_has_them(self):
        p = page(0, 1, ready=3, opened=4)
        self.assertEqual(pb.page_connections(p), (3, 4))
        p["predictor"] = {"stats": {"connections": {"needed": 2, "ready": 1}}}
        self.assertEqual(pb.page_connections(p), (1, 2))


if __name__ == "__main__":
    unittest.main()
