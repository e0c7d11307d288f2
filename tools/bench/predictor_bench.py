"""predictor-bench's work: sessions, replays and the report (tools/bench/predictor-bench is the
user's entry; its comment describes the cases, the figures and the goals).

The figures are pure functions of replays' JSON Lines (page lines and the summary line):
page_figures, case_figures and goals, which tests/bench/predictor_bench_test.py checks on fixed
lines. Standard library only (Debian's /usr/bin/python3). Stats fields that an older netstack
does not write (the critical/background split) read as 0.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import subprocess
import sys
import time

GOAL_RATIO_CHROME = 1.3
GOAL_PRECISION = 0.8
GOAL_SHARE = 0.6
RECALL_WINDOW = 100  # navigations per row of the long-session check


def stat(stats, path, default=0):
    """stats["a"]["b"] for "a.b", or `default` when a member is missing (older binaries)."""
    node = stats
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node if node is not None else default


def read_run(path):
    """A replay's --json-pages output: (pages by index, the summary's totals)."""
    pages, totals = {}, None
    with open(path) as f:
        for line in f:
            j = json.loads(line)
            if j.get("kind") == "page":
                pages[j["page"]] = j
            elif j.get("kind") == "summary":
                totals = j["totals"]
    if totals is None:
        raise ValueError(f"{path}: no summary line")
    return pages, totals


def page_connections(page):
    """A page line's (ready, needed) connections: the predictor's critical counts when the line
    has them, else preconnect.ready over preconnect.needed (requests that needed a new
    connection), else over the sockets it opened (a netstack before issue 21)."""
    pred = page.get("predictor")
    if isinstance(pred, dict):
        conn = pred.get("stats", pred).get("connections")
        if isinstance(conn, dict) and "needed" in conn:
            return conn.get("ready", 0), conn.get("needed", 0)
    needed = stat(page, "preconnect.needed", None)
    if needed is None:
        needed = stat(page, "sockets.opened")
    return stat(page, "preconnect.ready"), needed


def run_figures(off_pages, pages, totals):
    """One replay against its off baseline: sums that add up over seeds."""
    st = stat(totals, "predictor.stats", {})
    saved = ceiling = 0.0
    navs = 0
    for index, page in pages.items():
        base = off_pages.get(index)
        if base is None:
            continue
        navs += 1
        saved += base["page_load_ms"] - page["page_load_ms"]
        ceiling += stat(base, "oracle.setup_ms")
    f = {"navs": navs, "saved_ms": saved, "ceiling_ms": ceiling}
    for action in ("preresolve", "preconnect", "fetch_ahead"):
        for key in ("taken", "used", "late", "wasted", "used_background", "late_background",
                    "warmed"):
            f[f"{action}.{key}"] = stat(st, f"{action}.{key}")
    for key in ("needed", "ready", "late", "needed_background", "ready_background"):
        f[f"connections.{key}"] = stat(st, f"connections.{key}")
    f["connect_wait_ms"] = stat(totals, "connect_wait_ms")
    return f


def window_counts(pages, window=RECALL_WINDOW):
    """[ready, needed] per `window` navigations, in page order."""
    rows = []
    for index in sorted(pages):
        w = index // window
        while len(rows) <= w:
            rows.append([0, 0])
        ready, needed = page_connections(pages[index])
        rows[w][0] += ready
        rows[w][1] += needed
    return rows


def recall_windows(pages, window=RECALL_WINDOW):
    """Recall per `window` navigations, in page order: [ready / needed or None]."""
    return [r / n if n else None for r, n in window_counts(pages, window)]


def summed_recall(counts):
    """Recall per window over several seeds' window_counts."""
    total = []
    for rows in counts:
        for w, (r, n) in enumerate(rows):
            while len(total) <= w:
                total.append([0, 0])
            total[w][0] += r
            total[w][1] += n
    return [r / n if n else None for r, n in total]


def ratio(part, whole):
    return part / whole if whole else None


def case_figures(runs):
    """Sums over seeds (a list of run_figures) into the reported figures."""
    s = {}
    for r in runs:
        for k, v in r.items():
            s[k] = s.get(k, 0) + v
    navs = s.get("navs", 0)
    taken = s.get("preresolve.taken", 0) + s.get("preconnect.taken", 0)
    good = sum(s.get(f"{a}.{k}", 0) for a in ("preresolve", "preconnect") for k in ("used", "late"))
    fa_good = s.get("fetch_ahead.used", 0) + s.get("fetch_ahead.late", 0)
    return {
        "navs": navs,
        "saved_ms": round(s.get("saved_ms", 0), 3),
        "saved_per_nav_ms": ratio(s.get("saved_ms", 0), navs),
        "precision_connect": ratio(good, taken),
        "precision_fetch_ahead": ratio(fa_good, s.get("fetch_ahead.taken", 0)),
        "recall": ratio(s.get("connections.ready", 0), s.get("connections.needed", 0)),
        "wasted_connections": s.get("preconnect.wasted", 0),
        "wasted_resolves": s.get("preresolve.wasted", 0),
        "ceiling_ms": round(s.get("ceiling_ms", 0), 3),
        "ceiling_per_nav_ms": ratio(s.get("ceiling_ms", 0), navs),
        "share": ratio(s.get("saved_ms", 0), s.get("ceiling_ms", 0)),
        "sums": s,
    }


def goals(policies, meaningful_ms):
    """The issue's goals for one case (figures by policy), or None when the case has no
    meaningful saving (off's ceiling per navigation below `meaningful_ms`) or no learned run."""
    off, learned = policies.get("off"), policies.get("learned")
    if off is None or learned is None:
        return None
    if (off["ceiling_per_nav_ms"] or 0) < meaningful_ms:
        return None
    out = []
    chrome, loading = policies.get("chrome"), policies.get("loading")
    l_saved = learned["saved_per_nav_ms"] or 0
    if chrome is not None:
        c_saved = chrome["saved_per_nav_ms"] or 0
        met = l_saved >= GOAL_RATIO_CHROME * c_saved and l_saved > 0
        times = f"{l_saved / c_saved:.2f}x" if c_saved > 0 else "n/a (chrome saved nothing)"
        out.append(("learned saves >= 1.3x chrome", met,
                    f"{times}: {l_saved:.1f} vs {c_saved:.1f} ms/nav"))
    if loading is not None:
        o_saved = loading["saved_per_nav_ms"] or 0
        out.append(("learned saves more than loading", l_saved > o_saved,
                    f"{l_saved:.1f} vs {o_saved:.1f} ms/nav"))
    if chrome is not None:
        out.append(("no more wasted connections than chrome",
                    learned["wasted_connections"] <= chrome["wasted_connections"],
                    f"{learned['wasted_connections']} vs {chrome['wasted_connections']}"))
    p = learned["precision_connect"]
    out.append(("preconnect precision >= 0.8", p is not None and p >= GOAL_PRECISION,
                "no action" if p is None else f"{p:.2f}"))
    share = learned["share"] or 0
    out.append(("share of the ceiling >= 60 %", share >= GOAL_SHARE,
                f"{100 * share:.0f} % of {off['ceiling_per_nav_ms']:.1f} ms/nav"))
    return [{"goal": g, "met": m, "numbers": n} for g, m, n in out]


def pct(x):
    return "    -" if x is None else f"{100 * x:5.1f}%"


def ms(x):
    return "      -" if x is None else f"{x:7.1f}"


def log(msg):
    print(f"predictor-bench: {msg}", file=sys.stderr, flush=True)


def run(cmd, err_path):
    with open(err_path, "w") as err:
        return subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=err)


def main():
    ap = argparse.ArgumentParser()
    for name in ("netstack", "work", "report", "seeds", "tuning-seeds", "held-out-seeds",
                 "sources", "presets", "lengths", "events", "policies", "har-dir",
                 "devtools-dir", "json"):
        ap.add_argument("--" + name, default="")
    ap.add_argument("--meaningful-ms", type=float, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("replay_args", nargs="*")
    a = ap.parse_args()
    started = time.monotonic()
    ns, work = a.netstack, a.work
    seeds, presets, lengths = a.seeds.split(), a.presets.split(), [int(n) for n in a.lengths.split()]
    events, sources = a.events.split(), a.sources.split()
    skipped = []

    # Inputs: each recording is tried alone; one that does not load is skipped, with a line.
    inputs = {}
    for source, pattern in (("har", os.path.join(a.har_dir, "*.har")),
                            ("devtools", os.path.join(a.devtools_dir, "*.devtoolslog.json"))):
        if source not in sources:
            continue
        good = []
        for path in sorted(glob.glob(pattern)):
            err = os.path.join(work, "probe.err")
            cmd = [ns, "gen-session", "--har", path, "--pages", "1", "-q",
                   "-o", os.path.join(work, "probe.jsonl")]
            if run(cmd, err) == 0:
                good.append(path)
            else:
                why = open(err).read().strip().splitlines()[:1]
                line = f"{source}: {os.path.basename(path)} skipped: {why[0] if why else 'failed'}"
                log(line)
                skipped.append(line)
        if good:
            inputs[source] = good
        else:
            line = f"{source}: no recording loads from {pattern}: {source} sessions skipped"
            log(line)
            skipped.append(line)
    sources = [s for s in sources if s == "synthetic" or s in inputs]
    if not sources:
        log("nothing to replay")
        return 2

    # Policies: one this netstack rejects is skipped, with a line.
    probe = os.path.join(work, "probe-session.jsonl")
    if run([ns, "gen-session", "--synthetic", "--pages", "2", "-q", "-o", probe],
           os.path.join(work, "probe.err")) != 0:
        log("gen-session --synthetic failed: " + open(os.path.join(work, "probe.err")).read())
        return 1
    policies = []
    for policy in a.policies.split():
        err = os.path.join(work, "probe.err")
        if run([ns, "replay", probe, "--set", f"predictor={policy}", "--quiet"], err) == 0:
            policies.append(policy)
        else:
            why = open(err).read().strip().splitlines()[:1]
            line = f"policy {policy} skipped: {why[0] if why else 'rejected'}"
            log(line)
            skipped.append(line)

    # Sessions, then every replay, --jobs at a time.
    cases, gen_jobs, replay_jobs = [], [], []
    for source in sources:
        for length in lengths:
            for ev in events:
                for seed in seeds:
                    session = os.path.join(work, f"{source}-{length}-{ev}-{seed}.jsonl")
                    cmd = [ns, "gen-session", "--pages", str(length), "--seed", seed, "-q",
                           "-o", session]
                    cmd += ["--synthetic"] if source == "synthetic" else ["--har"] + inputs[source]
                    if ev == "without":
                        cmd.append("--no-user-events")
                    gen_jobs.append((cmd, session))
                    for preset in presets:
                        for policy in policies:
                            out = session[:-len(".jsonl")] + f"-{preset}-{policy}.out.jsonl"
                            replay_jobs.append(([ns, "replay", session, "--preset", preset,
                                                 "--set", f"predictor={policy}", "--seed", seed,
                                                 "--quiet", "--json-pages", "--json", out]
                                                + a.replay_args, out))
                for preset in presets:
                    cases.append((source, preset, length, ev))

    def execute(cmd, out):
        err = out + ".err"
        if run(cmd, err) != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {open(err).read().strip()}")
        return out

    log(f"{len(gen_jobs)} sessions, {len(replay_jobs)} replays, {a.jobs} at a time")
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for f in [pool.submit(execute, cmd, session) for cmd, session in gen_jobs]:
            f.result()
        done = 0
        futures = [pool.submit(execute, cmd, out) for cmd, out in replay_jobs]
        for f in concurrent.futures.as_completed(futures):
            f.result()
            done += 1
            if done % 20 == 0 or done == len(futures):
                log(f"{done}/{len(futures)} replays")

    results = []
    for source, preset, length, ev in cases:
        figures, per_seed, decay = {}, {}, {}
        for seed in seeds:
            base = f"{work}/{source}-{length}-{ev}-{seed}-{preset}"
            off_pages, _ = read_run(f"{base}-off.out.jsonl")
            for policy in policies:
                pages, totals = read_run(f"{base}-{policy}.out.jsonl")
                per_seed.setdefault(policy, []).append(run_figures(off_pages, pages, totals))
                if length >= 2 * RECALL_WINDOW and policy != "off":
                    decay.setdefault(policy, []).append(
                        {"seed": int(seed), "counts": window_counts(pages)})
        for rows in decay.values():
            for r in rows:
                r["recall"] = [c[0] / c[1] if c[1] else None for c in r["counts"]]
        for policy in policies:
            figures[policy] = case_figures(per_seed[policy])
            figures[policy]["seeds"] = [
                {"seed": int(s), "saved_ms": round(r["saved_ms"], 3),
                 "ceiling_ms": round(r["ceiling_ms"], 3)} for s, r in zip(seeds, per_seed[policy])]
        results.append({"source": source, "preset": preset, "length": length, "events": ev,
                        "policies": figures, "goals": goals(figures, a.meaningful_ms),
                        "recall_per_100": decay})
    elapsed = time.monotonic() - started
    # The children's CPU time does not depend on what else runs on the machine: with --jobs N on
    # N idle cores the run takes about cpu / N.
    times = os.times()
    cpu = times.children_user + times.children_system

    label = {"held-out": "held-out seeds", "tuning": "TUNING seeds (not a fair result)",
             "chosen": "chosen seeds", "quick": "--quick: held-out seed"}[a.report]
    print(f"predictor-bench: {label} {' '.join(seeds)}; tuning seeds are {a.tuning_seeds}, "
          f"held out {a.held_out_seeds}")
    print("  sums over the seeds; saved = off's page load minus the policy's, paired page by page; "
          "prec = (used + late) / taken (connect: preconnect + preresolve; fetch: fetch-ahead); "
          "ceiling = off's critical-path connection setup (oracle); share = saved / ceiling")
    print(f"{'case':<36} {'policy':<8} {'navs':>5} {'saved/nav':>9} {'prec conn':>9} "
          f"{'prec fetch':>10} {'recall':>6} {'wasted conn':>11} {'ceiling/nav':>11} {'share':>6}")
    for c in results:
        name = f"{c['source']}/{c['preset']}/{c['length']}/{c['events']}-events"
        for policy, f in c["policies"].items():
            print(f"{name:<36} {policy:<8} {f['navs']:>5} {ms(f['saved_per_nav_ms'])} ms "
                  f"{pct(f['precision_connect']):>9} {pct(f['precision_fetch_ahead']):>10} "
                  f"{pct(f['recall']):>6} {f['wasted_connections']:>11} "
                  f"{ms(f['ceiling_per_nav_ms'])} ms {pct(f['share']):>6}")
    print()
    print(f"goals (learned), on cases with a meaningful saving: off's ceiling >= "
          f"{a.meaningful_ms:g} ms per navigation (what an oracle with every connection ready "
          f"could save); the others are listed as not meaningful")
    met = total = 0
    for c in results:
        name = f"{c['source']}/{c['preset']}/{c['length']}/{c['events']}-events"
        if c["goals"] is None:
            off = c["policies"].get("off", {})
            why = ("no learned run" if "learned" not in c["policies"]
                   else f"ceiling {ms(off.get('ceiling_per_nav_ms')).strip()} ms/nav")
            print(f"  {name:<36} not meaningful ({why})")
            continue
        for g in c["goals"]:
            total += 1
            met += g["met"]
            print(f"  {name:<36} {'met   ' if g['met'] else 'MISSED'} {g['goal']}: {g['numbers']}")
    print(f"  {met} of {total} goals met")
    long_cases = [c for c in results if c["recall_per_100"]]
    if long_cases:
        print()
        print(f"long sessions: recall per {RECALL_WINDOW} navigations, summed over the seeds "
              f"(page lines: connections ready / needed; a falling row is a learning decay; "
              f"seed by seed in --json)")
        for c in long_cases:
            name = f"{c['source']}/{c['preset']}/{c['length']}/{c['events']}-events"
            for policy, rows in c["recall_per_100"].items():
                cells = " ".join(pct(x) for x in summed_recall([r["counts"] for r in rows]))
                print(f"  {name:<36} {policy:<8} {cells}")
    for line in skipped:
        print(f"skipped: {line}")
    print(f"took {elapsed:.0f} s on the wall clock ({len(replay_jobs)} replays, --jobs {a.jobs}); "
          f"{cpu:.0f} s of CPU in netstack (about {cpu / a.jobs:.0f} s on {a.jobs} idle cores)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"report": a.report, "seeds": [int(s) for s in seeds],
                       "meaningful_ms": a.meaningful_ms, "policies": policies,
                       "skipped": skipped, "wall_s": round(elapsed, 1), "cpu_s": round(cpu, 1),
                       "cases": results},
                      f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
