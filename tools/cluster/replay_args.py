"""The replay options and traces given to netstack-dask after `--`, sorted by where they go.

Every shard task runs `netstack replay` with the options that decide what is simulated (--set,
--config, --preset, --estimate, --seed, --compare); `netstack merge` gets the ones that decide
what is written from the merged shards (--report, --har, --summary-pages, --quiet). Options
that make no sense per shard (--netlog, --internals, --jobs, --shard, --progress, the sweep's)
are refused here, before anything runs, with a one-line message, so that a bad command never
starts a cluster.

Paths are made absolute: a task runs on a worker whose working directory is not the driver's.
Standard library only.
"""

import os

# Replay options by the number of values they take (tools/netstack/replay_options.cc and
# issue 20's contract). An option not listed here is an error: the driver must know where it goes.
_SHARD_VALUE = {"--set", "--config", "--preset", "--seed"}
_SHARD_FLAG = {"--estimate"}
_MERGE_VALUE = {"--report", "--har", "--summary-pages"}
_MERGE_FLAG = {"--quiet"}
_IGNORED_FLAG = {"--json-pages"}  # the shards' default already
_REFUSED = {
    "--json": "the merged results go to DIR/merged.jsonl (--requests keeps request lines)",
    "--netlog": "a NetLog is one stack's; replay one trace locally for it",
    "--internals": "the internals page serves one local stack; replay locally for it",
    "--jobs": "each shard is one task on one core; use more --shards or --workers",
    "--shard": "the driver chooses the shards (--shards N)",
    "--progress": "the driver prints a line per finished shard",
    "--sweep": "give --sweep to netstack-dask, before the --",
    "--sweep-dir": "the driver writes each point under DIR",
}
_TAKES_VALUE = _SHARD_VALUE | _MERGE_VALUE | {"--json", "--netlog", "--internals", "--jobs",
                                             "--shard", "--sweep", "--sweep-dir"}


class UsageError(Exception):
    """A replay option or trace the driver cannot run; str() is the one-line message."""


class ReplayArgs:
    """The parsed replay part of a netstack-dask command.

    shard_options: options every `netstack replay --shard` task gets, in the given order.
    merge_options: options `netstack merge` gets (output paths absolute).
    traces: the trace paths, absolute, in the given order (their positions define the shards).
    wants_requests: whether an output needs the request lines (--report, --har).
    """

    def __init__(self):
        self.shard_options = []
        self.merge_options = []
        self.traces = []
        self.wants_requests = False


def _absolute_spec(spec):
    """A --compare spec made absolute when it names a file, else unchanged (a preset, k=v,...)."""
    return os.path.abspath(spec) if os.path.isfile(spec) else spec


def parse(argv):
    """Sorts argv (everything after netstack-dask's `--`) into a ReplayArgs.

    Accepts `--opt VALUE` and `--opt=VALUE`; a second `--` makes every later word a trace.
    Raises UsageError naming the option or trace that cannot be run through the driver.
    """
    out = ReplayArgs()
    i = 0
    only_traces = False
    while i < len(argv):
        word = argv[i]
        i += 1
        if only_traces or word == "-" or not word.startswith("-"):
            if word == "-":
                raise UsageError("trace '-': a shard runs on a worker, which cannot read the "
                                 "driver's stdin; give files")
            if word == "":
                raise UsageError("an empty trace name")
            out.traces.append(os.path.abspath(word))
            continue
        if word == "--":
            only_traces = True
            continue
        name, eq, inline = word.partition("=")
        if name in _REFUSED:
            raise UsageError(f"{name} cannot be used with netstack-dask: {_REFUSED[name]}")
        if name == "--compare":
            if eq:
                raise UsageError("--compare takes two words: --compare A B")
            if i + 2 > len(argv):
                raise UsageError("--compare needs two config specs: --compare A B")
            out.shard_options += [name, _absolute_spec(argv[i]), _absolute_spec(argv[i + 1])]
            i += 2
            continue
        if name in _SHARD_FLAG or name in _MERGE_FLAG or name in _IGNORED_FLAG:
            if eq:
                raise UsageError(f"{name} takes no value")
            if name in _SHARD_FLAG:
                out.shard_options.append(name)
            elif name in _MERGE_FLAG:
                out.merge_options.append(name)
            continue
        if name not in _TAKES_VALUE:
            raise UsageError(f"unknown replay option '{name[:64]}' (netstack-dask knows the "
                             "options of docs/replay.md)")
        if eq:
            value = inline
        elif i < len(argv):
            value = argv[i]
            i += 1
        else:
            raise UsageError(f"{name} needs a value")
        if name in ("--config", "--report", "--har"):
            if value == "" or value == "-":
                raise UsageError(f"{name}: give a file name, not '{value}'")
            value = os.path.abspath(value)
        if name in _SHARD_VALUE:
            out.shard_options += [name, value]
        else:
            out.merge_options += [name, value]
            if name in ("--report", "--har"):
                out.wants_requests = True
    if not out.traces:
        raise UsageError("no traces: give them after --, e.g. netstack-dask --out DIR -- a.har "
                         "b.jsonl")
    return out
