#!/usr/bin/env bash
# The real Copilot CLI (from npm, pinned by scripts/test), driven offline by our fake model, with mcphealth's hooks
# registered by `mcphealth install --agent copilot`: a server that fails mid-session is blocked from the next call
# (the server never sees it), the model reads our reason, the next session starts knowing, and nothing is left
# running.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# copilot_outage CUE: a session whose first turn calls echo ("one") on a healthy server, whose second starts the
# outage CUE and calls it ("two"), and whose third calls it again ("three"); hooks registered as a user would.
copilot_outage() {
  model_script "{\"turns\":[[$(copilot_call one)],{\"write\":[\"$T/cue\",\"$1\"],\"pause_ms\":700,\"calls\":[$(copilot_call two)]},[$(copilot_call three)]]}"
  start_model
  mcph install --agent copilot
  assert_eq "$RC" 0 "install --agent copilot: $ERR"
  copilot_session
}

# assert_third_blocked: the server never saw the third call, and the model read our reason for it (the JSON answer:
# after an exit 2 Copilot CLI shows the model only "hook exited with code 2").
assert_third_blocked() {
  assert_not_contains "$(calls_seen)" "three" "the third call reached the server"
  local results
  results=$(copilot_results)
  assert_contains "$(sed -n '1p' <<<"$results")" 'echo: one' "the first call's result"
  assert_contains "$(sed -n '$p' <<<"$results")" 'Denied by preToolUse hook: Blocked on purpose by mcphealth, the MCP health check (not a hook failure). The MCP server \"svc\" has been down' \
    "the model's text for the blocked call (all it was given back: $results)"
}

# A JSON-RPC error is the server answering: its words ("temporarily unavailable") are the tool's, so the server is
# asked, answers, and is not blocked.
case_a_stdio_servers_error_words_do_not_block_it() {
  need_copilot
  copilot_svc_stdio
  # One such error, then the server answers again (two in a row would be an upstream outage: issue 52 item 4).
  model_script "{\"turns\":[[$(copilot_call one)],$(cue_turn "rpc-error database temporarily unavailable" "$(copilot_call two)"),$(cue_turn ok "$(copilot_call three)")]}"
  start_model
  mcph install --agent copilot
  assert_eq "$RC" 0 "install --agent copilot: $ERR"
  copilot_session
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"].get("svc", {}).get("status")')" unhealthy
  assert_contains "$(calls_seen)" "three" "a server that answers was blocked for its tool's words"
  wait_for_quiet
}

case_http_server_stopped_mid_session_is_blocked_from_the_next_call() {
  need_copilot
  copilot_svc_http
  copilot_outage down
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  assert_eq "$(calls_seen)" "one"
  assert_third_blocked
  wait_for_quiet
}

# A stdio server that exits: Copilot CLI 1.0.102 takes its tools off the next request once it has seen the pipe
# close, which may come before or after that request is built (seen both ways). Either the model is no longer
# offered the tool, or, offered it, its call is blocked with our reason; the verdict is recorded either way.
case_stdio_server_dying_during_a_call_is_marked_down_and_never_called_again() {
  need_copilot
  copilot_svc_stdio
  copilot_outage die
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  assert_contains "$(entry_field svc lastError)" 'MCP transport closed before the tool responded'
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')"
  if [ "$(copilot_last_offers svc-echo)" == yes ]; then
    assert_third_blocked
  fi
  wait_for_quiet
}

case_the_next_session_starts_knowing_the_server_is_down() {
  need_copilot
  copilot_svc_stdio
  copilot_outage die
  rm -f "$T/model.log"
  model_script "{\"turns\":[[$(copilot_call four)]]}"
  copilot_session
  assert_contains "$(copilot_first_messages)" 'MCP servers not available at the start of this session: \"svc\" is down'
  assert_not_contains "$(calls_seen)" "four" "a call while the server is in backoff reached it"
  wait_for_quiet
}

case_explain_config_reads_the_registration_and_uninstall_takes_it_out() {
  need_copilot
  copilot_svc_stdio
  mcph install --agent copilot
  mcph explain-config --agent copilot --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['PreToolUse']")" true
  assert_eq "$(json_eval "$OUT" "[s['name'] for s in d['servers']]")" '["svc"]'
  mcph uninstall --agent copilot
  assert_eq "$RC" 0
  assert_not_contains "$(cat "$HOME/.copilot/settings.json")" "mcphealth"
}

case_a_workspace_server_starts_only_in_a_trusted_folder_as_mcphealth_reads_it() {
  need_copilot
  model_script "{\"turns\":[[$(copilot_call one)]]}"
  start_model
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"type\":\"local\",\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/cue\",\"--calls-file\",\"$T/calls\"],\"tools\":[\"*\"]}}}"
  mcph install --agent copilot
  # Untrusted: Copilot CLI does not start it, and mcphealth does not check it.
  copilot_session
  assert_eq "$(calls_seen)" "" "a server of an untrusted workspace was called"
  mcph explain-config --agent copilot --json
  assert_eq "$(json_eval "$OUT" "[s['name'] for s in d['servers']]")" '[]'
  # Trusted the way Copilot CLI records it (config.json's trustedFolders, under its comment lines).
  write_config "$HOME/.copilot/config.json" "// managed
{\"trustedFolders\":[\"$PROJ\"]}"
  copilot_session
  assert_eq "$(calls_seen)" "one"
  assert_eq "$(entry_field svc status)" healthy
  assert_eq "$(entry_field svc scope)" project
  wait_for_quiet
}

# A server slower than the `timeout` its mcp-config.json gives it: Copilot CLI 1.0.102 fails the call with
# "MCP server 'svc': McpError: MCP error -32001: Request timed out", and would send the next one to the server
# still busy with it. The client timed out: an outage of its own kind, and the next call is blocked (before, the
# third call went out and timed out too).
case_a_call_slower_than_copilot_cli_waits_for_is_a_timeout() {
  need_copilot
  write_config "$HOME/.copilot/mcp-config.json" "{\"mcpServers\":{\"svc\":{\"type\":\"local\",\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/cue\",\"--calls-file\",\"$T/calls\"],\"tools\":[\"*\"],\"timeout\":1500}}}"
  copilot_outage "slow 4000"
  assert_eq "$(entry_field svc lastFailureCode)" timeout
  assert_eq "$(entry_field svc lastError)" "MCP server 'svc': McpError: MCP error -32001: Request timed out"
  assert_third_blocked
  wait_for_quiet
}

main "$@"
