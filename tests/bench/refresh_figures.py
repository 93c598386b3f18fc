#!/usr/bin/env python3
"""Issue 11's figures, measured on real processes (scripts/bench runs this after the spawn-harness cases):

  hour      A simulated hour of agent work, run faster: three healthy stdio servers, a TTL of 2 s, a PreToolUse every
            100 ms for SECONDS. The slowest hook call against a no-op process spawned the same way, with background
            refresh and with MCPHEALTH_REFRESH=inline.
  recovery  Time from a server coming back to the hook allowing it, with `watch --probe` running.
  watch     `watch --probe` over 32 servers: CPU time of the watcher per sweep and per hour, and its RSS and open file
            descriptors at the start and the end.
  soak      (only with --soak N) `watch --probe` over 32 servers with a 3 s TTL for N sweeps (counted from its -vv
            lines): its RSS and open file descriptors sampled every 100 sweeps, to show neither grows.
Every timing is wall time around subprocess.run, the same for the hook and the no-op, so the ratios are fair.
usage: refresh_figures.py BIN NOOP FIXTURES [SECONDS]
       refresh_figures.py BIN NOOP FIXTURES --soak SWEEPS
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN, NOOP, FIXTURES = sys.argv[1], sys.argv[2], sys.argv[3]
SOAK = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--soak" else 0
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 and not SOAK else 60.0
PY = sys.executable
STDIO = os.path.join(FIXTURES, "stdio_server.py")


def scratch(servers):
    """A HOME with an approved project defining `servers` (name -> args), and the env to run in it."""
    root = tempfile.mkdtemp(prefix="mcphealth-bench-")
    home, proj = os.path.join(root, "home"), os.path.join(root, "proj")
    os.makedirs(os.path.join(home, ".claude"))
    os.makedirs(proj)
    json.dump({"enableAllProjectMcpServers": True}, open(os.path.join(home, ".claude", "settings.json"), "w"))
    json.dump({"mcpServers": {n: {"command": PY, "args": [STDIO] + a} for n, a in servers.items()}},
              open(os.path.join(proj, ".mcp.json"), "w"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ECC_", "MCPHEALTH_", "CLAUDE_"))}
    env["HOME"] = home
    return root, proj, env


def timed(argv, stdin_bytes, env, cwd):
    t = time.perf_counter()
    subprocess.run(argv, input=stdin_bytes, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000.0


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def hour(mode):
    root, proj, env = scratch({"a": [], "b": [], "c": []})
    env.update({"ECC_MCP_HEALTH_TTL_MS": "2000", "MCPHEALTH_REFRESH": mode})
    payloads = [json.dumps({"hook_event_name": "PreToolUse", "tool_name": "mcp__%s__x" % s, "cwd": proj}).encode()
                for s in "abc"]
    for p in payloads:  # the first call of each server probes inline in either mode: not part of the figure
        timed([BIN, "hook"], p, env, proj)
    hook, noop = [], []
    end = time.monotonic() + SECONDS
    i = 0
    while time.monotonic() < end:
        started = time.monotonic()
        hook.append(timed([BIN, "hook"], payloads[i % 3], env, proj))
        noop.append(timed([NOOP], b"", env, proj))
        i += 1
        time.sleep(max(0.0, 0.1 - (time.monotonic() - started)))
    time.sleep(1)
    shutil.rmtree(root, ignore_errors=True)
    return hook, noop


def recovery():
    root, proj, env = scratch({"svc": ["--mode", "flag", "--flag-file", "FLAG"]})
    flag = os.path.join(root, "up")
    cfg = os.path.join(proj, ".mcp.json")
    text = open(cfg).read()  # read before opening for writing, which empties the file
    open(cfg, "w").write(text.replace("FLAG", flag))
    backoff = 2000
    env.update({"ECC_MCP_HEALTH_BACKOFF_MS": str(backoff), "ECC_MCP_HEALTH_MAX_BACKOFF_MS": str(backoff)})
    watch = subprocess.Popen([BIN, "watch", "--probe", "--events"], env=env, cwd=proj, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "mcp__svc__x", "cwd": proj}).encode()
    state = os.path.join(env["HOME"], ".claude", "mcp-health-cache.json")
    deadline = time.monotonic() + 30
    while not (os.path.exists(state) and '"unhealthy"' in open(state).read()):
        if time.monotonic() > deadline or watch.poll() is not None:
            watch.kill()
            raise SystemExit("recovery: watch --probe recorded no verdict in 30 s")
        time.sleep(0.05)
    time.sleep(0.3)
    open(flag, "w").close()
    back = time.monotonic()
    while True:
        r = subprocess.run([BIN, "hook", "--output", "exit-code"], input=payload, env=env, cwd=proj,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            break
        if time.monotonic() - back > 60:
            watch.kill()
            raise SystemExit("recovery: the hook still blocked 60 s after the server came back")
        time.sleep(0.05)
    took = (time.monotonic() - back) * 1000.0
    watch.send_signal(signal.SIGTERM)
    watch.wait()
    shutil.rmtree(root, ignore_errors=True)
    return took, backoff


def proc_stats(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    cpu_ms = (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")
    rss = [l for l in open("/proc/%d/status" % pid) if l.startswith("VmRSS")][0].split()[1]
    return cpu_ms, int(rss), len(os.listdir("/proc/%d/fd" % pid))


def watch_cost():
    root, proj, env = scratch({"s%d" % i: ["--count-file", "COUNT"] for i in range(32)})
    count = os.path.join(root, "count")
    cfg = os.path.join(proj, ".mcp.json")
    text = open(cfg).read()
    open(cfg, "w").write(text.replace("COUNT", count))
    env.update({"ECC_MCP_HEALTH_TTL_MS": "3000"})
    watch = subprocess.Popen([BIN, "watch", "--probe", "--events"], env=env, cwd=proj, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    time.sleep(5)  # the first sweep (32 cold probes) and a settled loop
    lines = lambda: sum(1 for _ in open(count)) if os.path.exists(count) else 0
    cpu0, rss0, fds0 = proc_stats(watch.pid)
    probes0 = lines()
    start = time.monotonic()
    time.sleep(SECONDS)
    elapsed = time.monotonic() - start
    cpu1, rss1, fds1 = proc_stats(watch.pid)
    probes = lines() - probes0
    watch.send_signal(signal.SIGTERM)
    watch.wait()
    shutil.rmtree(root, ignore_errors=True)
    return cpu1 - cpu0, elapsed, rss0, rss1, fds0, fds1, probes


def soak(sweeps):
    servers = 32
    root, proj, env = scratch({"s%d" % i: ["--count-file", "COUNT"] for i in range(servers)})
    count = os.path.join(root, "count")
    cfg = os.path.join(proj, ".mcp.json")
    text = open(cfg).read()
    open(cfg, "w").write(text.replace("COUNT", count))
    env.update({"ECC_MCP_HEALTH_TTL_MS": "3000"})
    log = os.path.join(root, "watch.log")
    watch = subprocess.Popen([BIN, "-vv", "watch", "--probe", "--events"], env=env, cwd=proj, stdout=subprocess.DEVNULL,
                             stderr=open(log, "w"))
    done = lambda: sum(1 for l in open(log) if " debug sweep " in l) if os.path.exists(log) else 0
    probes = lambda: sum(1 for _ in open(count)) if os.path.exists(count) else 0
    start = time.monotonic()
    samples, next_mark = [], 0
    while True:
        n = done()
        if n >= next_mark:
            cpu, rss, fds = proc_stats(watch.pid)
            samples.append((n, probes(), rss, fds, cpu))
            next_mark += 100
        if n >= sweeps or watch.poll() is not None:
            break
        time.sleep(0.1)
    watch.send_signal(signal.SIGTERM)
    watch.wait()
    shutil.rmtree(root, ignore_errors=True)
    print("soak: watch --probe, %d servers, TTL 3 s: %d sweeps, %d probes in %.0f s" %
          (servers, samples[-1][0], samples[-1][1], time.monotonic() - start))
    for n, p, rss, fds, cpu in samples:
        print("  after %5d sweeps (%5d probes): RSS %6d kB, open fds %3d, CPU %7.0f ms" % (n, p, rss, fds, cpu))


def main():
    if SOAK:
        soak(SOAK)
        return
    print("\nIssue 11 figures (%.0f s runs)" % SECONDS)
    for mode in ("background", "inline"):
        hook, noop = hour(mode)
        print("  simulated hour, %-10s: %d calls; hook median %.2f ms, p99 %.2f ms, slowest %.2f ms; no-op median "
              "%.2f ms, slowest %.2f ms; slowest hook / slowest no-op %.2fx, slowest hook / no-op median %.2fx"
              % (mode, len(hook), pct(hook, 50), pct(hook, 99), max(hook), pct(noop, 50), max(noop),
                 max(hook) / max(noop), max(hook) / pct(noop, 50)))
    took, backoff = recovery()
    print("  recovery under watch --probe: allowed %.0f ms after the server came back (backoff step %d ms; "
          "target <= step + 1000 ms: %s)" % (took, backoff, "met" if took <= backoff + 1000 else "NOT met"))
    cpu, elapsed, rss0, rss1, fds0, fds1, probes = watch_cost()
    print("  watch --probe, 32 servers, TTL 3 s: %d probes in %.0f s; the watcher's own CPU %.0f ms (%.2f ms per probe, "
          "%.1f s per hour at this rate); RSS %d -> %d kB; open fds %d -> %d"
          % (probes, elapsed, cpu, cpu / max(probes, 1), cpu / elapsed * 3600 / 1000, rss0, rss1, fds0, fds1))


if __name__ == "__main__":
    main()
