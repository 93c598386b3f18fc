# Shared helpers for the CLI tests. Each test script defines case_* functions; `run_case NAME` runs one in a fresh
# temp folder with its own HOME, no mcphealth/JS-hook variables, and the fixture servers at hand.
# Needs: Linux's /proc
set -euo pipefail

: "${MCPHEALTH_BIN:?set MCPHEALTH_BIN to the built binary}"
: "${MCPHEALTH_FIXTURES:?set MCPHEALTH_FIXTURES to tests/fixtures}"
PY=/usr/bin/python3
STDIO_SERVER="$MCPHEALTH_FIXTURES/stdio_server.py"
HTTP_SERVER="$MCPHEALTH_FIXTURES/http_server.py"
MCP_HTTP_SERVER="$MCPHEALTH_FIXTURES/mcp_http_server.py"
FIXTURE_PIDS=()

# start_http ARGS...: starts the HTTP status fixture on a free loopback port; sets HTTP_PORT. Stopped when the case
# ends. start_mcp_http does the same for the MCP-speaking HTTP fixture.
start_http() { start_fixture "$HTTP_SERVER" "$@"; }
start_mcp_http() { start_fixture "$MCP_HTTP_SERVER" "$@"; }
start_fixture() {
  local script=$1 port_file
  shift
  port_file=$(mktemp -u "$T/port.XXXXXX")
  "$PY" "$script" --port-file "$port_file" "$@" >/dev/null 2>&1 &
  FIXTURE_PIDS+=($!)
  for _ in $(seq 1 200); do
    [ -s "$port_file" ] && break
    sleep 0.02
  done
  [ -s "$port_file" ] || fail "HTTP fixture did not start"
  HTTP_PORT=$(cat "$port_file")
}

# svc_answers_http STATUS [ARGS...]: `svc` is a project server over HTTP answering every request with STATUS (an
# HTTP fixture started with ARGS): a failed call's generic words about it are confirmed by asking it.
svc_answers_http() {
  local status=$1
  shift
  start_http --status "$status" "$@"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}}}"
}

# The client's own framing of a stdio server that died during a call (Claude Code 2.1.197): proof, unlike generic
# words, which may be a tool's own.
CLIENT_CLOSED='MCP error -32000: Connection closed'

# free_port: a loopback port with nothing listening on it.
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# tm ARGS: tmux on a server of the case's own (its own socket, no user config). On the shared default server, one
# case ending its last session made the server exit under another case's new-session, which failed with "server
# exited unexpectedly" (CI of stop 33).
tm() { tmux -S "$T/tmux" -f /dev/null "$@"; }

# tm_session NAME WIDTH HEIGHT COMMAND: a detached session of the case's own tmux running COMMAND, ended with the
# case (also when an assertion fails half-way).
tm_session() {
  command -v tmux >/dev/null || skip "needs tmux (scripts/setup installs it)"
  tm new-session -d -x "$2" -y "$3" -s "$1" "$4"
  cleanup_add "tmux -S '$T/tmux' kill-server"
}

# await_screen SESSION TEXT [SECONDS]: the pane's text in `screen` once it shows TEXT, or after SECONDS (10) (the
# caller asserts).
await_screen() {
  local i
  for i in $(seq 1 $((${3:-10} * 10))); do
    screen=$(tm capture-pane -p -t "$1")
    [[ $screen == *"$2"* ]] && return 0
    sleep 0.1
  done
}

# CLEANUP: commands the case registered (cleanup_add) to undo what is not a fixture process (a tmux session).
CLEANUP=()
cleanup_add() { CLEANUP+=("$1"); }

# case_processes: the processes still running whose arguments name this case's folder: what the case started and
# did not wait for, such as the `mcphealth refresh` a hook starts detached. Builtins only: it runs after every case.
case_processes() {
  local d args
  for d in /proc/[0-9]*; do
    [ "${d#/proc/}" != "$$" ] || continue
    mapfile -d '' args 2>/dev/null <"$d/cmdline" || continue
    [[ "${args[*]}" == *"$T"* ]] && is_running "${d#/proc/}" && echo "${d#/proc/}"
  done
  return 0
}

cleanup_case() {
  local rc=$? left i
  for c in "${CLEANUP[@]}"; do eval "$c" 2>/dev/null || true; done
  for p in "${FIXTURE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${FIXTURE_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  # A detached refresh writes into the case's HOME after the case's last command: wait for it (its probes time out
  # in seconds), or the folder is removed under it. One still running after 30 s was left running: a failure.
  for ((i = 0; i < 300; i++)); do
    left=$(case_processes)
    [ -n "$left" ] || break
    sleep 0.1
  done
  if [ -n "$left" ]; then
    echo "FAIL: left running after the case: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo; done)" >&2
    kill -KILL $left 2>/dev/null || true
    rc=1
  fi
  rm -rf "$T"
  exit "$rc"
}

# skip REASON: this case needs something the machine lacks; ctest reports it skipped (exit 77). Under scripts/test,
# which installs everything the tests need, nothing may be skipped: there a skip is a failure.
skip() {
  [ -z "${MCPHEALTH_REQUIRE_ALL:-}" ] || fail "$1, and scripts/test must run every case (MCPHEALTH_REQUIRE_ALL)"
  echo "skip: $1"
  exit 77
}

# sees_processes WHAT: this case holds what only a platform that looks into other processes does (WHAT: "read the
# client's arguments", "find a server's children outside its group", "count a group's CPU"). The portable build
# (scripts/test --portable) cannot, by design (lib/mcphealth/platform/portable.cpp): there the case is not run, and
# says why. Not a skip for want of an install, so MCPHEALTH_REQUIRE_ALL does not turn it into a failure.
sees_processes() {
  [ "${MCPHEALTH_PLATFORM:-linux}" != portable ] && return 0
  echo "skip: the portable build cannot $1 (lib/mcphealth/platform/portable.cpp)"
  exit 77
}

fail() {
  echo "FAIL: $*" >&2
  [ -n "${OUT+x}" ] && echo "--- stdout:" >&2 && printf '%s\n' "$OUT" >&2
  [ -n "${ERR+x}" ] && echo "--- stderr:" >&2 && printf '%s\n' "$ERR" >&2
  exit 1
}

assert_eq() { [ "$1" == "$2" ] || fail "${3:-values differ}: expected [$2], got [$1]"; }
assert_contains() { [[ "$1" == *"$2"* ]] || fail "${3:-missing text}: [$2] not in output"; }
assert_not_contains() { [[ "$1" != *"$2"* ]] || fail "${3:-unexpected text}: [$2] found"; }
assert_file_exists() { [ -e "$1" ] || fail "expected file $1"; }
assert_no_file() { [ ! -e "$1" ] || fail "file $1 should not exist"; }
# is_running PID: true while PID exists and is not a zombie (an orphan's zombie waits for pid 1 to reap it).
is_running() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != "Z" ] && [ "$state" != "X" ]
}
line_count() { if [ -f "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi; }

# json_get FILE EXPR: evaluates a Python expression over the parsed file as `d`; prints JSON for non-strings.
json_get() {
  "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"d": d})
print(v if isinstance(v, str) else json.dumps(v))
PYEOF
}

# json_eval TEXT EXPR: the same over a JSON string.
json_eval() {
  "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
d = json.loads(sys.argv[1])
v = eval(sys.argv[2], {"d": d})
print(v if isinstance(v, str) else json.dumps(v))
PYEOF
}

now_ms() { "$PY" -c 'import time; print(int(time.time()*1000))'; }

# hook PAYLOAD [ARGS...]: runs `mcphealth hook` with PAYLOAD on stdin; sets OUT, ERR, RC. HOOK_BIN, when set, is
# the binary to run instead.
hook() {
  local payload=$1
  shift
  local errf
  errf=$(mktemp)
  set +e
  OUT=$(printf '%s' "$payload" | "${HOOK_BIN:-$MCPHEALTH_BIN}" hook "$@" 2>"$errf")
  RC=$?
  set -e
  ERR=$(cat "$errf")
  rm -f "$errf"
}

# mcph ARGS...: runs the binary; sets OUT, ERR, RC.
mcph() {
  local errf
  errf=$(mktemp)
  set +e
  OUT=$("$MCPHEALTH_BIN" "$@" 2>"$errf" </dev/null)
  RC=$?
  set -e
  ERR=$(cat "$errf")
  rm -f "$errf"
}

pre_payload() { printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__%s__%s","tool_input":{},"cwd":"%s"}' "$1" "${2:-do_thing}" "$PROJ"; }
post_payload() { printf '{"hook_event_name":"PostToolUse","tool_name":"mcp__%s__%s","tool_input":{},"tool_response":{"content":[]},"cwd":"%s"}' "$1" "${2:-do_thing}" "$PROJ"; }
post_failure_payload() {
  printf '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__%s__do_thing","tool_input":{},"error":"%s","cwd":"%s"}' "$1" "$2" "$PROJ"
}

# write_config FILE JSON: writes a config file, creating its folder.
write_config() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }

# stdio_def MODE [EXTRA ARGS as JSON list items]: a stdio definition running the fixture server.
stdio_def() {
  local extra=${2:-}
  printf '{"command":"%s","args":["%s","--mode","%s"%s]}' "$PY" "$STDIO_SERVER" "$1" "${extra:+,$extra}"
}

# agent_ids: every agent id of the binary's agent table, one per line (as its own error for an unknown --agent lists
# them), so that a test over every agent takes a new one without being edited.
agent_ids() {
  { "$MCPHEALTH_BIN" install --agent '?' 2>&1 || true; } | sed -n 's/.* is not one of \(.*\)$/\1/p' | tr -d ' ' | tr ',' '\n' |
    grep -vx all
}

# two_dbs: two projects, $T/proj-a and $T/proj-b, each with a `db` of its own; proj-b's crashes and its call is
# blocked, then proj-a's answers its call. Sets A and B to the two folders.
two_dbs() {
  A="$T/proj-a" B="$T/proj-b"
  write_config "$A/.mcp.json" "{\"mcpServers\":{\"db\":$(stdio_def healthy)}}"
  write_config "$B/.mcp.json" "{\"mcpServers\":{\"db\":$(stdio_def crash)}}"
  PROJ=$B hook "$(PROJ=$B pre_payload db)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "proj-b's db is blocked"
  PROJ=$A hook "$(PROJ=$A pre_payload db)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"' "proj-a's db answers"
}

STATE() { echo "$HOME/.claude/mcp-health-cache.json"; }

# BINDINGS [STATE_FILE]: every folder's bindings, kept beside the state file a file per folder (state/bindings.hpp),
# gathered into one object by folder key: prints the path of a JSON file to give json_get.
BINDINGS() {
  local state=${1:-$(STATE)} out
  out=$(mktemp "$T/bindings.XXXXXX")
  "$PY" - "$state.d/bindings" "$out" <<'PYEOF'
import glob, json, os, sys
folders = {}
for path in glob.glob(os.path.join(sys.argv[1], "*", "*.json")):
    try:
        stored = json.load(open(path))
    except ValueError:
        continue
    folders[stored.pop("key")] = stored
json.dump(folders, open(sys.argv[2], "w"))
PYEOF
  echo "$out"
}

# STATE_ALL [STATE_FILE]: the state file with every verdict kept beside it (`<state>.d/verdicts`, a file per
# definition) under `definitions`, as mcphealth reads it whole: prints the path of a JSON file to give json_get.
STATE_ALL() {
  local state=${1:-$(STATE)} out
  out=$(mktemp "$T/state-all.XXXXXX")
  "$PY" - "$state" "$out" <<'PYEOF'
import glob, json, os, sys
doc = json.load(open(sys.argv[1])) if os.path.exists(sys.argv[1]) else {"version": 1, "servers": {}}
for path in glob.glob(os.path.join(sys.argv[1] + ".d", "verdicts", "*", "*.json")):
    try:
        stored = json.load(open(path))
    except ValueError:
        continue
    doc.setdefault("definitions", {})[stored.pop("key")] = stored
json.dump(doc, open(sys.argv[2], "w"))
PYEOF
  echo "$out"
}

# seed_binding FOLDER_KEY [JSON]: stores a folder's bindings (default: none bound) where the state keeps them, as a
# hook that ran there would have: `<state>.d/bindings/<shard>/<hash>.json` (state::Shelf::file_of).
seed_binding() {
  "$PY" - "$(STATE).d/bindings" "$1" "${2:-{\}}" "$MCPHEALTH_FIXTURES" <<'PYEOF'
import json, os, sys
sys.path.insert(0, sys.argv[4])
import shelf
path = shelf.file_of(sys.argv[1], sys.argv[2])
os.makedirs(os.path.dirname(path), exist_ok=True)
stored = json.loads(sys.argv[3])
stored["key"] = sys.argv[2]
json.dump(stored, open(path, "w"))
PYEOF
}

# entry_field SERVER FIELD: one field of a server's entry in the state file, as json_get prints it.
entry_field() { json_get "$(STATE)" "d[\"servers\"][\"$1\"][\"$2\"]"; }

# copy_mcphealth DIR: installs a copy of mcphealth as DIR/mcphealth, as `cmake --install` lays it out: the front
# there and the full binary at DIR/../libexec/mcphealth/mcphealth-full (docs/developing.md, "Two binaries").
copy_mcphealth() {
  local full; full=$(dirname "$MCPHEALTH_BIN")/../libexec/mcphealth/mcphealth-full
  mkdir -p "$1" "$1/../libexec/mcphealth"
  cp "$MCPHEALTH_BIN" "$1/mcphealth"
  cp "$full" "$1/../libexec/mcphealth/mcphealth-full"
}

# edit_entries CODE: runs CODE (Python, `e` the entry) on every server entry of the state file and on every verdict
# kept beside it (`<state>.d/verdicts`), as a test that moves time or edits a mark by hand needs.
edit_entries() {
  "$PY" - "$(STATE)" "$1" <<'PYEOF'
import glob, json, os, sys
path, code = sys.argv[1], sys.argv[2]
def rewrite(p, entries_of):
    d = json.load(open(p))
    for e in entries_of(d):
        exec(code, {"e": e})
    with open(p + ".edit", "w") as out:
        json.dump(d, out)
    os.replace(p + ".edit", p)
if os.path.exists(path):
    rewrite(path, lambda d: list(d.get("servers", {}).values()) + list(d.get("definitions", {}).values()))
for p in glob.glob(os.path.join(path + ".d", "verdicts", "*", "*.json")):
    rewrite(p, lambda d: [d])
PYEOF
}

# age_state MS: moves every verdict MS milliseconds into the past (its checks, expiries, retries and outages), as
# if that long had passed: a test of TTLs and backoffs moves time instead of sleeping through it.
age_state() {
  edit_entries "
for f in ('checkedAt', 'expiresAt', 'nextRetryAt', 'lastRestoredAt', 'downSince', 'lastFailedCallAt'):
    if isinstance(e.get(f), int):
        e[f] -= $1"
}

# assert_no_state: nothing was recorded: no state file, and no verdict beside it.
assert_no_state() { assert_no_file "$(STATE)"; assert_no_file "$(STATE).d/verdicts"; }

# forget_state: removes the state file and all mcphealth keeps beside it (verdicts, bindings).
forget_state() { rm -rf "$(STATE)" "$(STATE).d"; }

# seed_state JSON: writes the state file directly, and removes the verdicts kept beside it: the file says them all.
seed_state() { mkdir -p "$HOME/.claude"; rm -rf "$(STATE).d/verdicts"; printf '%s\n' "$1" > "$(STATE)"; }

run_case() {
  local name=$1
  T=$(mktemp -d)
  trap cleanup_case EXIT
  export HOME="$T/home"
  PROJ="$T/proj"
  mkdir -p "$HOME" "$PROJ"
  cd "$PROJ"
  # No mcphealth or JS-hook variable from the caller leaks in; the harness's own stay.
  for v in $(env | grep -oE '^(ECC_[A-Z0-9_]*|MCPHEALTH_[A-Z0-9_]*|CLAUDE_[A-Z0-9_]*)' || true); do
    case $v in
      MCPHEALTH_BIN | MCPHEALTH_FIXTURES | MCPHEALTH_SOURCE_DIR | MCPHEALTH_PLATFORM | MCPHEALTH_STATIC_FRONT | MCPHEALTH_EVERYTHING | MCPHEALTH_TEST_TIMEOUT_MS | MCPHEALTH_REQUIRE_ALL) ;;
      MCPHEALTH_CLAUDE | MCPHEALTH_CLAUDE_NEWEST | MCPHEALTH_REAL_CLAUDE | MCPHEALTH_SDK | MCPHEALTH_SDK_NEWEST | MCPHEALTH_REAL_SDK | MCPHEALTH_QWEN | MCPHEALTH_OPENCODE | MCPHEALTH_HOOK_CAPTURE | MCPHEALTH_CODEX | MCPHEALTH_GEMINI | MCPHEALTH_COPILOT | MCPHEALTH_NPM_BIN | MCPHEALTH_ACTION_VALIDATOR) ;; # the real agents and servers scripts/test installed
      *) unset "$v" ;;
    esac
  done
  unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
  # Nor the caller's terminal: colour and table width are decided per case (CI may run with TERM=dumb, or COLUMNS).
  unset NO_COLOR COLUMNS LINES
  export TERM=xterm
  # Fast probes: the default liveness timeout is 5 s. 1 s leaves a Python fixture room to start on two busy cores
  # (at 400 ms CI once saw one miss it); a sanitized build starts and handshakes slower: it sets more.
  export ECC_MCP_HEALTH_TIMEOUT_MS=${MCPHEALTH_TEST_TIMEOUT_MS:-1000}
  # The user has approved the project's .mcp.json servers, as Claude Code records it; the trust tests undo this.
  write_config "$HOME/.claude/settings.json" '{"enableAllProjectMcpServers":true}'
  # No managed settings of the machine's leak in.
  export MCPHEALTH_MANAGED_DIR="$T/managed"
  "case_$name"
  echo "ok: $name"
}

main() {
  if [ $# -eq 0 ]; then
    for c in $(declare -F | awk '{print $3}' | grep '^case_' | sed 's/^case_//'); do ("$0" "$c") || exit 1; done
  else
    run_case "$1"
  fi
}
