#!/usr/bin/env bash
# The JS hook's stderr lines, one case per line: its users grep its log for them ("if the word `skipping` appears,
# blocking is working; if `connection restored` appears, the reconnect succeeded"), so mcphealth says each one, with
# the same words, for the same event (docs/migrating.md lists them). The reference is the JS hook's own source
# (mcp-health-check.js of everything-claude-code), read by hand; mcphealth may add lines of its own after them.
source "$(dirname "$0")/lib.sh"

flag_config() { write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\"")}}"; }

case_pre_a_server_in_its_backoff_is_marked_unhealthy_until_and_skipping() {
  flag_config
  hook "$(pre_payload svc)"
  hook "$(pre_payload svc)"
  grep -qE '^\[MCPHealthCheck\] svc is marked unhealthy until [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z; skipping do_thing$' <<<"$ERR" ||
    fail "the JS hook's backoff line: $ERR"
}

case_pre_a_name_no_config_defines_is_no_mcp_config_found() {
  flag_config
  hook "$(pre_payload ghost)"
  assert_contains "$ERR" "[MCPHealthCheck] No MCP config found for ghost; skipping preflight probe"
}

case_pre_a_server_found_down_is_unavailable_blocking_so_claude_can_fall_back() {
  flag_config
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "[MCPHealthCheck] svc is unavailable ("
  assert_contains "$ERR" "). Blocking do_thing so Claude can fall back to non-MCP tools."
  assert_not_contains "$ERR" "Reconnect attempt" # none was attempted (no command)
}

case_pre_a_reconnect_attempt_is_the_last_words_of_the_block_line() {
  flag_config
  export ECC_MCP_RECONNECT_COMMAND="echo pm2 is not running >&2; exit 3"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "so Claude can fall back to non-MCP tools. Reconnect attempt: "
  assert_contains "$ERR" "pm2 is not running"
  forget_state
  export ECC_MCP_RECONNECT_COMMAND=true # it "succeeds", and the server is still down
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "; reconnect reprobe failed: "
  assert_contains "$ERR" "so Claude can fall back to non-MCP tools. Reconnect attempt: ok."
}

case_pre_a_server_back_after_its_backoff_is_connection_restored() {
  flag_config
  hook "$(pre_payload svc)"
  touch "$T/up"
  age_state 31000 # its 30 s backoff is over
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "[MCPHealthCheck] svc connection restored"
}

case_pre_a_server_its_reconnect_brings_back_is_connection_restored_after_reconnect() {
  flag_config
  export ECC_MCP_RECONNECT_COMMAND="touch $T/up"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_contains "$ERR" "[MCPHealthCheck] svc connection restored after reconnect"
}

case_pre_a_cut_payload_is_hook_input_exceeded() {
  export ECC_HOOK_INPUT_MAX_BYTES=64
  local payload='{"hook_event_name":"PreToolUse","tool_name":"mcp__svc__big_tool","tool_input":{"blob":"'"$(head -c 500 /dev/zero | tr '\0' x)"'"}}'
  hook "$payload"
  assert_contains "$ERR" "[MCPHealthCheck] Hook input exceeded 64 bytes while checking svc; blocking big_tool to avoid bypassing MCP health checks"
}

case_failure_is_reported_marking_server_unhealthy_and_attempting_reconnect() {
  flag_config
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] svc reported transport; marking server unhealthy and attempting reconnect"
}

# A tool's words that carry a status, from a stdio server: the line names the status the words reported, as the JS
# hook's does (ECC's "post-failure reconnect command restores server health when a reprobe succeeds"), though the
# server, asked, is down for exiting (recorded as a transport failure).
case_failure_in_words_with_a_status_is_reported_with_that_status() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\",\"--message\",\"401 Unauthorized\"")}}"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/up"
  hook "$(post_failure_payload svc "401 Unauthorized")"
  assert_contains "$ERR" "[MCPHealthCheck] svc reported 401; marking server unhealthy and attempting reconnect"
  assert_contains "$ERR" "[MCPHealthCheck] svc connection restored"
}

case_failure_without_a_command_is_reconnect_skipped() {
  flag_config
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] svc reconnect skipped: no reconnect command configured"
}

case_failure_whose_command_fails_is_reconnect_failed() {
  flag_config
  export ECC_MCP_RECONNECT_COMMAND="echo pm2 is not running >&2; exit 3"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] svc reconnect failed: "
  assert_contains "$ERR" "pm2 is not running"
}

case_failure_still_down_after_its_command_is_health_probe_still_failed() {
  flag_config
  export ECC_MCP_RECONNECT_COMMAND=true
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] svc reconnect command ran, but health probe still failed: "
}

case_failure_its_command_brings_back_is_connection_restored() {
  flag_config
  export ECC_MCP_RECONNECT_COMMAND="touch $T/up"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] svc connection restored"
}

case_failure_of_a_server_no_config_defines_is_no_config_for_a_follow_up_probe() {
  flag_config
  export ECC_MCP_RECONNECT_COMMAND=true
  hook "$(post_failure_payload ghost "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] ghost reported transport; marking server unhealthy and attempting reconnect"
  assert_contains "$ERR" "[MCPHealthCheck] ghost reconnect completed but no config was available for a follow-up probe"
}

main "$@"
