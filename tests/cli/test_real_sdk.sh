#!/usr/bin/env bash
# The real Claude Agent SDK (from npm, pinned by scripts/test): a query() script, as overnight batches are written,
# driven offline by our fake model. With default options the hooks `mcphealth install` wrote fire; a script that
# reads no settings file passes the same hooks in its options; a server the script itself defines (mcpServers,
# which the client calls `dynamic`) is gated too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# sdk_script: turn 1 calls echo on a healthy server ("one"); turn 2 takes the server down and calls it ("two");
# turn 3 calls it again ("three"), which must not reach it.
sdk_script() {
  model_script "{\"turns\":[[$(echo_call one)],$(cue_turn down "$(echo_call two)"),[$(echo_call three)]]}"
  start_model
}

# assert_third_blocked: the server took the first call only, and the model read our reason for the third.
assert_third_blocked() {
  assert_eq "$(calls_seen)" "one" "the calls that reached the server"
  local results
  results=$(tool_results)
  assert_contains "$results" "echo: one" "the healthy call's result"
  assert_contains "$(sed -n '$p' <<<"$results")" 'PreToolUse:mcp__svc__echo hook error: Blocked on purpose by mcphealth, the MCP health check (not a hook failure). The MCP server \"svc\" has been down' \
    "the model's text for the blocked call"
  assert_contains "$OUT" '"permission_denials":[{"tool_name":"mcp__svc__echo"' "the SDK's result lists the denial"
}

case_default_options_run_the_installed_hooks() {
  need_sdk
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":$(printf '{"command":"%s","args":["%s","stdio","--cue-file","%s","--calls-file","%s"]}' "$PY" "$SESSION_SERVER" "$T/cue" "$T/calls")}}"
  sdk_script
  mcph install
  assert_eq "$RC" 0 "install"
  sdk_session '{"allowedTools":["mcp__svc__echo"]}'
  assert_third_blocked
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc source)" "$HOME/.claude.json"
  wait_for_quiet
}

# The script reads no settings file (settingSources: []) and defines its server itself: the hooks go in its
# options, as docs/agents.md's "Agent SDK scripts" shows, and the server is found on the client's command line.
case_a_script_with_its_own_servers_and_hooks_is_gated() {
  need_sdk
  sdk_script
  local hook options
  hook="$MCPHEALTH_BIN hook --agent claude-code"
  options=$("$PY" - "$hook" "$PY" "$SESSION_SERVER" "$T" <<'PYEOF'
import json, sys
hook, py, server, t = sys.argv[1:]
entry = lambda matcher: [{"matcher": matcher, "hooks": [{"type": "command", "command": hook}]}]
print(json.dumps({
    "allowedTools": ["mcp__svc__echo"],
    "settingSources": [],
    "settings": {"hooks": {"PreToolUse": entry("mcp__.*"), "PostToolUseFailure": entry("mcp__.*"),
                           "PostToolUse": entry("mcp__.*"), "SessionStart": entry("")}},
    "mcpServers": {"svc": {"command": py, "args": [server, "stdio", "--cue-file", t + "/cue", "--calls-file", t + "/calls"]}},
}))
PYEOF
)
  sdk_session "$options"
  assert_third_blocked
  assert_eq "$(entry_field svc status)" unhealthy
  if [ "${MCPHEALTH_REAL_SDK:-}" != newest ]; then
    # The client calls it `dynamic`; the hook found its definition on the client's command line, where the SDK put it.
    assert_eq "$(entry_field svc scope)" command-line
    assert_eq "$(json_get "$(BINDINGS)" '"svc@dynamic" in [k for b in d.values() for k in b["names"] if "definition" in b["names"][k]]')" true
    mcph doctor
    assert_contains "$OUT" "sdk: an Agent SDK 0.3.332 script ran the hook"
    assert_contains "$OUT" "gated like any other"
  else
    # 0.3.336 hands it to Claude Code over stdin: known by its name from the failed call alone (no definition, so
    # never probed), its third call blocked all the same; doctor says so.
    assert_eq "$(entry_field svc scope)" ""
    mcph doctor
    assert_contains "$OUT" "sdk: an Agent SDK 0.3.336 script ran the hook"
    assert_contains "$OUT" "known only by its name, from its first failed call"
  fi
  wait_for_quiet
}

main "$@"
