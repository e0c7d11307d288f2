"""netstack-dask's sweeps: the grid of configurations, and the side-by-side table of results.

The grid is the one `netstack replay --sweep` runs (issue 20's contract): the cartesian product
of the --sweep options, the first varying slowest, point i numbered from 0. Each point's
assignments become `--set KEY=VALUE` options after the user's own, so they apply after
--preset, --config and --set, as the contract says. Standard library only.
"""

import itertools
import json
import math
import os

# Bounds: a grid is run as points x shards tasks at once, so it must stay small.
MAX_VALUES = 1000
MAX_POINTS = 1000


class SweepError(Exception):
    """A bad --sweep option or an unreadable point; str() is the one-line message."""


def parse_axis(text):
    """'KEY=V1,V2,...' -> (KEY, [V1, V2, ...]). Raises SweepError naming what is wrong."""
    key, eq, values = text.partition("=")
    shown = text[:64]
    if not eq or not key:
        raise SweepError(f"--sweep '{shown}': want KEY=V1,V2,...")
    if any(c.isspace() for c in key):
        raise SweepError(f"--sweep '{shown}': the key has a space")
    items = values.split(",")
    if any(v == "" for v in items):
        raise SweepError(f"--sweep '{shown}': an empty value")
    if len(items) > MAX_VALUES:
        raise SweepError(f"--sweep '{shown}': {len(items)} values, at most {MAX_VALUES}")
    if len(set(items)) != len(items):
        raise SweepError(f"--sweep '{shown}': a value given twice")
    return key, items


def grid(axes):
    """The points of axes [(KEY, [values])]: a list of [(KEY, VALUE), ...], first axis slowest.

    No axes: one point with no assignments (a plain run). Raises SweepError past MAX_POINTS or
    when a key is swept twice.
    """
    keys = [k for k, _ in axes]
    for k in keys:
        if keys.count(k) > 1:
            raise SweepError(f"--sweep: the key '{k[:64]}' is swept twice")
    total = 1
    for _, values in axes:
        total *= len(values)
    if total > MAX_POINTS:
        raise SweepError(f"--sweep: {total} points, at most {MAX_POINTS}")
    return [list(zip(keys, combo)) for combo in itertools.product(*(v for _, v in axes))]


# The longest summary line read (it carries every trace's configuration), as replay's own.
MAX_SUMMARY_BYTES = 256 << 20


def _summary_line(path):
    """The last line of a --json file (its summary line), parsed; read from the end."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        end = f.tell()
        tail = b""
        while end > 0 and tail.count(b"\n") < 2 and len(tail) <= MAX_SUMMARY_BYTES:
            step = min(end, 65536)
            end -= step
            f.seek(end)
            tail = f.read(step) + tail
    if len(tail.rstrip(b"\n")) > MAX_SUMMARY_BYTES + 65536:
        raise SweepError(f"{path}: its last line is longer than 256 MiB")
    lines = tail.rstrip(b"\n").split(b"\n")
    try:
        summary = json.loads(lines[-1])
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise SweepError(f"{path}: its last line is not JSON (the merge did not finish)") \
            from None
    if not isinstance(summary, dict) or summary.get("kind") != "summary":
        raise SweepError(f"{path}: its last line is not a summary line")
    return summary


def _get(summary, path, kind, where):
    node = summary
    for p in path:
        if not isinstance(node, dict) or p not in node:
            raise SweepError(f"{where}: its summary line has no {'.'.join(path)}")
        node = node[p]
    if kind is str and not isinstance(node, str) or kind is not str and (
            isinstance(node, bool) or not isinstance(node, (int, float))):
        raise SweepError(f"{where}: its summary line's {'.'.join(path)} is not a "
                         f"{'string' if kind is str else 'number'}")
    return node


def _round_ms(ms):
    """net/base/time.h's RoundMsForJson: to the microsecond, halves away from zero."""
    return math.copysign(math.floor(abs(ms) * 1000.0 + 0.5), ms) / 1000.0


def _number(v):
    """A number as `netstack replay --sweep`'s sweep.tsv writes it: JSON's shortest text."""
    return json.dumps(v)


def _row(point, values, summary, file, first_median):
    """One point's figures, as `netstack replay --sweep` takes them from a summary line."""
    g = lambda kind, *path: _get(summary, path, kind, file)  # noqa: E731
    pages, requests = g(int, "totals", "pages"), g(int, "totals", "requests")
    median = g(float, "page_load", "median_ms")
    wait = g(float, "totals", "connect_wait_ms")
    policy = g(str, "totals", "predictor", "policy")
    used = wasted = 0
    for action in ("preresolve", "preconnect", "fetch_ahead"):
        used += g(int, "totals", "predictor", "stats", action, "used")
        wasted += g(int, "totals", "predictor", "stats", action, "wasted")
    ratio = None if first_median is None or first_median <= 0 else \
        round(median / first_median * 1e6) / 1e6
    return {"point": point, "values": values, "files": [file], "pages": pages,
            "requests": requests,
            "page_load": {"median_ms": median, "p90_ms": g(float, "page_load", "p90_ms"),
                          "mean_ms": g(float, "page_load", "mean_ms"),
                          "metric": g(str, "page_load", "metric")},
            "connect_wait_ms": wait,
            "connect_wait_ms_per_page": _round_ms(wait / pages) if pages else None,
            "cache_hits": g(int, "totals", "cache", "hits"),
            "predictor": None if policy == "off" else {"policy": policy, "used": used,
                                                       "wasted": wasted},
            "median_ratio": ratio}


def write_table(points, merged_paths, out_dir):
    """Writes out_dir/sweep.tsv and sweep.json in `netstack replay --sweep`'s formats
    (docs/replay.md, "Sweeps"), one row per point, from each point's merged --json summary
    line. merged_paths are relative to out_dir. Returns the table as aligned terminal text.
    """
    keys = [k for k, _ in points[0]] if points else []
    summaries = [_summary_line(os.path.join(out_dir, path)) for path in merged_paths]
    first = _get(summaries[0], ("page_load", "median_ms"), float, merged_paths[0]) \
        if summaries else None
    rows = [_row(i, [v for _, v in point], summary, path, first)
            for i, (point, summary, path) in enumerate(zip(points, summaries, merged_paths))]
    header = (["point"] + keys + ["pages", "requests", "page_load_median_ms", "page_load_p90_ms",
                                  "page_load_mean_ms", "page_load_metric",
                                  "connect_wait_ms_per_page", "cache_hits", "predictor",
                                  "predictor_used", "predictor_wasted", "median_ratio", "file"])
    table = [header]
    for r in rows:
        pred = r["predictor"]
        wait, ratio = r["connect_wait_ms_per_page"], r["median_ratio"]
        table.append([str(r["point"])] + r["values"] + [
            str(r["pages"]), str(r["requests"]), _number(r["page_load"]["median_ms"]),
            _number(r["page_load"]["p90_ms"]), _number(r["page_load"]["mean_ms"]),
            r["page_load"]["metric"], "" if wait is None else _number(wait),
            str(r["cache_hits"]), pred["policy"] if pred else "off",
            str(pred["used"]) if pred else "", str(pred["wasted"]) if pred else "",
            "" if ratio is None else _number(ratio), r["files"][0]])
    with open(os.path.join(out_dir, "sweep.tsv"), "w") as f:
        for line in table:
            f.write("\t".join(line) + "\n")
    for r in rows:
        r["set"] = [f"{k}={v}" for k, v in zip(keys, r["values"])]
    with open(os.path.join(out_dir, "sweep.json"), "w") as f:
        json.dump({"kind": "sweep", "keys": keys, "points": rows}, f)
        f.write("\n")
    widths = [max(len(line[c]) for line in table) for c in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
                     for line in table) + "\n"
