#!/usr/bin/env bash
# The real opencode (from npm, pinned by scripts/test), driven offline by our fake model's chat completions, with
# mcphealth's plugin written by `mcphealth install --agent opencode`: a healthy call, a server failing mid-session
# (opencode tells plugins only through its events), and the next call blocked with our reason, which the model
# reads as it is; uninstall takes the plugin away.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# A JSON-RPC error is the server answering: its words ("temporarily unavailable") are the tool's own, so the
# server is asked, answers, and the next call reaches it.
case_a_servers_error_words_do_not_block_it() {
  need_opencode
  # One such error, then the server answers again (two in a row would be an upstream outage: issue 52 item 4).
  model_script "{\"turns\":[[$(opencode_call one)],$(cue_turn "rpc-error database temporarily unavailable" "$(opencode_call two)"),$(cue_turn ok "$(opencode_call three)")]}"
  start_model
  opencode_config "{\"svc\":$(opencode_svc_def)}"
  mcph install --agent opencode
  assert_eq "$RC" 0 "install"
  assert_contains "$OUT" "plugin: added"
  opencode_session
  assert_contains "$(calls_seen)" "three" "a server that answers was blocked for its tool's words"
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"].get("svc", {}).get("status")')" unhealthy
  mcph explain-config --agent opencode --cwd "$PROJ"
  assert_not_contains "$OUT" "not registered"
  mcph explain-config --agent opencode --cwd "$PROJ" --json
  assert_eq "$(json_eval "$OUT" '[d["hooks"]["preToolUse"], d["hooks"]["postToolUseFailure"]]')" '[true, true]' "the plugin is found"
  mcph uninstall --agent opencode
  assert_eq "$RC" 0 "uninstall"
  assert_no_file "$HOME/.config/opencode/plugins/mcphealth.js"
  wait_for_quiet
}

# A server known down at a session's start: the plugin hands SessionStart over and puts our answer in the system
# prompt (experimental.chat.system.transform), so the model knows before its first call.
case_the_next_session_starts_knowing_the_server_is_down() {
  need_opencode
  model_script "{\"turns\":[[$(opencode_call one)]]}"
  start_model
  opencode_config "{\"svc\":$(opencode_svc_def)}"
  mcph install --agent opencode
  echo down > "$T/cue"
  mcph probe --all --agent opencode --cwd "$PROJ"
  assert_eq "$(entry_field svc status)" unhealthy
  opencode_session
  local system
  system=$("$PY" - "$T/model.log" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    if body.get("tools"):
        print(json.dumps(" ".join(m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                                  for m in body.get("messages", []) if m.get("role") == "system")))
        break
PYEOF
)
  assert_contains "$system" 'MCP servers not available at the start of this session: \"svc\" is down' \
    "the model's first request"
  wait_for_quiet
}

# A server slower than the `timeout` its definition gives it: opencode 1.18.33 fails the call with the MCP SDK's
# "MCP error -32001: Request timed out" and would send the next one to the server still busy with the last. The
# client timed out: an outage of its own kind, and the next call is blocked (before, the third call reached it).
case_a_call_slower_than_opencode_waits_for_is_a_timeout() {
  need_opencode
  model_script "{\"turns\":[[$(opencode_call one)],$(cue_turn "slow 4000" "$(opencode_call two)"),[$(opencode_call three)]]}"
  start_model
  local def
  def=$(opencode_svc_def)
  opencode_config "{\"svc\":${def%\}},\"timeout\":1500}}"
  mcph install --agent opencode
  assert_eq "$RC" 0 "install"
  opencode_session
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')" "the third call never reached the slow server"
  assert_eq "$(entry_field svc lastFailureCode)" timeout
  assert_eq "$(entry_field svc lastError)" 'MCP error -32001: Request timed out'
  wait_for_quiet
}

main "$@"
