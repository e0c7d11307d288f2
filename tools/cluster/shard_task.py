"""One shard of a replay, run on a Dask worker: `netstack replay --shard I/N --json FILE --quiet`.

run_shard() is what the driver submits. It runs the netstack binary with subprocess, and returns
the shard file's bytes and what the run cost (CPU, peak RSS of the netstack process), so no
shared file system is needed for the outputs: only the binary and the traces must be at the
same paths on every worker (docs/cluster.md). It raises ShardFailed when netstack fails, times
out or writes more than the bound, so that Dask's `retries=` runs it again.

The driver pickles this module by value (cloudpickle), so the workers need only Python and
python3-distributed, not this file. Standard library only.
"""

import ctypes
import os
import signal
import subprocess
import tempfile
import time

# How much of netstack's stderr is kept to report a failure: its last line is what the driver
# prints, so a few KiB is plenty, and a runaway stderr cannot fill the worker's memory.
_STDERR_TAIL_BYTES = 4096

# Test-only knob (tests/cluster): "I:DIR" makes shard I's first attempt (the first worker to
# create DIR/hold-I.pid) write its worker's pid there and sleep up to _HOLD_SECONDS before
# running, so a test can kill that worker mid-shard. Armed only while DIR exists, so one set of
# workers serves tests with and without it. Unset in every real run.
_HOLD_ENV = "NETSTACK_DASK_TEST_HOLD"
_HOLD_SECONDS = 60


class ShardFailed(Exception):
    """A shard's attempt failed; str() is one line: the exit status and stderr's last line."""


def _die_with_parent():
    """In the netstack child: SIGKILL it when the worker thread that started it dies, so a
    killed worker leaves no orphan replay behind (Linux's PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _hold_for_test(index):
    spec = os.environ.get(_HOLD_ENV, "")
    want, _, folder = spec.partition(":")
    if not folder or want != str(index):
        return
    try:
        fd = os.open(os.path.join(folder, f"hold-{index}.pid"),
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return  # not the first attempt: run normally
    except FileNotFoundError:
        return  # not armed
    with os.fdopen(fd, "w") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(_HOLD_SECONDS)


def _last_line(path):
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - _STDERR_TAIL_BYTES))
        tail = f.read().decode("utf-8", "replace")
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(no message)"


def run_shard(netstack, index, count, shard_options, traces, page_lines_only, timeout_s,
              max_bytes):
    """Runs shard index/count of traces and returns (shard file bytes, stats).

    netstack: the binary's path on the worker. shard_options: replay options for every shard.
    traces: the whole list (the shard picks its own by position). page_lines_only: add
    --json-pages (no request lines). timeout_s: one attempt's bound; the replay is killed past
    it. max_bytes: the largest shard file returned.
    stats: {"cpu_s", "peak_rss_kib", "wall_s", "host", "pid"} of this attempt's netstack.
    Raises ShardFailed for a non-zero exit, a signal, a timeout or an oversized shard file.
    """
    _hold_for_test(index)
    fd, out_path = tempfile.mkstemp(prefix=f"netstack-shard-{index}-", suffix=".jsonl")
    os.close(fd)
    err_fd, err_path = tempfile.mkstemp(prefix=f"netstack-shard-{index}-", suffix=".stderr")
    argv = [netstack, "replay", "--shard", f"{index}/{count}", "--json", out_path, "--quiet"]
    if page_lines_only:
        argv.append("--json-pages")
    argv += list(shard_options) + ["--"] + list(traces)
    started = time.monotonic()
    try:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=err_fd, preexec_fn=_die_with_parent)
        except OSError as e:
            raise ShardFailed(f"cannot run {netstack}: {e.strerror}") from None
        deadline = started + timeout_s
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                raise ShardFailed(f"timed out after {timeout_s:g} s (--shard-timeout)")
            time.sleep(0.05)
        proc.returncode = 0  # reaped above; keeps Popen from waiting again
        if os.WIFSIGNALED(status):
            raise ShardFailed(f"killed by signal {os.WTERMSIG(status)}: {_last_line(err_path)}")
        code = os.WEXITSTATUS(status)
        if code != 0:
            raise ShardFailed(f"exit {code}: {_last_line(err_path)}")
        size = os.path.getsize(out_path)
        if size > max_bytes:
            raise ShardFailed(f"its shard file is {size / 1048576:.0f} MiB, over the "
                              f"{max_bytes / 1048576:.0f} MiB a task returns (--max-shard-mib; "
                              "or more --shards)")
        with open(out_path, "rb") as f:
            data = f.read()
        stats = {"cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_kib": usage.ru_maxrss,
                 "wall_s": time.monotonic() - started, "host": os.uname().nodename,
                 "pid": os.getpid()}
        return data, stats
    finally:
        os.close(err_fd)
        for path in (out_path, err_path):
            try:
                os.unlink(path)
            except OSError:
                pass
