#!/usr/bin/env bash
# The real Gemini CLI (from npm, pinned by scripts/test), driven offline by our fake model, with mcphealth's hooks
# registered by `mcphealth install --agent gemini`: a server that dies mid-session is blocked from the next call
# (the server never sees it), the model reads our reason, the next session starts knowing, and nothing is left
# running.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# gemini_outage CUE: a session whose first turn calls echo ("one") on a healthy server, whose second starts the
# outage CUE and calls it ("two"), and whose third calls it again ("three"); hooks registered as a user would.
gemini_outage() {
  model_script "{\"turns\":[[$(gemini_call one)],{\"write\":[\"$T/cue\",\"$1\"],\"pause_ms\":700,\"calls\":[$(gemini_call two)]},[$(gemini_call three)]]}"
  start_model
  mcph install --agent gemini
  assert_eq "$RC" 0 "install --agent gemini: $ERR"
  gemini_session
}

# assert_third_blocked: the server never saw the third call, and the model read our reason for it.
assert_third_blocked() {
  assert_not_contains "$(calls_seen)" "three" "the third call reached the server"
  local results
  results=$(gemini_results)
  assert_contains "$(sed -n '1p' <<<"$results")" 'echo: one' "the first call's result"
  assert_contains "$(sed -n '$p' <<<"$results")" 'The MCP server \"svc\" has been down' "the model's text for the blocked call"
}

case_stdio_server_dying_during_a_call_is_blocked_from_the_next_call() {
  need_gemini
  gemini_svc_stdio
  gemini_outage die
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  # The server's own words, out of Gemini CLI's wrapper.
  assert_eq "$(entry_field svc lastError)" 'MCP error -32000: Connection closed'
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')"
  assert_third_blocked
  wait_for_quiet
}

case_http_server_stopped_mid_session_is_blocked_from_the_next_call() {
  need_gemini
  gemini_svc_http
  gemini_outage down
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  assert_third_blocked
  wait_for_quiet
}

case_the_next_session_starts_knowing_the_server_is_down() {
  need_gemini
  gemini_svc_stdio
  gemini_outage die
  # A second session: SessionStart's context reaches the model before the prompt.
  rm -f "$T/model.log"
  model_script '{"turns":[]}'
  gemini_session
  assert_contains "$(gemini_first_text)" 'MCP servers not available at the start of this session: "svc" is down'
  wait_for_quiet
}

case_a_healthy_session_is_allowed_and_recorded_under_its_own_binding() {
  need_gemini
  gemini_svc_stdio
  model_script "{\"turns\":[[$(gemini_call one)],[$(gemini_call two)]]}"
  start_model
  mcph install --agent gemini
  gemini_session
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')"
  assert_eq "$(entry_field svc status)" healthy
  assert_eq "$(json_get "$(STATE)" "d['bindings']['$PROJ (gemini)']['names']['svc']['definition'] is not None")" true
  wait_for_quiet
}

case_explain_config_reads_the_registration_and_the_servers() {
  need_gemini
  gemini_svc_stdio
  mcph explain-config --agent gemini --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['BeforeTool']")" false
  mcph install --agent gemini
  mcph explain-config --agent gemini --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['BeforeTool']")" true
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['AfterTool']")" true
  assert_eq "$(json_eval "$OUT" "d['trusted']")" true
  assert_eq "$(json_eval "$OUT" "[s['name'] for s in d['servers']]")" '["svc"]'
  # The same file under Claude Code registers nothing.
  mcph explain-config --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['preToolUse']")" false
}

main "$@"
