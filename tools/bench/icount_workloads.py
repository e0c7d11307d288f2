"""icount's workloads: the programs tools/bench/icount runs under callgrind, the local servers
they need (nginx, dnsmasq, nghttpd, each started here on a free port and stopped at the end),
and how each turns callgrind's totals into instructions per unit of work. The gate (baseline,
--check, --update) is in tools/bench/icount; its comment lists the workloads.
"""

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = ["replay", "hars", "cache", "fetch", "startup", "dns", "h2"]


class IcountError(Exception):
    """A one-line error: bad usage, a missing program, a fixture or a run that failed."""


# ---- callgrind -------------------------------------------------------------------------------


def parse_callgrind(path):
    """Totals of a callgrind output file: {"Ir": N, "sysCount": N, ...}."""
    events, totals = None, None
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("events:"):
                    events = line.split()[1:]
                elif line.startswith("totals:") or (line.startswith("summary:") and not totals):
                    totals = [int(x) for x in line.split()[1:]]
    except OSError as e:
        raise IcountError(f"cannot read callgrind output {path}: {e.strerror}")
    if not events or not totals:
        raise IcountError(f"{path}: no events/totals line (not a callgrind output file)")
    return dict(zip(events, totals))


def inclusive_costs(path, functions):
    """Callgrind's inclusive Ir of each function whose name contains one of `functions`,
    summed over every thread (callgrind_annotate --inclusive=yes). Only the function table
    counts: --auto=no keeps out the annotated source, whose call-site lines ("=> ...") would add
    the same cost again. And it runs in an empty directory: the debug information names some
    files relative to the build ("build/../tools/..."), and where such a name resolves from
    callgrind_annotate's working directory it lists the function a second time under it."""
    with tempfile.TemporaryDirectory(prefix="netstack-icount-annotate.") as empty:
        out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                              "--auto=no", os.path.abspath(path)],
                             capture_output=True, text=True, cwd=empty)
    if out.returncode != 0:
        raise IcountError(f"callgrind_annotate {path} failed: {out.stderr.strip()[-200:]}")
    found = {name: 0 for name in functions}
    row = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(?:\S+:)?(.*?)(?:\s+\[[^\]]*\])?\s*$")
    for line in out.stdout.splitlines():
        m = row.match(line)
        if not m:
            continue
        for name in functions:
            # The exact function (its signature follows the name), not a lambda inside it.
            sym = m.group(2)
            if sym.startswith("=>"):
                continue  # a call site, not the function's own row
            if sym.startswith(name + "(") or (":" + name + "(") in sym:
                found[name] += int(m.group(1).replace(",", ""))
    return found


class Runner:
    """Runs programs under callgrind in a work directory."""

    def __init__(self, work, verbose):
        self.work = work
        self.verbose = verbose
        self.serial = 0

    def run(self, argv, env=None, callgrind_args=(), timeout=900):
        """Runs argv under callgrind; returns (totals, stdout, callgrind output path)."""
        self.serial += 1
        out = os.path.join(self.work, f"callgrind.{self.serial}.out")
        cmd = ["valgrind", "--tool=callgrind", "-q", f"--callgrind-out-file={out}",
               "--collect-systime=yes", *callgrind_args, *argv]
        if self.verbose:
            print("  $ " + " ".join(cmd), file=sys.stderr)
        full_env = dict(os.environ)
        full_env.update(env or {})
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise IcountError(f"{os.path.basename(argv[0])} did not finish in {timeout} s "
                              f"under callgrind")
        if p.returncode != 0:
            tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["no output"]
            raise IcountError(f"{' '.join(argv[:2])} exited {p.returncode} under callgrind: "
                              f"{tail[0][:200]}")
        return parse_callgrind(out), p.stdout, out


# ---- fixtures --------------------------------------------------------------------------------


def free_port(udp_too=False):
    for _ in range(50):
        with socket.socket() as t:
            t.bind(("127.0.0.1", 0))
            port = t.getsockname()[1]
        if not udp_too:
            return port
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                u.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
    raise IcountError("no free port on 127.0.0.1")


def need(program):
    path = shutil.which(program) or (f"/usr/sbin/{program}"
                                      if os.path.exists(f"/usr/sbin/{program}") else None)
    if not path:
        raise IcountError(f"{program} is not installed (tools/scripts/install-deps --bench)")
    return path


def wait_tcp(port, proc, what, log):
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    proc.kill()
    detail = open(log).read().strip().splitlines()[-1:] if os.path.exists(log) else []
    raise IcountError(f"{what} did not start on 127.0.0.1:{port}: {detail or 'no log'}")


class Servers:
    """The local servers the live workloads use, started on demand, stopped at the end."""

    def __init__(self, work):
        self.work = work
        self.procs = []
        self.nginx_port = None
        self.nghttpd_port = None
        self.dns_port = None

    def _spawn(self, argv, log):
        f = open(log, "w")
        p = subprocess.Popen(argv, stdout=f, stderr=f, start_new_session=True)
        self.procs.append(p)
        return p

    def www(self):
        d = os.path.join(self.work, "www")
        if not os.path.isdir(d):
            os.makedirs(d)
            os.chmod(self.work, 0o755)  # nginx workers (nobody, when run as root) read www/
            # 1,386 bytes, as fetch-vs-curl serves; fixed content, so every run reads the same.
            with open(os.path.join(d, "small.txt"), "w") as f:
                f.write(("netstack icount " * 87)[:1385] + "\n")
        return d

    def nginx(self):
        if self.nginx_port:
            return self.nginx_port
        nginx = need("nginx")
        port = free_port()
        conf = os.path.join(self.work, "nginx.conf")
        with open(conf, "w") as c:
            c.write(f"""worker_processes 1;
daemon off;
pid {self.work}/nginx.pid;
error_log {self.work}/nginx-error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {self.work}/tmp;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  server {{
    listen 127.0.0.1:{port};
    root {self.www()};
    add_header Cache-Control "max-age=3600";
  }}
}}
""")
        log = os.path.join(self.work, "nginx.stderr")
        p = self._spawn([nginx, "-c", conf, "-p", self.work], log)
        wait_tcp(port, p, "nginx", log)
        self.nginx_port = port
        return port

    def nghttpd(self):
        if self.nghttpd_port:
            return self.nghttpd_port
        nghttpd = need("nghttpd")
        port = free_port()
        log = os.path.join(self.work, "nghttpd.log")
        p = self._spawn([nghttpd, "--no-tls", "-a", "127.0.0.1", "-d", self.www(), str(port)], log)
        wait_tcp(port, p, "nghttpd", log)
        self.nghttpd_port = port
        return port

    def dnsmasq(self):
        if self.dns_port:
            return self.dns_port
        dnsmasq = need("dnsmasq")
        port = free_port(udp_too=True)
        log = os.path.join(self.work, "dnsmasq.log")
        argv = [dnsmasq, "--no-daemon", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
                "--bind-interfaces", "--listen-address=127.0.0.1", f"--port={port}",
                "--pid-file=", "--cache-size=0", "--address=/icount.test/10.9.8.7"]
        if os.geteuid() == 0:
            argv.append("--user=root")  # else it switches to nobody
        p = self._spawn(argv, log)
        wait_tcp(port, p, "dnsmasq", log)
        self.dns_port = port
        return port

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()


# ---- workloads -------------------------------------------------------------------------------


def figure(fid, what, value, unit, gated=True, syscalls=None, inputs=None):
    """One figure; `inputs` names the input files' content (a digest) where they are not
    generated by the workload itself, so a baseline set on other inputs is not compared."""
    f = {"id": fid, "what": what, "value": value, "unit": unit, "gated": gated}
    if syscalls is not None:
        f["syscalls"] = syscalls
    if inputs is not None:
        f["inputs"] = inputs
    return f


def count_from(text, pattern, what):
    m = re.search(pattern, text, re.M)
    if not m:
        raise IcountError(f"no {what} in the output (expected /{pattern}/)")
    return int(m.group(1).replace(",", ""))


def counts_run(argv):
    """The summary of a replay run natively: the measured run is --quiet, because the summary
    prints wall and CPU times, whose digits would change the count from run to run."""
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise IcountError(f"{' '.join(argv[:2])} exited {p.returncode}: "
                          f"{(p.stderr.strip().splitlines() or ['no output'])[-1][:200]}")
    return p.stdout


def w_replay(ctx):
    n = ctx.args.requests
    session = os.path.join(ctx.work, f"session-{n}.jsonl")
    if not os.path.exists(session):
        p = subprocess.run([ctx.netstack, "gen-session", "--synthetic", "--requests", str(n),
                            "--seed", "1", "-o", session], capture_output=True, text=True)
        if p.returncode != 0:
            raise IcountError(f"gen-session failed: {p.stderr.strip()[-200:]}")
    totals = ctx.runner.run([ctx.netstack, "replay", "--quiet", session])[0]
    out = counts_run([ctx.netstack, "replay", session])
    requests = count_from(out, r"^\S+ pages?, ([\d,]+) requests", "request count")
    events = count_from(out, r"^\s*events\s+([\d,]+) simulated", "event count")
    if requests != n:
        raise IcountError(f"replay: the session has {requests} requests, not {n}")
    ir = totals["Ir"]
    sysc = totals.get("sysCount", 0)
    return [figure("replay.ir_per_request", f"netstack replay of a {n}-request synthetic "
                   "session (seed 1), instructions per request", ir / requests,
                   "instructions/request", syscalls=sysc / requests),
            figure("replay.ir_per_event", "the same, per simulated event (scheduler task)",
                   ir / events, "instructions/event", syscalls=sysc / events)]


def w_hars(ctx):
    har_dir = os.path.normpath(os.path.join(ROOT, "..", "shared", "traces", "har"))
    hars = sorted(os.path.join(har_dir, f) for f in os.listdir(har_dir)
                  if f.endswith(".har")) if os.path.isdir(har_dir) else []
    if not hars:
        # The recordings live beside the repository, not in it: a checkout without them skips
        # this workload (said on stderr) rather than failing the gate.
        print(f"icount: hars skipped: no HAR files in {har_dir}", file=sys.stderr)
        return []
    # Which recordings were replayed: a baseline set on other HARs is not compared.
    digest = hashlib.sha256()
    for path in hars:
        digest.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(f.read())
    totals = ctx.runner.run([ctx.netstack, "replay", "--quiet", *hars])[0]
    out = counts_run([ctx.netstack, "replay", *hars])
    requests = count_from(out, r"^\S+ pages?, ([\d,]+) requests", "request count")
    return [figure("hars.ir_per_request", f"netstack replay of the {len(hars)} bundled HARs "
                   f"({requests} requests), instructions per request", totals["Ir"] / requests,
                   "instructions/request", syscalls=totals.get("sysCount", 0) / requests,
                   inputs=digest.hexdigest()[:16])]


def w_cache(ctx):
    # Hits: netstack fetch of URLs fresh in a disk-cache profile primed once (natively) and
    # copied before each measured run, so every run reads the same files. Per hit: the
    # difference between fetching all of them and fetching one, so process start-up and the
    # cache's open cancel out.
    hits = 200
    port = ctx.servers.nginx()
    urls = [f"http://127.0.0.1:{port}/small.txt?c={i}" for i in range(hits + 1)]
    primed = os.path.join(ctx.work, "cache-primed")
    if not os.path.isdir(primed):
        p = subprocess.run([ctx.netstack, "fetch", "--profile", primed, "-o", "/dev/null", *urls],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise IcountError(f"cache: priming fetch failed: {p.stderr.strip()[-200:]}")

    def fetch_hits(count):
        profile = os.path.join(ctx.work, "cache-run")
        shutil.rmtree(profile, ignore_errors=True)
        shutil.copytree(primed, profile)
        totals, out, _ = ctx.runner.run([ctx.netstack, "fetch", "--json", "--profile", profile,
                                         "-o", "/dev/null", *urls[:count]])
        got = sum(1 for line in out.splitlines() if json.loads(line).get("cache") == "hit")
        if got != count:
            raise IcountError(f"cache: {got} of {count} fetches were cache hits")
        return totals

    many, one = fetch_hits(hits + 1), fetch_hits(1)
    hit = (many["Ir"] - one["Ir"]) / hits
    hit_syscalls = (many.get("sysCount", 0) - one.get("sysCount", 0)) / hits
    # Misses: cache_bench's BackendMisses on a disk backend (a miss is decided on the loop,
    # from the in-memory index), callgrind's inclusive cost of that function.
    bench = os.path.join(ctx.build_dir, "tools", "bench", "cache_bench")
    if not os.access(bench, os.X_OK):
        raise IcountError(f"no cache_bench at {bench} (build the tree first)")
    misses = 300
    tmp = os.path.join(ctx.work, "cache")
    os.makedirs(tmp, exist_ok=True)
    _, _, out = ctx.runner.run(
        [bench, "--entries", "300", "--hits", "1", "--misses", str(misses),
         "--write-mib", "1", "--write-entry-kib", "64", "--opens", "1", "--median-bytes", "1024",
         "--sigma", "0", "--max-mib", "32", "--seed", "1", "--backend-first", "--tmp", tmp])
    miss = inclusive_costs(out, ["netstack::BackendMisses"])["netstack::BackendMisses"]
    if not miss:
        raise IcountError(f"cache_bench: no cost for netstack::BackendMisses in {out}")
    return [figure("cache.hit_ir", "netstack fetch of a 1.4 KB response fresh in the disk "
                   "cache (a copied primed profile): instructions per hit, beyond the first",
                   hit, "instructions/hit", gated=ctx.gated("cache.hit_ir"),
                   syscalls=hit_syscalls),
            figure("cache.miss_ir", "a disk-cache miss (cache_bench: OpenEntry of an absent key, "
                   "decided on the loop), instructions per miss", miss / misses,
                   "instructions/miss", gated=ctx.gated("cache.miss_ir"))]


def w_fetch(ctx):
    port = ctx.servers.nginx()
    n = 1000
    urls = [f"http://127.0.0.1:{port}/small.txt?i={i}" for i in range(n)]
    totals, _, _ = ctx.runner.run([ctx.netstack, "fetch", "--no-cache", "-o", "/dev/null",
                                   *urls])
    return [figure("fetch.ir_per_request", f"netstack fetch --no-cache of {n} keep-alive GETs "
                   "(1.4 KB) from a local nginx, process start to exit, instructions per request",
                   totals["Ir"] / n, "instructions/request",
                   gated=ctx.gated("fetch.ir_per_request"),
                   syscalls=totals.get("sysCount", 0) / n)]


def w_startup(ctx):
    port = ctx.servers.nginx()
    url = f"http://127.0.0.1:{port}/small.txt"
    profile = os.path.join(ctx.work, "profile")
    # Prime the cache natively; the measured run is a fresh hit (max-age=3600).
    p = subprocess.run([ctx.netstack, "fetch", "--profile", profile, url, "-o", "/dev/null"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise IcountError(f"startup: priming fetch failed: {p.stderr.strip()[-200:]}")
    totals, out, _ = ctx.runner.run([ctx.netstack, "fetch", "--json", "--profile", profile, url,
                                     "-o", "/dev/null"])
    if '"cache":"hit"' not in out.replace(" ", ""):
        raise IcountError(f"startup: the measured fetch was not a cache hit: {out.strip()[:200]}")
    return [figure("startup.ir", "netstack fetch --profile DIR URL answered from the disk "
                   "cache, process start to exit, instructions", totals["Ir"], "instructions",
                   gated=ctx.gated("startup.ir"), syscalls=totals.get("sysCount", 0))]


def w_dns(ctx):
    bench = os.path.join(ctx.build_dir, "tools", "bench", "dns_bench")
    if not os.access(bench, os.X_OK):
        raise IcountError(f"no dns_bench at {bench} (build the tree first)")
    port = ctx.servers.dnsmasq()
    n = 1000
    names = os.path.join(ctx.work, "names.txt")
    with open(names, "w") as f:
        for i in range(n):
            f.write(f"h{i:05d}.icount.test. 10.9.8.7\n")
    totals, out, _ = ctx.runner.run([bench, "--server", f"127.0.0.1:{port}", "--names", names,
                                     "--json"])
    result = json.loads(out.strip().splitlines()[-1])
    if result.get("ok") != n:
        raise IcountError(f"dns: {result.get('ok')} of {n} names resolved correctly "
                          f"(first error: {result.get('first_error')})")
    return [figure("dns.ir_per_lookup", f"{n} distinct names through the live HostResolver "
                   "(c-ares, concurrency 6) from a local dnsmasq, instructions per lookup",
                   totals["Ir"] / n, "instructions/lookup", gated=ctx.gated("dns.ir_per_lookup"),
                   syscalls=totals.get("sysCount", 0) / n)]


def w_h2(ctx):
    port = ctx.servers.nghttpd()
    n = 1000
    urls = [f"http://127.0.0.1:{port}/small.txt?i={i}" for i in range(n)]
    totals, _, _ = ctx.runner.run([ctx.netstack, "fetch", "--no-cache", "--http2-prior-knowledge",
                                   "--parallel", "100", "-o", "/dev/null", *urls])
    return [figure("h2.ir_per_request", f"netstack fetch --http2-prior-knowledge --parallel 100 "
                   f"of {n} GETs from nghttpd (h2c, one connection), instructions per request",
                   totals["Ir"] / n, "instructions/request", gated=ctx.gated("h2.ir_per_request"),
                   syscalls=totals.get("sysCount", 0) / n)]


RUNNERS = {"replay": w_replay, "hars": w_hars, "cache": w_cache, "fetch": w_fetch,
           "startup": w_startup, "dns": w_dns, "h2": w_h2}

# Figures too noisy to gate (their run-to-run spread, measured with --runs 3, is near or above
# the threshold): printed and recorded, never compared. BENCHMARKS.md gives the spreads.
UNGATED = set()


class Context:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.build_dir = args.build_dir
        self.netstack = args.netstack
        self.runner = Runner(work, args.verbose)
        self.servers = Servers(work)

    def gated(self, fid):
        return fid not in UNGATED
