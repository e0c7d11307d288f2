"""The benchmark suite's JSON format: one section per benchmark, figures with raw samples.

Every benchmark script in tools/bench writes one section with `--suite-json FILE`;
`tools/bench/run` collects the sections into one file, and `tools/bench/compare` compares two
such files figure by figure. The format (version 1) is described in tools/bench/README.md
("The suite's JSON"). Standard library only, so the scripts run under any python3.

A figure is one quantity netstack is judged on, with every sample measured (one per round) so
that a later comparison can test significance, the median, and, where a peer was measured in
the same run, the peer's samples and the ratio netstack / peer of the medians.
"""

import json
import math
import statistics

FORMAT_VERSION = 1


def median(samples):
    """The median of a non-empty list of numbers (the mean of the middle two for even n)."""
    if not samples:
        raise ValueError("median of no samples")
    return statistics.median(samples)


def figure(fid, what, unit, better, samples, peers=None, goal=None):
    """Builds one figure.

    fid: a stable dotted id ("fetch.sequential.time"); compare matches figures by it.
    what: one line saying what was measured, for the table.
    unit: "ms", "us", "ns", "req/cpu-s", "qps", "MiB", ...
    better: "lower" or "higher": which direction is an improvement.
    samples: netstack's samples, one per round (numbers).
    peers: {peer name: samples} measured in the same run, or None.
    goal: {"text": str, "on": "median" | "ratio:<peer>", "max" or "min": number}, or None;
      the figure records whether the median (or the ratio to that peer) meets it. Or a list of
      such goals (a figure judged against two peers): each gets its own "met", and "goal_met"
      is whether all are met.
    """
    if better not in ("lower", "higher"):
        raise ValueError(f"figure {fid}: better must be 'lower' or 'higher', not {better!r}")
    samples = [float(s) for s in samples]
    out = {"id": fid, "what": what, "unit": unit, "better": better, "samples": samples,
           "median": median(samples)}
    if peers:
        out["peers"] = {}
        out["ratios"] = {}
        for name, peer_samples in peers.items():
            peer_samples = [float(s) for s in peer_samples]
            peer_median = median(peer_samples)
            out["peers"][name] = {"samples": peer_samples, "median": peer_median}
            out["ratios"][name] = (out["median"] / peer_median) if peer_median else math.nan
    if isinstance(goal, (list, tuple)):
        out["goal"] = [dict(g, met=goal_met(out, g)) for g in goal]
        out["goal_met"] = all(g["met"] for g in out["goal"])
    elif goal:
        out["goal"] = dict(goal)
        out["goal_met"] = goal_met(out, goal)
    return out


def goal_met(fig, goal):
    """Whether a figure's median (or its ratio to a peer) meets goal's max/min bound."""
    on = goal.get("on", "median")
    if on == "median":
        value = fig["median"]
    elif on.startswith("ratio:"):
        value = fig.get("ratios", {}).get(on[len("ratio:"):])
        if value is None:
            return False
    else:
        raise ValueError(f"figure {fig['id']}: goal 'on' must be median or ratio:PEER, not {on!r}")
    if "max" in goal and not value <= goal["max"]:
        return False
    if "min" in goal and not value >= goal["min"]:
        return False
    return True


def write_section(path, name, command, figures, config=None, notes=None):
    """Writes one benchmark's section to path (the file --suite-json names).

    name: the benchmark ("fetch", "dns", "replay", "cache", "memory", "startup").
    command: the command line that reproduces it.
    figures: a list of figure() results.
    config: the parameters (counts, rounds, versions of peers), free-form.
    notes: lines worth keeping next to the figures (how many sockets were reused, ...).
    """
    section = {"format": FORMAT_VERSION, "name": name, "command": command,
               "config": config or {}, "figures": figures, "notes": notes or []}
    with open(path, "w") as f:
        json.dump(section, f, indent=1)
        f.write("\n")


def load(path):
    """Reads a suite file or a single section; returns the list of sections.

    Raises ValueError with the file name and what is wrong for anything that is not this format.
    """
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise ValueError(f"{path}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: not a benchmark suite file (top level is not an object)")
    sections = doc.get("benchmarks") if "benchmarks" in doc else [doc]
    if not isinstance(sections, list):
        raise ValueError(f"{path}: 'benchmarks' is not a list")
    for i, s in enumerate(sections):
        if not isinstance(s, dict) or not isinstance(s.get("figures"), list):
            raise ValueError(f"{path}: benchmark {i} has no 'figures' list")
        if s.get("format") != FORMAT_VERSION:
            raise ValueError(f"{path}: benchmark {s.get('name', i)}: format "
                             f"{s.get('format')!r}, this tool reads {FORMAT_VERSION}")
        for j, fig in enumerate(s["figures"]):
            if not isinstance(fig, dict) or not isinstance(fig.get("id"), str):
                raise ValueError(f"{path}: benchmark {s.get('name', i)}: figure {j} has no id")
            samples = fig.get("samples")
            if (not isinstance(samples, list) or not samples or
                    not all(isinstance(x, (int, float)) for x in samples)):
                raise ValueError(f"{path}: figure {fig['id']}: 'samples' must be a non-empty "
                                 "list of numbers")
    return sections
