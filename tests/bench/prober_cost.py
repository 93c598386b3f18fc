#!/usr/bin/env python3
"""What the background prober costs at the default settings (issue 52 item 5): `mcphealth watch --probe` over
10 healthy remote servers and 5 healthy stdio ones (our fixtures) for MINUTES of real time, then the hour's figures
worked from them: HTTP requests, server starts, and CPU seconds (the prober's own, and with the starts it reaped).

  tests/bench/prober_cost.py BIN FIXTURES [--minutes M] [--json]

Not part of scripts/test or CI: it runs in real time (10 minutes by default) at the defaults (TTL 2 minutes; a
healthy server re-probed shortly before its mark expires). A fixture's start is Python's (about 0.13 s of CPU here),
dearer than most servers' start: the CPU with starts is an upper figure for such a server.
"""
import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def cpu_of(pid):
    """User + system seconds of `pid` itself and of its children it waited for, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    own = (int(fields[11]) + int(fields[12])) / tick
    children = (int(fields[13]) + int(fields[14])) / tick
    return own, children


def count_lines(path):
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return sum(1 for _ in f)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin")
    p.add_argument("fixtures")
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--remote", type=int, default=10)
    p.add_argument("--stdio", type=int, default=5)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    args.bin, args.fixtures = os.path.abspath(args.bin), os.path.abspath(args.fixtures)
    work = tempfile.mkdtemp(prefix="mcph-prober-")
    home, proj = os.path.join(work, "home"), os.path.join(work, "proj")
    os.makedirs(os.path.join(home, ".claude"))
    os.makedirs(proj)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ECC_", "MCPHEALTH_", "CLAUDE"))}
    env.update(HOME=home, CLAUDE_PROJECT_DIR=proj, MCPHEALTH_MANAGED_DIR=os.path.join(work, "managed"))
    fixtures = []
    servers = {}
    try:
        for i in range(args.remote):
            port_file, log = os.path.join(work, "r%d.port" % i), os.path.join(work, "r%d.log" % i)
            fixtures.append(subprocess.Popen([sys.executable, os.path.join(args.fixtures, "mcp_http_server.py"),
                                              "--port-file", port_file, "--log-file", log],
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            deadline = time.time() + 10
            while not (os.path.exists(port_file) and os.path.getsize(port_file)) and time.time() < deadline:
                time.sleep(0.02)
            with open(port_file) as f:
                port = int(f.read().strip())
            servers["remote%d" % i] = {"type": "http", "url": "http://127.0.0.1:%d/mcp" % port}
        for i in range(args.stdio):
            servers["local%d" % i] = {"command": sys.executable,
                                      "args": [os.path.join(args.fixtures, "stdio_server.py"), "--mode", "healthy",
                                               "--count-file", os.path.join(work, "s%d.starts" % i)]}
        with open(os.path.join(proj, ".mcp.json"), "w") as f:
            json.dump({"mcpServers": servers}, f)
        with open(os.path.join(home, ".claude", "settings.json"), "w") as f:
            json.dump({"enableAllProjectMcpServers": True}, f)
        watch = subprocess.Popen([args.bin, "watch", "--probe", "--events", "--cwd", proj], env=env, cwd=proj,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(args.minutes * 60)
        own, reaped = cpu_of(watch.pid)
        watch.send_signal(signal.SIGTERM)
        watch.wait(timeout=30)
    finally:
        for f in fixtures:
            f.kill()
            f.wait()
    requests = sum(count_lines(os.path.join(work, "r%d.log" % i)) for i in range(args.remote))
    starts = sum(count_lines(os.path.join(work, "s%d.starts" % i)) for i in range(args.stdio))
    hour = 60.0 / args.minutes
    out = {"minutes": args.minutes, "remote": args.remote, "stdio": args.stdio,
           "http_requests": requests, "starts": starts, "prober_cpu_s": round(own, 2),
           "with_starts_cpu_s": round(own + reaped, 2),
           "per_hour": {"http_requests": round(requests * hour), "starts": round(starts * hour),
                        "prober_cpu_s": round(own * hour, 1), "with_starts_cpu_s": round((own + reaped) * hour, 1)}}
    if os.environ.get("PROBER_COST_KEEP"):
        print("kept " + work, file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
        return
    h = out["per_hour"]
    print("%d remote + %d stdio servers, %g minutes of `watch --probe` at the defaults:" % (args.remote, args.stdio, args.minutes))
    print("  measured: %d HTTP requests, %d starts, %.2f CPU s (prober), %.2f CPU s (with the starts it reaped)"
          % (requests, starts, own, own + reaped))
    print("  per hour: %d HTTP requests, %d starts, %.1f CPU s (prober), %.1f CPU s (with the starts)"
          % (h["http_requests"], h["starts"], h["prober_cpu_s"], h["with_starts_cpu_s"]))


if __name__ == "__main__":
    main()
