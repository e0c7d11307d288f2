"""The lab measurements' comparisons, on plain values: a live load's HAR against its replay's
HAR (every phase of every request, the page load), and pages loaded by a browser against their
replays (page-load MAPE, Spearman across pages, request end times, connections opened).

Pure functions over parsed HAR JSON and lists of numbers: tests/lab_measure/lab_compare_test.py
checks them on fixed inputs; tools/bench/lab-vs-replay and lab-accuracy use them. Standard
library only (Debian's /usr/bin/python3).
"""

import json
import statistics

# "response" is wait + receive: the first byte a client sees depends on how the server frames
# the response (a TLS record of up to 16 KB must arrive whole before any of it is readable), the
# response's end does not.
PHASES = ("dns", "connect", "ssl", "wait", "receive", "response")
MAX_HAR_BYTES = 512 << 20  # as the replay's HAR reader


class HarError(Exception):
    """A HAR this module cannot use; str() is one line naming the file and what is wrong."""


def read_har(path):
    """The JSON of the HAR at `path`, bounded; HarError with one line when it does not read."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_HAR_BYTES + 1)
    except OSError as e:
        raise HarError("%s: cannot open: %s" % (path, e.strerror)) from None
    if len(data) > MAX_HAR_BYTES:
        raise HarError("%s: larger than %d bytes" % (path, MAX_HAR_BYTES))
    try:
        har = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise HarError("%s: not JSON: %s" % (path, str(e).splitlines()[0])) from None
    if not isinstance(har, dict) or not isinstance(har.get("log"), dict):
        raise HarError("%s: not a HAR (no \"log\" object)" % path)
    return har


def _num(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else -1.0


def _epoch_ms(text):
    """ISO 8601 as HAR writers write it, to ms since the epoch; None when it does not parse."""
    import datetime

    if not isinstance(text, str):
        return None
    t = text.replace("Z", "+00:00")
    try:
        return datetime.datetime.fromisoformat(t).timestamp() * 1000.0
    except ValueError:
        return None


def entry_phases(entry):
    """One HAR entry's phases in ms: dns (with blocked, on a request that opens a connection),
    connect (TCP only: HAR's connect includes TLS),
    ssl, wait, receive, response (wait + receive); a phase the entry does not have (HAR's -1)
    is None."""
    t = entry.get("timings") if isinstance(entry.get("timings"), dict) else {}
    dns, connect, ssl = _num(t.get("dns")), _num(t.get("connect")), _num(t.get("ssl"))
    blocked = max(_num(t.get("blocked")), 0.0)
    out = {
        # A request that opens a connection waits for its host's address in "blocked" when
        # the lookup was started for it before it was issued (netstack's HAR, live and
        # replayed, shows dns 0 then): its dns is both.
        "dns": (dns + blocked if connect >= 0 else dns) if dns >= 0 else None,
        "connect": None,
        "ssl": ssl if ssl >= 0 else None,
        "wait": _num(t.get("wait")) if _num(t.get("wait")) >= 0 else None,
        "receive": _num(t.get("receive")) if _num(t.get("receive")) >= 0 else None,
    }
    if connect >= 0:
        out["connect"] = connect - ssl if ssl >= 0 else connect
    if out["wait"] is not None and out["receive"] is not None:
        out["response"] = out["wait"] + out["receive"]
    else:
        out["response"] = None
    return out


def har_pages(har):
    """Each page of a HAR as {"id", "onload", "lead", "entries": [{"url", "start", "end",
    "phases", "bytes", "new_connection"}]}, times in ms after the page's first request started, entries in
    start order. "onload" is pageTimings.onLoad when >= 0 (after the page's startedDateTime),
    else None; "lead" is how long after startedDateTime the first request started."""
    log = har["log"]
    pages = {}
    order = []
    for p in log.get("pages") or []:
        if isinstance(p, dict) and "id" in p:
            timings = p.get("pageTimings") if isinstance(p.get("pageTimings"), dict) else {}
            onload = _num(timings.get("onLoad"))
            pages[p["id"]] = {"id": p["id"], "onload": onload if onload >= 0 else None,
                              "entries": [], "start": _epoch_ms(p.get("startedDateTime"))}
            order.append(p["id"])
    for e in log.get("entries") or []:
        if not isinstance(e, dict):
            continue
        ref = e.get("pageref", "")
        if ref not in pages:
            pages[ref] = {"id": ref, "onload": None, "entries": [], "start": None}
            order.append(ref)
        start = _epoch_ms(e.get("startedDateTime"))
        url = (e.get("request") or {}).get("url", "")
        ph = entry_phases(e)
        response = e.get("response") if isinstance(e.get("response"), dict) else {}
        pages[ref]["entries"].append({"url": url, "abs_start": start, "time": _num(e.get("time")),
                                      "phases": ph, "bytes": _num(response.get("bodySize")),
                                      "new_connection": ph["connect"] is not None})
    out = []
    for pid in order:
        page = pages[pid]
        starts = [x["abs_start"] for x in page["entries"] if x["abs_start"] is not None]
        origin = min(starts) if starts else 0.0
        if page["start"] is not None and starts:
            origin = min(origin, page["start"])
        # A browser's page starts at the navigation, its first request a little later (18 ms
        # for a headless Chromium here): page loads count from the first request, as a replay's.
        page["lead"] = (min(starts) - origin) if starts else 0.0
        origin = min(starts) if starts else 0.0
        for x in page["entries"]:
            x["start"] = (x["abs_start"] - origin) if x["abs_start"] is not None else 0.0
            x["end"] = x["start"] + max(x["time"], 0.0)
        page["entries"].sort(key=lambda x: x["start"])
        out.append(page)
    return out


def page_load(page):
    """onLoad when the page has one, else the last request's end: ms after the page's first
    request started (onLoad counts from the navigation: its lead before that request is taken
    out)."""
    if page["onload"] is not None:
        return max(page["onload"] - page.get("lead", 0.0), 0.0)
    return max((x["end"] for x in page["entries"]), default=0.0)


def match_entries(a, b):
    """Pairs of entries of two loads of one page, by URL (the n-th request of a URL with the
    n-th of the other). Unmatched entries are left out; returns (pairs, only_a, only_b)."""
    by_url = {}
    for x in b["entries"]:
        by_url.setdefault(x["url"], []).append(x)
    pairs, only_a = [], 0
    for x in a["entries"]:
        queue = by_url.get(x["url"])
        if queue:
            pairs.append((x, queue.pop(0)))
        else:
            only_a += 1
    only_b = sum(len(q) for q in by_url.values())
    return pairs, only_a, only_b


def phase_pairs(live_page, replay_page):
    """{phase: [(live ms, replayed ms), ...]} over the requests both loads made, where both
    have the phase (a reused connection has no dns/connect/ssl)."""
    pairs, _, _ = match_entries(live_page, replay_page)
    out = {p: [] for p in PHASES}
    for live, rep in pairs:
        for p in PHASES:
            if live["phases"][p] is not None and rep["phases"][p] is not None:
                out[p].append((live["phases"][p], rep["phases"][p]))
    return out


def phase_summary(pairs, pct_goal=5.0, ms_goal=2.0):
    """For [(live, replayed)]: the count, medians of live and replayed, the median absolute error
    (ms), the median absolute percentage error (over live > 0), and whether the median error is
    within the goal (pct_goal % of the live median, or ms_goal ms). Empty input: count 0."""
    if not pairs:
        return {"count": 0}
    errors = [abs(r - l) for l, r in pairs]
    pct = [abs(r - l) / l * 100.0 for l, r in pairs if l > 0]
    live_median = statistics.median(l for l, _ in pairs)
    mae = statistics.median(errors)
    return {
        "count": len(pairs),
        "live_median_ms": live_median,
        "replay_median_ms": statistics.median(r for _, r in pairs),
        "median_abs_error_ms": mae,
        "median_ape_pct": statistics.median(pct) if pct else None,
        "goal_met": mae <= ms_goal or (live_median > 0 and mae / live_median * 100 <= pct_goal),
    }


def error_causes(live_page, replay_page, record_bytes=16384):
    """The errors split by what the evidence says causes them: {"idle_dns", "idle_wait": [live -
    replayed] of the page's first request (the link idle, the server's think time and one RTT
    known), "idle_connect", "busy_connect",
    "idle_ssl", "busy_ssl": [live - replayed] of TCP connect and TLS on the page's first
    connection (an idle link) and on later ones (opened while other responses fill the link's
    queue); "small_receive", "large_receive": [(live, replayed)] receive of bodies that fit in
    one TLS record of `record_bytes` (nginx's ssl_buffer_size, 16 KB: the client reads none of
    it before all of it has arrived) and of larger ones}."""
    out = {k: [] for k in ("idle_dns", "idle_connect", "busy_connect", "idle_ssl", "busy_ssl",
                           "idle_wait", "small_receive", "large_receive")}
    pairs, _, _ = match_entries(live_page, replay_page)
    for live, rep in pairs:
        a, b = live["phases"], rep["phases"]
        if live["start"] < 1.0:
            for phase in ("dns", "wait"):
                if a[phase] is not None and b[phase] is not None:
                    out["idle_" + phase].append(a[phase] - b[phase])
        if a["connect"] is not None and b["connect"] is not None:
            when = "idle" if live["start"] < 1.0 else "busy"
            out[when + "_connect"].append(a["connect"] - b["connect"])
            if a["ssl"] is not None and b["ssl"] is not None:
                out[when + "_ssl"].append(a["ssl"] - b["ssl"])
        if a["receive"] is not None and b["receive"] is not None and live["bytes"] >= 0:
            key = "small_receive" if live["bytes"] <= record_bytes else "large_receive"
            out[key].append((a["receive"], b["receive"]))
    return out


def ape(actual, predicted):
    """Absolute percentage error of `predicted` against `actual` (> 0), in %."""
    return abs(predicted - actual) / actual * 100.0


def mape(actuals, predicted):
    """Mean absolute percentage error over pairs with actual > 0; None when there are none."""
    values = [ape(a, p) for a, p in zip(actuals, predicted) if a > 0]
    return sum(values) / len(values) if values else None


def _ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(xs, ys):
    """Spearman's rank correlation (ties get their average rank); None with fewer than 2
    pairs or when either side is constant."""
    if len(xs) != len(ys) or len(xs) < 2:
        return None
    rx, ry = _ranks(list(xs)), _ranks(list(ys))
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / (sxx * syy) ** 0.5


def compare_loads(live_page, replay_page):
    """One page: the page load of both, its APE, per phase the (live, replayed) pairs, the
    request end times' median APE, connections opened by each, unmatched requests."""
    pairs, only_live, only_replay = match_entries(live_page, replay_page)
    end_ape = [ape(l["end"], r["end"]) for l, r in pairs if l["end"] > 0]
    live_load, replay_load = page_load(live_page), page_load(replay_page)
    return {
        "live_load_ms": live_load,
        "replay_load_ms": replay_load,
        "load_ape_pct": ape(live_load, replay_load) if live_load > 0 else None,
        "phases": phase_pairs(live_page, replay_page),
        "causes": error_causes(live_page, replay_page),
        "request_end_median_ape_pct": statistics.median(end_ape) if end_ape else None,
        "live_connections": sum(1 for x in live_page["entries"] if x["new_connection"]),
        "replay_connections": sum(1 for x in replay_page["entries"] if x["new_connection"]),
        "requests": len(pairs),
        "only_live": only_live,
        "only_replay": only_replay,
    }


def link_throughput_kbps(goodput_bps, mss=1448, mtu=1500):
    """TCP goodput (payload bits/s) as the link's rate in kbit/s: each MSS of payload costs an
    MTU on the link (IP and TCP headers with timestamps: 52 of 1500 bytes)."""
    return goodput_bps * mtu / mss / 1000.0
