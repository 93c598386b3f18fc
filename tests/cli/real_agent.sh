# Helpers for the cases that run a real coding agent (sourced after lib.sh): a scripted fake model on 127.0.0.1,
# the session fixture server that fails on cue, and readers for what the model was shown.
# Needs: GNU timeout, Linux's /proc
SESSION_SERVER="$MCPHEALTH_FIXTURES/session_server.py"
FAKE_MODEL="$MCPHEALTH_FIXTURES/fake_model.py"

# model_script JSON: what the fake model does, turn by turn (see fake_model.py); start_model serves it.
model_script() { printf '%s\n' "$1" > "$T/script.json"; }
start_model() {
  start_fixture "$FAKE_MODEL" --script "$T/script.json" --log-file "$T/model.log"
  MODEL_PORT=$HTTP_PORT
}

# echo_call TEXT: one call of the session server's echo tool, as the script writes it.
echo_call() { printf '{"name":"mcp__svc__echo","input":{"text":"%s"}}' "$1"; }

# cue_turn CUE CALLS...: a turn that sets the server's cue, waits for it to act, then makes CALLS at once.
cue_turn() {
  local cue=$1
  shift
  local IFS=,
  printf '{"write":["%s","%s"],"pause_ms":700,"calls":[%s]}' "$T/cue" "$cue" "$*"
}

# svc_stdio / svc_http: the project's .mcp.json defines `svc` as the session server (healthy until its cue says
# otherwise); every tools/call it sees is a line of $T/calls.
svc_stdio() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/cue\",\"--calls-file\",\"$T/calls\"]}}}"
}
svc_http() {
  start_fixture "$SESSION_SERVER" http --cue-file "$T/cue" --calls-file "$T/calls"
  SVC_PORT=$HTTP_PORT
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:$SVC_PORT/mcp\"}}}"
}

# calls_seen: the echo texts the server was called with, one per line.
calls_seen() { [ -f "$T/calls" ] && "$PY" -c 'import json,sys; [print(json.loads(l).get("text","")) for l in open(sys.argv[1])]' "$T/calls" || true; }

# tool_results: the tool_result texts of the session's last model request, in order, one JSON string per line
# (each followed by the system reminders the client put after it, as the model read them).
tool_results() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
last = None
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if any(str(t.get("name", "")).startswith("mcp__") for t in body.get("tools") or []):
        if last is None or len(body.get("messages", [])) >= len(last.get("messages", [])):
            last = body
for m in (last or {}).get("messages", []):
    if m.get("role") != "user" or not isinstance(m.get("content"), list):
        continue
    for block in m["content"]:
        if block.get("type") == "tool_result":
            c = block.get("content")
            text = c if isinstance(c, str) else " ".join(x.get("text", "") for x in c or [] if isinstance(x, dict))
            print(json.dumps(text))
        elif block.get("type") == "text" and "system-reminder" in block.get("text", ""):
            print(json.dumps("reminder: " + block["text"]))
PYEOF
}

# first_request: the whole first request of the session's conversation (the one that offers tools), as JSON text.
first_request() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if body.get("tools"):
        print(json.dumps(body))
        break
PYEOF
}

# no_agent_env: the env(1) arguments that drop every variable of a coding agent or model the caller has.
no_agent_env() {
  local v
  for v in $(env | grep -oE '^(CLAUDE[A-Z0-9_]*|ANTHROPIC[A-Z0-9_]*|IS_SANDBOX|OPENAI[A-Z0-9_]*|GEMINI[A-Z0-9_]*|GOOGLE[A-Z0-9_]*|COPILOT[A-Z0-9_]*|CODEX[A-Z0-9_]*)=' | tr -d '='); do
    printf -- '-u\n%s\n' "$v"
  done
}

# wait_for_quiet: waits (at most 10 s) until no process but the case's own fixtures runs from this case's folder:
# the agent's servers and mcphealth's background refreshes end with the session. Fails when one stays.
wait_for_quiet() {
  local left
  for _ in $(seq 1 100); do
    left=$(pgrep -f -- "$T" | grep -vxF -e "$$" $(printf -- '-e %s ' "${FIXTURE_PIDS[@]}") || true)
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  fail "left running after the session: $(for p in $left; do tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null; echo; done)"
}

# agent_session WHO ENV-ARGS... COMMAND...: one session of a real agent in $PROJ, as env(1) runs it (assignments,
# then the command), without any agent variable of the caller's and with nothing on stdin; sets OUT, ERR, RC and
# fails when it exits non-zero.
agent_session() {
  local who=$1 errf
  shift
  errf=$(mktemp)
  set +e
  OUT=$(cd "$PROJ" && env $(no_agent_env) "$@" 2>"$errf" </dev/null)
  RC=$?
  set -e
  ERR=$(cat "$errf")
  rm -f "$errf"
  [ "$RC" -eq 0 ] || fail "$who exited $RC: $ERR"
}

# need_claude: the case needs the real Claude Code. ctest runs the suite under both versions scripts/test
# installs: the oldest supported (MCPHEALTH_CLAUDE) and, with MCPHEALTH_REAL_CLAUDE=newest, the newest
# (MCPHEALTH_CLAUDE_NEWEST).
need_claude() {
  if [ "${MCPHEALTH_REAL_CLAUDE:-}" = newest ]; then
    need_claude_newest
    return
  fi
  CLAUDE_BIN=${MCPHEALTH_CLAUDE:-}
  [ -n "$CLAUDE_BIN" ] && [ -x "$CLAUDE_BIN" ] || skip "needs the real claude (MCPHEALTH_CLAUDE; scripts/test installs it)"
}

# need_claude_newest: the case needs the newest Claude Code (MCPHEALTH_CLAUDE_NEWEST; scripts/test installs it).
need_claude_newest() {
  CLAUDE_BIN=${MCPHEALTH_CLAUDE_NEWEST:-}
  [ -n "$CLAUDE_BIN" ] && [ -x "$CLAUDE_BIN" ] || skip "needs the newest claude (MCPHEALTH_CLAUDE_NEWEST; scripts/test installs it)"
}

# claude_session [ARGS...]: one `claude -p` session in $PROJ against the fake model; sets OUT (stream-json), RC.
claude_session() {
  agent_session "claude" ANTHROPIC_BASE_URL="http://127.0.0.1:$MODEL_PORT" ANTHROPIC_API_KEY=sk-test \
    DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 \
    ENABLE_TOOL_SEARCH=false \
    timeout 120 "$CLAUDE_BIN" -p "Use the echo tool." --output-format stream-json --verbose \
    --dangerously-skip-permissions "$@"
}


# The sample of real MCP servers from npm (tests/fixtures/npm_sample.py), held against `claude mcp list`.

# need_sample: the case needs the sample's packages (MCPHEALTH_NPM_BIN, set by scripts/test).
need_sample() {
  need_claude
  NPM_BIN=${MCPHEALTH_NPM_BIN:-}
  [ -n "$NPM_BIN" ] && [ -x "$NPM_BIN/mcp-server-redis" ] || skip "needs the npm sample (MCPHEALTH_NPM_BIN; scripts/test installs it)"
}

# start_everything_http: server-everything over Streamable HTTP on a free port; sets EVERYTHING_URL.
start_everything_http() {
  local port
  port=$(free_port)
  PORT=$port "$NPM_BIN/mcp-server-everything" streamableHttp >"$T/everything-http.log" 2>&1 &
  FIXTURE_PIDS+=($!)
  for _ in $(seq 1 200); do
    grep -q "listening on port $port" "$T/everything-http.log" && break
    sleep 0.05
  done
  grep -q "listening on port $port" "$T/everything-http.log" || fail "server-everything over HTTP did not start"
  EVERYTHING_URL="http://127.0.0.1:$port/mcp"
}

# write_sample: the sample as user-scope servers in a trusted $PROJ, its HTTP server started; the record of what
# Claude Code says of each in $T/expected.
write_sample() {
  start_everything_http
  mkdir -p "$T/work"
  write_config "$HOME/.claude.json" "{\"hasCompletedOnboarding\":true,\"projects\":{\"$PROJ\":{\"hasTrustDialogAccepted\":true}}}"
  "$PY" "$MCPHEALTH_FIXTURES/npm_sample.py" --bin "$NPM_BIN" --home "$HOME" --work "$T/work" \
    --http-url "$EVERYTHING_URL" --refused-url "http://127.0.0.1:$(free_port)/mcp" | sort > "$T/expected"
}

# probe_verdicts FILE: `probe --all --json` output in FILE as `NAME up|down` lines, sorted.
probe_verdicts() {
  "$PY" - "$1" <<'PYEOF'
import json, sys
up = {"healthy", "reachable", "needs-auth", "alive-silent"}
for s in sorted(json.load(open(sys.argv[1]))["servers"], key=lambda s: s["name"]):
    print(s["name"], "up" if s["status"] in up else "down")
PYEOF
}

# unverified FILE: the servers `probe --all --json` output in FILE has up without an MCP answer.
unverified() {
  "$PY" -c 'import json,sys; print(" ".join(s["name"] for s in json.load(open(sys.argv[1]))["servers"] if s["ok"] and s["status"] != "healthy"))' "$1"
}

# claude_verdicts: `claude mcp list` in $PROJ as `NAME up|down` lines, sorted (Needs authentication counts up, as
# in mcphealth); its wall time (ms) in $T/claude.ms.
claude_verdicts() {
  local start
  start=$(date +%s%3N)
  (cd "$PROJ" && env $(no_agent_env) DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    DISABLE_AUTOUPDATER=1 timeout 100 "$CLAUDE_BIN" mcp list </dev/null) > "$T/claude.out" 2>&1 ||
    fail "claude mcp list failed: $(cat "$T/claude.out")"
  echo $(( $(date +%s%3N) - start )) > "$T/claude.ms"
  sed -nE 's/^([^ :]+): .* - (✔ Connected|⚠ Needs authentication)$/\1 up/p; s/^([^ :]+): .* - ✘ Failed to connect$/\1 down/p' \
    "$T/claude.out" | sort > "$T/claude.verdicts"
}

# Gemini CLI (from npm, pinned by scripts/test), driven offline by the same fake model (its generateContent API).

# need_gemini: the case needs the real Gemini CLI (MCPHEALTH_GEMINI names it).
need_gemini() {
  GEMINI_BIN=${MCPHEALTH_GEMINI:-}
  [ -n "$GEMINI_BIN" ] && [ -x "$GEMINI_BIN" ] || skip "needs the real gemini (MCPHEALTH_GEMINI; scripts/test installs it)"
}

# gemini_svc_stdio / gemini_svc_http: the user's ~/.gemini/settings.json defines `svc` as the session server
# (trusted, so headless mode offers its tools), with an API key as the auth; $PROJ is a trusted folder.
gemini_settings() {
  write_config "$HOME/.gemini/settings.json" "{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}},\"mcpServers\":{\"svc\":$1}}"
  write_config "$HOME/.gemini/trustedFolders.json" "{\"$PROJ\":\"TRUST_FOLDER\"}"
}
gemini_svc_stdio() {
  gemini_settings "{\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/cue\",\"--calls-file\",\"$T/calls\"],\"trust\":true}"
}
gemini_svc_http() {
  start_fixture "$SESSION_SERVER" http --cue-file "$T/cue" --calls-file "$T/calls"
  SVC_PORT=$HTTP_PORT
  gemini_settings "{\"httpUrl\":\"http://127.0.0.1:$SVC_PORT/mcp\",\"trust\":true}"
}

# gemini_call TEXT: one call of the session server's echo tool, as Gemini CLI names it.
gemini_call() { printf '{"name":"mcp_svc_echo","input":{"text":"%s"}}' "$1"; }

# gemini_session: one headless `gemini -p` session in $PROJ against the fake model; sets OUT (JSON), ERR, RC.
gemini_session() {
  agent_session "gemini" GEMINI_API_KEY=x GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$MODEL_PORT" \
    GEMINI_CLI_SYSTEM_SETTINGS_PATH="$T/etc-gemini/settings.json" NO_BROWSER=true \
    timeout 120 "$GEMINI_BIN" -m gemini-2.5-flash -p "Use the echo tool." -o json
}

# gemini_results: what the model was given back for each tool call of the session's last request, in order, one
# JSON line each ({"output": ...} or {"error": ...}).
gemini_results() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
last = None
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if "contents" in body and (last is None or len(body["contents"]) >= len(last["contents"])):
        last = body
for c in (last or {}).get("contents", []):
    for part in c.get("parts", []):
        if "functionResponse" in part:
            print(json.dumps(part["functionResponse"].get("response", {})))
PYEOF
}

# gemini_first_text: the text parts of the session's first model request (where SessionStart context goes).
gemini_first_text() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if "contents" in body:
        print(" ".join(p.get("text", "") for c in body["contents"] for p in c.get("parts", [])))
        break
PYEOF
}

# Copilot CLI (from npm, pinned by scripts/test), driven offline by the same fake model (chat completions).

# need_copilot: the case needs the real Copilot CLI (MCPHEALTH_COPILOT names it).
need_copilot() {
  COPILOT_BIN=${MCPHEALTH_COPILOT:-}
  [ -n "$COPILOT_BIN" ] && [ -x "$COPILOT_BIN" ] || skip "needs the real copilot (MCPHEALTH_COPILOT; scripts/test installs it)"
}

# copilot_svc_stdio: the user's ~/.copilot/mcp-config.json defines `svc` as the session server.
copilot_svc_stdio() {
  write_config "$HOME/.copilot/mcp-config.json" "{\"mcpServers\":{\"svc\":{\"type\":\"local\",\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/cue\",\"--calls-file\",\"$T/calls\"],\"tools\":[\"*\"]}}}"
}

# copilot_svc_http: the same, as the session server over Streamable HTTP (a cue of `down` stops it listening).
copilot_svc_http() {
  start_fixture "$SESSION_SERVER" http --cue-file "$T/cue" --calls-file "$T/calls"
  SVC_PORT=$HTTP_PORT
  write_config "$HOME/.copilot/mcp-config.json" "{\"mcpServers\":{\"svc\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:$SVC_PORT/mcp\",\"tools\":[\"*\"]}}}"
}

# copilot_call TEXT: one call of the session server's echo tool, as Copilot CLI names it.
copilot_call() { printf '{"name":"svc-echo","input":{"text":"%s"}}' "$1"; }

# copilot_session: one `copilot -p` session in $PROJ against the fake model; sets OUT, ERR, RC.
copilot_session() {
  agent_session "copilot" COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$MODEL_PORT/v1" \
    COPILOT_MODEL=gpt-4.1 COPILOT_PROVIDER_API_KEY=x COPILOT_AUTO_UPDATE=false \
    timeout 120 "$COPILOT_BIN" -p "Use the echo tool." --allow-all-tools --no-auto-update -s
}

# copilot_results: the tool messages of the session's last model request, in order, one JSON string per line.
copilot_results() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
last = None
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if body.get("tools") and (last is None or len(body.get("messages", [])) >= len(last.get("messages", []))):
        last = body
for m in (last or {}).get("messages", []):
    if m.get("role") == "tool":
        print(json.dumps(m.get("content")))
PYEOF
}

# copilot_last_offers TOOL: "yes" when the session's last model request still offered TOOL, else "no".
copilot_last_offers() {
  "$PY" - "$T/model.log" "$1" <<'PYEOF'
import json, sys
last = None
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if body.get("tools") and (last is None or len(body.get("messages", [])) >= len(last.get("messages", []))):
        last = body
names = [t.get("function", {}).get("name") for t in (last or {}).get("tools") or []]
print("yes" if sys.argv[2] in names else "no")
PYEOF
}

# copilot_first_messages: the user messages of the session's first model request, as JSON text.
copilot_first_messages() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if body.get("tools"):
        print(json.dumps([m.get("content") for m in body.get("messages", []) if m.get("role") == "user"]))
        break
PYEOF
}

# Codex CLI (from npm, pinned by scripts/test), driven offline by the same fake model (the Responses API).

# need_codex: the case needs the real Codex CLI (MCPHEALTH_CODEX names it).
need_codex() {
  CODEX_BIN=${MCPHEALTH_CODEX:-}
  [ -n "$CODEX_BIN" ] && [ -x "$CODEX_BIN" ] || skip "needs the real codex (MCPHEALTH_CODEX; scripts/test installs it)"
}

# codex_config: the user's ~/.codex/config.toml points Codex at the fake model and trusts $PROJ, whose
# .codex/config.toml defines `svc` as the session server (healthy until its cue says otherwise).
codex_config() {
  write_config "$HOME/.codex/config.toml" "model = \"fake-model\"
model_provider = \"fake\"
approval_policy = \"never\"

[model_providers.fake]
name = \"fake\"
base_url = \"http://127.0.0.1:$MODEL_PORT/v1\"
wire_api = \"responses\"
request_max_retries = 0
stream_max_retries = 0

[projects.\"$PROJ\"]
trust_level = \"trusted\""
  write_config "$PROJ/.codex/config.toml" "[mcp_servers.svc]
command = \"$PY\"
args = [\"$SESSION_SERVER\", \"stdio\", \"--cue-file\", \"$T/cue\", \"--calls-file\", \"$T/calls\"]
default_tools_approval_mode = \"approve\""
}

# codex_install: `mcphealth install --agent codex`, with the real codex on PATH (install asks it to trust the hooks).
codex_install() {
  PATH="$(dirname "$CODEX_BIN"):$PATH" mcph install --agent codex "$@"
  assert_eq "$RC" 0 "install --agent codex: $ERR"
}

# codex_session: one `codex exec` session in $PROJ against the fake model; sets OUT (JSON lines), ERR, RC.
codex_session() {
  agent_session "codex" -u RUST_BACKTRACE timeout 120 "$CODEX_BIN" exec --json --skip-git-repo-check \
    "Use the echo tool."
}

# codex_results: what the model was given back for each tool call, from the session's last request, in order, one
# JSON string per line.
codex_results() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
last = None
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if "input" in body and (last is None or len(body["input"]) >= len(last["input"])):
        last = body
for item in (last or {}).get("input", []):
    if item.get("type") == "function_call_output":
        out = item.get("output")
        print(json.dumps(out if isinstance(out, str) else " ".join(x.get("text", "") for x in out or [])))
PYEOF
}

# codex_developer_text: the developer messages of the session's first request (where SessionStart context goes).
codex_developer_text() {
  "$PY" - "$T/model.log" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if "input" in body:
        print(" ".join(c.get("text", "") for m in body["input"] if m.get("role") == "developer" for c in m.get("content", [])))
        break
PYEOF
}

# The Claude Agent SDK (@anthropic-ai/claude-agent-sdk, pinned by scripts/test): query() runs its own bundled
# Claude Code, which reads the same files and sends the same hooks.

# need_sdk: the case needs the SDK (MCPHEALTH_SDK names its sdk.mjs, MCPHEALTH_SDK_NEWEST the newest's, which
# MCPHEALTH_REAL_SDK=newest picks; scripts/test installs both).
need_sdk() {
  SDK_MJS=${MCPHEALTH_SDK:-}
  [ "${MCPHEALTH_REAL_SDK:-}" != newest ] || SDK_MJS=${MCPHEALTH_SDK_NEWEST:-}
  [ -n "$SDK_MJS" ] && [ -f "$SDK_MJS" ] || skip "needs the Agent SDK (MCPHEALTH_SDK, MCPHEALTH_SDK_NEWEST; scripts/test installs them)"
  command -v node >/dev/null || skip "needs node"
}

# sdk_session OPTIONS: one query() in $PROJ against the fake model, with the SDK's OPTIONS (JSON; cwd is added);
# sets OUT (the stream, one message per line), RC.
sdk_session() {
  local options
  options=$("$PY" -c 'import json,sys; o=json.loads(sys.argv[1]); o["cwd"]=sys.argv[2]; print(json.dumps(o))' "$1" "$PROJ")
  agent_session "the SDK session" ANTHROPIC_BASE_URL="http://127.0.0.1:$MODEL_PORT" ANTHROPIC_API_KEY=sk-test \
    DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 ENABLE_TOOL_SEARCH=false \
    timeout 120 node "$MCPHEALTH_FIXTURES/sdk_session.mjs" "$SDK_MJS" "$options"
}

# Qwen Code (@qwen-code/qwen-code, pinned by scripts/test): Claude Code's hooks and payloads in its own settings
# files, driven through the fake model's chat completions.

# need_qwen: the case needs the real Qwen Code (MCPHEALTH_QWEN; scripts/test installs it).
need_qwen() {
  QWEN_BIN=${MCPHEALTH_QWEN:-}
  [ -n "$QWEN_BIN" ] && [ -x "$QWEN_BIN" ] || skip "needs the real qwen (MCPHEALTH_QWEN; scripts/test installs it)"
}

# qwen_settings FILE SERVERS: a Qwen Code settings file that uses the fake model, with no telemetry, its MCP tools
# declared to the model up front (not behind tool_search), and SERVERS (JSON) as its mcpServers.
qwen_settings() {
  write_config "$1" "{\"security\":{\"auth\":{\"selectedType\":\"openai\"}},\"telemetry\":{\"enabled\":false},\"privacy\":{\"usageStatisticsEnabled\":false},\"tools\":{\"toolSearch\":{\"enabled\":false}},\"mcpServers\":$2}"
}

# qwen_svc_def: the session server as a Qwen Code stdio definition (JSON).
qwen_svc_def() {
  printf '{"command":"%s","args":["%s","stdio","--cue-file","%s","--calls-file","%s"],"trust":true}' "$PY" "$SESSION_SERVER" "$T/cue" "$T/calls"
}

# qwen_session: one non-interactive Qwen Code run in $PROJ against the fake model; sets OUT, RC.
qwen_session() {
  agent_session "qwen" -u QWEN_CODE -u QWEN_SANDBOX OPENAI_BASE_URL="http://127.0.0.1:$MODEL_PORT/v1" \
    OPENAI_API_KEY=x OPENAI_MODEL=fake-model timeout 120 "$QWEN_BIN" --auth-type openai --approval-mode yolo -o json \
    "Use the echo tool."
}

# opencode (opencode-ai, pinned by scripts/test): its plugins get MCP calls, and mcphealth's plugin hands them to
# the hook; driven through the fake model's chat completions. Tool names are `<server>_<tool>`.

# need_opencode: the case needs the real opencode (MCPHEALTH_OPENCODE; scripts/test installs it).
need_opencode() {
  OPENCODE_BIN=${MCPHEALTH_OPENCODE:-}
  [ -n "$OPENCODE_BIN" ] && [ -x "$OPENCODE_BIN" ] || skip "needs the real opencode (MCPHEALTH_OPENCODE; scripts/test installs it)"
}

opencode_call() { printf '{"name":"svc_echo","input":{"text":"%s"}}' "$1"; }

# opencode_config SERVERS: ~/.config/opencode/opencode.json using the fake model, with SERVERS (JSON) as its `mcp`.
# Each config folder is seeded with what opencode would otherwise install from npm before it starts (its plugin
# types), which offline costs a minute of retries.
opencode_config() {
  write_config "$HOME/.config/opencode/opencode.json" "{\"autoupdate\":false,\"share\":\"disabled\",\"model\":\"fake/fake-model\",\"small_model\":\"fake/fake-model\",\"provider\":{\"fake\":{\"npm\":\"@ai-sdk/openai-compatible\",\"name\":\"Fake\",\"options\":{\"baseURL\":\"http://127.0.0.1:$MODEL_PORT/v1\",\"apiKey\":\"x\"},\"models\":{\"fake-model\":{\"name\":\"Fake model\",\"tool_call\":true}}}},\"mcp\":$1}"
  local dir
  for dir in "$HOME/.config/opencode" "$PROJ/.opencode"; do
    mkdir -p "$dir/node_modules"
    printf '{"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}\n' > "$dir/package-lock.json"
  done
}

# opencode_svc_def: the session server as an opencode local definition (JSON).
opencode_svc_def() {
  printf '{"type":"local","command":["%s","%s","stdio","--cue-file","%s","--calls-file","%s"],"enabled":true}' "$PY" "$SESSION_SERVER" "$T/cue" "$T/calls"
}

# opencode_session: one `opencode run` in $PROJ against the fake model; sets OUT, ERR, RC.
opencode_session() {
  agent_session "opencode" OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
    OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 timeout 120 "$OPENCODE_BIN" run --print-logs --format json \
    "Use the echo tool."
}
