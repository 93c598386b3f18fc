#!/usr/bin/env python3
"""Issue 39's cases: the hook and the commands as months of use leave the state, beside a fresh one.

Ten healthy user servers, bound and checked in one project folder by `probe --all` (the fresh state). Then the
state as months leave it: the folder's bindings copied to N-1 other folders (git worktrees, scratch clones), each
bound at some time in the last 29 days, and, past the first size, 300 verdicts of definitions no folder uses any
more (30 server names among them, as worktrees of a few repositories give). For each size:

  hit       the cache hit in the project folder, beside a no-op run by run (tests/bench/spawn_bench.cpp): median
            time, ratio, peak RSS
  write     one recorded failure (a PostToolUseFailure of a server whose call failed, that the hook marks down)
  burst     40 parallel failures, 4 per server: wall time, and whether every server was recorded down
  commands  status, report, watch --once and probe --all: wall time

And the main file as names seen once leave it (issue 53 item 4): 300 `servers` entries (the JS hook's mirror by name)
of names no config defines any more, past their TTL and retry. One recorded failure's write, beside the same write
on the fresh state, before and after a run of the background prober (`watch --probe --once`), which forgets them.

usage: scale.py BIN NOOP HARNESS FIXTURES [--runs N] [--sizes 1,100,1000,5000]
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import shelf  # noqa: E402  (state::Shelf's file names)

BIN, NOOP, HARNESS, FIXTURES = sys.argv[1:5]
args = sys.argv[5:]
RUNS = int(args[args.index("--runs") + 1]) if "--runs" in args else 200
SIZES = [int(s) for s in (args[args.index("--sizes") + 1] if "--sizes" in args else "1,100,1000,5000").split(",")]
PY = sys.executable
SERVERS = ["s%d" % i for i in range(10)]
DAY = 86400000


def fresh():
    root = tempfile.mkdtemp(prefix="mcphealth-scale-")
    home, proj = os.path.join(root, "home"), os.path.join(root, "proj")
    os.makedirs(os.path.join(home, ".claude"))
    os.makedirs(proj)
    stdio = os.path.join(FIXTURES, "stdio_server.py")
    servers = {n: {"command": PY, "args": [stdio, "--mode", "healthy"]} for n in SERVERS}
    json.dump({"numStartups": 1, "projects": {proj: {"hasTrustDialogAccepted": True}}, "mcpServers": servers},
              open(os.path.join(home, ".claude.json"), "w"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MCPHEALTH_", "ECC_", "CLAUDE_"))}
    env.update(HOME=home, ECC_MCP_HEALTH_TTL_MS=str(DAY))
    subprocess.run([BIN, "probe", "--all", "-q"], cwd=proj, env=env, check=False)
    return root, home, proj, env


def grow(home, proj, folders, old_definitions):
    state = os.path.join(home, ".claude", "mcp-health-cache.json")
    bindings = state + ".d/bindings"
    mine = json.load(open(shelf.file_of(bindings, proj)))
    now = int(time.time() * 1000)
    rnd = random.Random(39)
    worktrees = os.path.join(os.path.dirname(home), "src")
    for i in range(folders - 1):
        # Real folders: status, watch and probe --all read each one's configs, as a folder still in use.
        key = os.path.join(worktrees, "repo-%d" % (i % 40), ".worktrees", "task-%d" % i)
        os.makedirs(key)
        path = shelf.file_of(bindings, key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        copy = dict(mine, key=key, boundAt=now - rnd.randrange(0, 29 * DAY))
        json.dump(copy, open(path, "w"))
        os.utime(path, ns=(copy["boundAt"] * 1000000, copy["boundAt"] * 1000000))
    doc = json.load(open(state))
    verdicts = state + ".d/verdicts"
    model = next(iter(doc["servers"].values()))
    for i in range(old_definitions):
        fp = "%016x" % rnd.getrandbits(64)
        name = "old-%d" % (i % 30)
        v = dict(model, definition=fp, server=name, toolName=name, checkedAt=now - rnd.randrange(0, 29 * DAY),
                 project=os.path.join(worktrees, "repo-%d" % (i % 40), ".worktrees", "task-%d" % i), scope="project")
        path = shelf.file_of(verdicts, fp)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        json.dump(dict(v, key=fp), open(path, "w"))
        os.utime(path, ns=(v["checkedAt"] * 1000000, v["checkedAt"] * 1000000))
        doc["servers"][name] = dict(v)
    json.dump(doc, open(state, "w"), indent=2)
    size = os.path.getsize(state)
    for dirpath, _, files in os.walk(state + ".d"):
        size += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    return size


def harness(env, proj, stdin, cmd, beside=True):
    out = subprocess.run([HARNESS, "--runs", str(RUNS), "--warmup", "1", "--stdin", stdin] +
                         (["--beside", NOOP] if beside else []) + ["--"] + cmd,
                         cwd=proj, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def wall(env, proj, cmd):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=proj, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - t) * 1000


def failure(proj, server):
    return json.dumps({"session_id": "s", "cwd": proj, "hook_event_name": "PostToolUseFailure",
                       "tool_name": "mcp__%s__search" % server, "tool_input": {},
                       "error": "MCP error -32000: Connection closed", "tool_use_id": "t"})


def names_seen_once():
    root, home, proj, env = fresh()
    try:
        state = os.path.join(home, ".claude", "mcp-health-cache.json")
        fail = os.path.join(root, "fail.json")
        open(fail, "w").write(failure(proj, "s5"))

        def write():
            return harness(env, proj, fail, [BIN, "hook"], beside=False)["median_ms"]

        fresh_ms = write()
        subprocess.run([BIN, "reset", "--all", "-q"], cwd=proj, env=env, check=False, capture_output=True)
        subprocess.run([BIN, "probe", "--all", "-q"], cwd=proj, env=env, check=False)
        doc = json.load(open(state))
        now = int(time.time() * 1000)
        for i in range(300):
            at = now - 3 * DAY
            doc["servers"]["seen-once-%d" % i] = {
                "status": "unhealthy", "checkedAt": at, "expiresAt": at + 60000, "nextRetryAt": at + 60000,
                "failureCount": 1, "lastError": "MCP error -32000: Connection closed " + "x" * 500,
                "source": "PostToolUseFailure"}
        json.dump(doc, open(state, "w"))
        many_kb = os.path.getsize(state) / 1024
        many_ms = write()
        subprocess.run([BIN, "watch", "--probe", "--once"], cwd=proj, env=env, check=False,
                       capture_output=True)
        left = sum(1 for k in json.load(open(state))["servers"] if k.startswith("seen-once-"))
        after_kb = os.path.getsize(state) / 1024
        after_ms = write()
        return fresh_ms, many_kb, many_ms, after_kb, after_ms, left
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    rows = []
    for n in SIZES:
        root, home, proj, env = fresh()
        try:
            size = grow(home, proj, n, 0 if n == 1 else 300)
            hit = os.path.join(root, "hit.json")
            open(hit, "w").write(json.dumps({"session_id": "s", "cwd": proj, "hook_event_name": "PreToolUse",
                                             "tool_name": "mcp__s3__search", "tool_input": {}, "tool_use_id": "t"}))
            h = harness(env, proj, hit, [BIN, "hook"])
            # One failure recorded: a server whose retry lies a day out, so the hook marks and writes, and probes
            # nothing (the write is what is measured).
            fail = os.path.join(root, "fail.json")
            open(fail, "w").write(failure(proj, "s5"))
            w = harness(env, proj, fail, [BIN, "hook"], beside=False)
            subprocess.run([BIN, "reset", "--all", "-q"], cwd=proj, env=env, check=False, capture_output=True)
            subprocess.run([BIN, "probe", "--all", "-q"], cwd=proj, env=env, check=False)
            # The burst: 40 failures at once, 4 per server.
            t = time.perf_counter()
            procs = [subprocess.Popen([BIN, "hook"], cwd=proj, env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for _ in range(4) for _ in SERVERS]
            for p, s in zip(procs, [s for _ in range(4) for s in SERVERS]):
                p.communicate(failure(proj, s).encode())
            burst_ms = (time.perf_counter() - t) * 1000
            status = json.loads(subprocess.run([BIN, "status", "--json"], cwd=proj, env=env, capture_output=True,
                                               text=True).stdout or "{}")
            down = sorted(r["name"] for r in status.get("servers", []) if r.get("name") in SERVERS and
                          r.get("status") == "unhealthy")
            cmds = {c: wall(env, proj, [BIN] + c.split()) for c in ("status", "report", "watch --once", "probe --all -q")}
            rows.append((n, size, h, w, burst_ms, down == SERVERS, cmds))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    print("%-8s %9s %10s %7s %8s %11s %10s %6s %8s %8s %8s %10s" % (
        "folders", "state", "hit ms", "ratio", "hit RSS", "1 write ms", "burst ms", "lost", "status", "report",
        "watch", "probe-all"))
    for n, size, h, w, burst, whole, cmds in rows:
        print("%-8d %7.2fMB %10.3f %6.2fx %6.1fMB %11.2f %10.0f %6s %8.0f %8.0f %8.0f %10.0f" % (
            n, size / 1e6, h["median_ms"], h["ratio_beside"], h["max_rss_kb"] / 1024, w["median_ms"], burst,
            "none" if whole else "SOME", cmds["status"], cmds["report"], cmds["watch --once"], cmds["probe --all -q"]))
    first, last = rows[0], rows[-1]
    print()
    print("%-60s %s" % ("hit at %d folders <= 1.2x no-op" % last[0], "met" if last[2]["ratio_beside"] <= 1.2 else "NOT met"))
    print("%-60s %s" % ("hit RSS at %d folders <= 1.5x the fresh state's" % last[0],
                        "met" if last[2]["max_rss_kb"] <= 1.5 * first[2]["max_rss_kb"] else "NOT met"))
    print("%-60s %s" % ("one write at %d folders <= 1.5x the fresh state's" % last[0],
                        "met" if last[3]["median_ms"] <= 1.5 * first[3]["median_ms"] else "NOT met"))
    print("%-60s %s" % ("40 parallel failures: none lost, at every size", "met" if all(r[5] for r in rows) else "NOT met"))
    print("%-60s %s" % ("status, report, watch, probe --all < 1 s at %d folders" % last[0],
                        "met" if max(last[6].values()) < 1000 else "NOT met"))
    fresh_ms, many_kb, many_ms, after_kb, after_ms, left = names_seen_once()
    print()
    print("300 names seen once in the main file: %.0f KB, one write %.2f ms (%.2fx the fresh state's %.2f ms);" % (
        many_kb, many_ms, many_ms / fresh_ms, fresh_ms))
    print("after watch --probe --once: %.0f KB, one write %.2f ms (%.2fx), %d of the 300 left" % (
        after_kb, after_ms, after_ms / fresh_ms, left))
    print("%-60s %s" % ("the prober forgets names seen once, and the write is back <= 1.2x",
                        "met" if left == 0 and after_ms <= 1.2 * fresh_ms else "NOT met"))


main()
