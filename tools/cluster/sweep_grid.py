"""netstack-dask's sweeps: the grid of configurations, and the side-by-side table of results.

The grid is the one `netstack replay --sweep` runs (issue 20's contract): the cartesian product
of the --sweep options, the first varying slowest, point i numbered from 0. Each point's
assignments become `--set KEY=VALUE` options after the user's own, so they apply after
--preset, --config and --set, as the contract says. Standard library only.
"""

import itertools
import json

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


def _summary_line(path):
    last = None
    with open(path) as f:
        for line in f:
            if '"kind":"summary"' in line.replace(" ", ""):
                last = line
    if last is None:
        raise SweepError(f"{path}: no summary line")
    try:
        return json.loads(last)
    except json.JSONDecodeError as e:
        raise SweepError(f"{path}: its summary line is not JSON: {e.msg}") from None


def _figure(summary, *path):
    node = summary
    for p in path:
        if not isinstance(node, dict) or p not in node:
            return ""
        node = node[p]
    return "" if node is None or isinstance(node, (dict, list)) else str(node)


# The table's figures: (column, path in the summary line of --json).
_COLUMNS = [("pages", ("totals", "pages")), ("requests", ("totals", "requests")),
            ("failed", ("totals", "failed")), ("bytes", ("totals", "bytes")),
            ("page_load_median_ms", ("page_load", "median_ms")),
            ("page_load_mean_ms", ("page_load", "mean_ms")),
            ("page_load_p90_ms", ("page_load", "p90_ms"))]


def write_table(points, merged_paths, tsv_path):
    """Writes DIR/sweep.tsv: one row per point (its number, its assignments, its figures).

    points: grid() output; merged_paths: each point's merged --json. Returns the table as
    aligned text for the terminal.
    """
    keys = [k for k, _ in points[0]] if points else []
    header = ["point"] + keys + [c for c, _ in _COLUMNS]
    rows = [header]
    for i, (point, path) in enumerate(zip(points, merged_paths)):
        summary = _summary_line(path)
        rows.append([f"{i:03d}"] + [v for _, v in point] +
                    [_figure(summary, *p) for _, p in _COLUMNS])
    with open(tsv_path, "w") as f:
        for row in rows:
            f.write("\t".join(row) + "\n")
    widths = [max(len(r[c]) for r in rows) for c in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()
                     for r in rows) + "\n"
