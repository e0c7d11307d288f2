#!/usr/bin/python3
"""The client side of the lab measurements: runs inside `netstack lab ... -- lab_client.py MODE`,
in the lab's client namespace, so everything it sends crosses the emulated link.

  lab_client.py accuracy --host NAME [--ping-count N] [--iperf-seconds S] [--omit S]
      [--congestion ALG]
      ping NAME N times; start `iperf3 -s` in the lab's server namespace and measure bulk TCP
      down (-R) and up; print one JSON object: the ping RTTs (ms), each direction's goodput
      (bit/s) and the MSS.
  lab_client.py pages --out DIR [--netstack PATH] [--cacert FILE] [--chromium JS] URL...
      load each URL once, in order, with a fresh process each: `netstack fetch --page --har
      DIR/N.har` (N from 1), or with --chromium the node script (HAR to DIR/N.har, its wall
      and CPU time to DIR/N.cpu.json).

The server namespace is the one the lab names in $NETSTACK_LAB_SERVER_NETNS; without it, the
network namespace of a process the same `netstack lab` started (its nginx) that differs from the
client's and the lab's own (the lab starts its servers and the command as its children). Exit 0; 2 on bad usage; 1 when a step fails (one line on
stderr naming it).
"""

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time

TIMEOUT_S = 600  # any one program run inside the lab


def fail(message, code=1):
    print("lab_client: " + message, file=sys.stderr)
    sys.exit(code)


def _ppid(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def _netns(pid):
    try:
        return os.readlink("/proc/%d/ns/net" % pid)
    except OSError:
        return ""


def server_namespace_pid():
    """A pid (as /proc numbers it) in the lab's server namespace, or 0. The lab runs its
    command and its servers each in a process group of their own (an init that is a fork of
    netstack, in a PID namespace of its own but under the same /proc), both children of the
    `netstack lab` process: so among the descendants of each `netstack` ancestor, a process in
    a network namespace that is neither ours nor that ancestor's is a server."""
    me = int(os.readlink("/proc/self"))  # /proc's number for us, whatever our PID namespace
    ours = _netns(me)
    ancestors, pid = [], _ppid(me)
    for _ in range(64):
        if pid <= 1:
            break
        if _comm(pid) == "netstack":
            ancestors.append(pid)
        pid = _ppid(pid)
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            children.setdefault(_ppid(int(name)), []).append(int(name))
    for lab in ancestors:
        theirs = _netns(lab)
        todo = list(children.get(lab, []))
        while todo:
            p = todo.pop()
            ns = _netns(p)
            if ns and ns != ours and ns != theirs:
                return p
            todo.extend(children.get(p, []))
    return 0


def run(argv, timeout=TIMEOUT_S):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        fail("%s: not installed" % argv[0])
    except subprocess.TimeoutExpired:
        fail("%s: no end after %d s" % (" ".join(argv[:3]), timeout))


def ping_rtts(host, count):
    r = run(["ping", "-n", "-c", str(count), "-i", "0.2", host])
    rtts = [float(m) for m in re.findall(r"time=([0-9.]+) ms", r.stdout)]
    # Each reply's time has 3 significant digits (152 ms, 40.4 ms); the summary's mean has µs.
    summary = re.search(r"= ([0-9.]+)/([0-9.]+)/([0-9.]+)/([0-9.]+) ms", r.stdout)
    if not rtts or not summary:
        fail("ping %s: no replies (%s)" % (host, (r.stderr or r.stdout).strip()[-200:]))
    return rtts, {k: float(v) for k, v in zip(("min", "avg", "max", "mdev"), summary.groups())}


def iperf(address, seconds, omit, reverse, congestion):
    argv = ["iperf3", "-c", address, "-t", str(seconds), "-O", str(omit), "-J"]
    if congestion:
        argv += ["-C", congestion]
    if reverse:
        argv.append("-R")
    r = run(argv, timeout=seconds + omit + 60)
    try:
        out = json.loads(r.stdout)
        bps = out["end"]["sum_received"]["bits_per_second"]
    except (ValueError, KeyError, TypeError):
        fail("iperf3 %s: no result (%s)" % ("-R" if reverse else "", r.stderr.strip()[-200:]))
    mss = out.get("start", {}).get("tcp_mss_default") or 1448
    return {"bits_per_second": bps, "mss": mss}


def accuracy(args):
    try:
        address = socket.gethostbyname(args.host)
    except OSError as e:
        fail("cannot resolve %s: %s" % (args.host, e))
    rtts, summary = ping_rtts(address, args.ping_count)
    result = {"host": args.host, "address": address, "ping_ms": rtts, "ping_summary": summary}
    if args.iperf_seconds > 0:
        # The lab names its server namespace; older labs did not, so find it then.
        netns = os.environ.get("NETSTACK_LAB_SERVER_NETNS", "")
        if not netns:
            server = server_namespace_pid()
            if not server:
                fail("cannot find the lab's server namespace (run inside netstack lab)")
            netns = "/proc/%d/ns/net" % server
        # One iperf3 server per direction (-1: it ends after one test), in the server namespace.
        for key, reverse in (("down", True), ("up", False)):
            srv = subprocess.Popen(["nsenter", "--net=" + netns, "iperf3", "-s", "-1"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            try:
                result[key] = iperf(address, args.iperf_seconds, args.omit, reverse,
                                    args.congestion)
            finally:
                try:
                    srv.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    srv.kill()
                    srv.wait()
    print(json.dumps(result))


def pages(args):
    os.makedirs(args.out, exist_ok=True)
    # The lab names its CA (NETSTACK_LAB_CA); Chromium takes the hash of its key (ca.spki
    # beside it) instead of a file.
    ca = os.environ.get("NETSTACK_LAB_CA", "")
    if not args.cacert and ca:
        args.cacert = ca
    if not args.spki and ca and os.path.exists(os.path.join(os.path.dirname(ca), "ca.spki")):
        with open(os.path.join(os.path.dirname(ca), "ca.spki")) as f:
            args.spki = f.read().strip()
    for n, url in enumerate(args.urls, 1):
        har = os.path.join(args.out, "%d.har" % n)
        if args.chromium:
            argv = ["node", args.chromium, "--har", har, url]
            if args.spki:
                argv[2:2] = ["--spki", args.spki]
        else:
            argv = [args.netstack, "fetch", "--page", "--predictor", "off", "--no-cache", "--har",
                    har, url]
            argv[2:2] = ["--cacert", args.cacert] if args.cacert else ["-k"]
        r = run(argv)
        if r.returncode != 0 or not os.path.exists(har):
            fail("%s: exit %d: %s" % (url, r.returncode, (r.stderr or "").strip()[-300:]))
        if args.chromium:  # its line: the load's wall time and the browser's CPU time
            with open(os.path.join(args.out, "%d.cpu.json" % n), "w") as f:
                f.write(r.stdout.strip().splitlines()[-1] + "\n" if r.stdout.strip() else "{}\n")
        print("%s -> %s" % (url, har), flush=True)


def main():
    parser = argparse.ArgumentParser(prog="lab_client.py")
    sub = parser.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("accuracy")
    a.add_argument("--host", required=True)
    a.add_argument("--ping-count", type=int, default=20)
    a.add_argument("--iperf-seconds", type=int, default=10)
    a.add_argument("--omit", type=int, default=2)
    a.add_argument("--congestion", default="", help="iperf3's TCP congestion control (-C)")
    p = sub.add_parser("pages")
    p.add_argument("--out", required=True)
    p.add_argument("--netstack", default="netstack")
    p.add_argument("--cacert", default="", help="the CA to trust (default: $NETSTACK_LAB_CA)")
    p.add_argument("--chromium", default="", help="the node script that loads a page")
    p.add_argument("--spki", default="", help="the lab CA's SPKI hash, for Chromium")
    p.add_argument("urls", nargs="+")
    args = parser.parse_args()
    if args.mode == "accuracy":
        if not 1 <= args.ping_count <= 10000 or not 0 <= args.iperf_seconds <= 600:
            fail("--ping-count wants 1..10000 and --iperf-seconds 0..600", 2)
        accuracy(args)
    else:
        pages(args)


if __name__ == "__main__":
    main()
