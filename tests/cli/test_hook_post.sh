#!/usr/bin/env bash
# PostToolUseFailure (classify, mark, reconnect) and PostToolUse (proof of health).
source "$(dirname "$0")/lib.sh"

case_failure_marks_unhealthy_and_tells_the_model() {
  svc_answers_http 503
  hook "$(post_failure_payload svc 'Error: 503 Service Unavailable from upstream')"
  assert_eq "$RC" 0
  # No reconnect command: the JS hook's two lines, word for word (its users grep its log for them).
  assert_contains "$ERR" "[MCPHealthCheck] svc reported 503; marking server unhealthy and attempting reconnect"
  assert_contains "$ERR" "[MCPHealthCheck] svc reconnect skipped: no reconnect command configured"
  assert_eq "$(entry_field svc status)" "unhealthy"
  assert_eq "$(entry_field svc lastFailureCode)" "503"
  # What the server answered when asked, not the tool's words.
  assert_not_contains "$(entry_field svc lastError)" "from upstream"
  assert_eq "$(json_eval "$OUT" 'd["hookSpecificOutput"]["hookEventName"]')" "PostToolUseFailure"
  local context; context=$(json_eval "$OUT" 'd["hookSpecificOutput"]["additionalContext"]')
  assert_contains "$context" 'The MCP server "svc" is failing on its side (HTTP 503).'
  assert_contains "$context" "blocked for the next 30 seconds"
  assert_contains "$context" "Use other tools"
}

case_each_failure_class_is_recognised() {
  # Generic words are a lead, not proof: each is read as its class, and the server is asked (here it has no
  # definition, so nothing is marked). Outage words (429, 503, a connection failed) are a tool's upstream error:
  # one is noted by the name, and only a second in a row would block it (issue 52 item 4).
  local text code
  while IFS='|' read -r text code; do
    forget_state
    hook "$(post_failure_payload svc "$text")" -v
    assert_contains "$ERR" "($code)" "class of [$text]"
    case $code in
      401 | 403) assert_contains "$ERR" "svc failed with words that may be the tool's own ($code)" "[$text] is a lead" ;;
      *) assert_contains "$ERR" "svc failed with an upstream error ($code) in its tool's own words, and cannot be asked: one failure proves nothing" "[$text]" ;;
    esac
    [ ! -e "$(STATE)" ] || assert_eq "$(json_get "$(STATE)" '[n for n, e in d.get("servers", {}).items() if e.get("status") == "unhealthy"]')" "[]" "nothing marked for [$text]"
  done <<'EOF2'
HTTP 401 Unauthorized|401
Authentication expired for token|401
403 Forbidden|403
Request failed with status code 403|403
Too Many Requests|429
rate limit exceeded|429
Service Unavailable|503
model is overloaded|503
connect ECONNREFUSED 127.0.0.1:3001|transport
socket hang up|transport
request timed out|transport
EOF2
  # The second in a row blocks the name (a server the gate cannot ask, as the Agent SDK's inline ones).
  hook "$(post_failure_payload svc 'request timed out')"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc upstream)" true
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"' 
}

case_unmatched_failure_writes_nothing() {
  hook "$(post_failure_payload svc 'TypeError: cannot read property x of undefined (code 4011)')"
  assert_eq "$RC" 0
  assert_eq "$ERR" ""
  assert_eq "$OUT" ""
  assert_no_state
}

case_interrupt_is_ignored() {
  hook '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__x","error":"Request timed out","is_interrupt":true}'
  assert_eq "$ERR" ""
  assert_no_state
}

case_failure_text_from_nested_fields() {
  hook '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__x","tool_output":{"stderr":"upstream said: HTTP 429"}}'
  assert_contains "$ERR" "svc failed with an upstream error (429) in its tool's own words"
  # The model's arguments are never the failure's text: a tool taking an `error` argument says nothing of its server.
  hook '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc2__x","tool_input":{"error":"HTTP 503"},"error":"MCP error -32602: Invalid params"}'
  assert_eq "$(json_get "$(STATE_ALL)" 'd["servers"].get("svc2", {}).get("lastFailureCode")')" null
}

case_rate_limit_never_reconnects() {
  svc_answers_http 429 --retry-after 60
  export ECC_MCP_RECONNECT_COMMAND="touch $T/reconnected"
  hook "$(post_failure_payload svc '429 Too Many Requests')"
  # The JS hook's line, then why no reconnect followed, in its "reconnect skipped" words.
  assert_contains "$ERR" "svc reported 429; marking server unhealthy and attempting reconnect"
  assert_contains "$ERR" "svc reconnect skipped: the server is rate limiting (429), and a restart would burn the rate limit"
  assert_no_file "$T/reconnected"
  local context; context=$(json_eval "$OUT" 'd["hookSpecificOutput"]["additionalContext"]')
  assert_contains "$context" "rate limiting"
  assert_contains "$context" "retry after that"
  assert_not_contains "$context" "reconnect"
}

case_reconnect_failure_is_reported() {
  export ECC_MCP_RECONNECT_COMMAND="echo 'pm2: process not found' >&2; exit 1"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] svc reconnect failed: pm2: process not found"
  assert_contains "$OUT" "additionalContext"
}

case_reconnect_without_definition_cannot_reprobe() {
  export ECC_MCP_RECONNECT_COMMAND="true"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "[MCPHealthCheck] svc reconnect completed but no config was available for a follow-up probe"
}

case_reconnect_then_reprobe_still_failing() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="true"
  hook "$(post_failure_payload svc 'HTTP 503')"
  assert_contains "$ERR" "[MCPHealthCheck] svc reconnect command ran, but health probe still failed: fixture crashed: missing API key"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" "unhealthy"
}

case_reconnect_restores_server() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\"")}}"
  export ECC_MCP_RECONNECT_SVC="touch $T/up"
  hook "$(post_failure_payload svc 'socket hang up')"
  assert_contains "$ERR" "[MCPHealthCheck] svc connection restored"
  # The model is told it can retry, not left thinking the server is gone.
  assert_contains "$(json_eval "$OUT" 'd["hookSpecificOutput"]["additionalContext"]')" "restarted it and it answers again: the call can be retried now"
  assert_eq "$(entry_field svc status)" "healthy"
  assert_eq "$(entry_field svc restoredBy)" "post-failure-reconnect"
}

case_injection_through_server_field_runs_nothing() {
  export ECC_MCP_RECONNECT_COMMAND="echo {server} > $T/named"
  local evil="x;touch $T/pwned"
  hook "{\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"WebFetch\",\"tool_input\":{\"server\":\"$evil\"},\"error\":\"$CLIENT_CLOSED\"}"
  assert_eq "$RC" 0
  assert_no_file "$T/pwned"
  assert_no_file "$T/named"
  assert_contains "$ERR" "refusing to run the reconnect command"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"WebFetch\",\"tool_input\":{\"server\":\"$evil\"}}"
  assert_no_file "$T/pwned"
}

case_post_tool_use_restores_unhealthy_server() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$now,\"expiresAt\":$now,\"nextRetryAt\":$((now + 600000)),\"failureCount\":4,\"lastError\":\"x\",\"lastFailureCode\":503}}}"
  hook '{"hook_event_name":"PostToolUse","tool_name":"mcp__svc__x","tool_response":{"ok":true}}'
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$(entry_field svc status)" "healthy"
  assert_eq "$(entry_field svc restoredBy)" "tool-success"
  assert_eq "$(entry_field svc failureCount)" "0"
}

case_post_tool_use_extends_only_a_stale_ttl() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"healthy\",\"checkedAt\":$now,\"expiresAt\":$((now + 100000))}}}"
  local before; before=$(cat "$(STATE)")
  hook '{"hook_event_name":"PostToolUse","tool_name":"mcp__svc__x"}'
  assert_eq "$(cat "$(STATE)")" "$before" "more than half the TTL left: nothing written"
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"healthy\",\"checkedAt\":$((now - 100000)),\"expiresAt\":$((now + 20000))}}}"
  hook '{"hook_event_name":"PostToolUse","tool_name":"mcp__svc__x"}'
  [ "$(json_get "$(STATE)" 'd["servers"]["svc"]["expiresAt"]')" -ge $((now + 120000)) ] || fail "TTL not extended"
}

case_post_tool_use_for_unknown_server_writes_nothing() {
  hook '{"hook_event_name":"PostToolUse","tool_name":"mcp__svc__x"}'
  assert_no_state
}

case_parallel_failures_of_one_outage_count_once() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  # Three calls that began 5 s ago fail in the same moment: one outage, one failure, one retry time.
  local payload i
  payload=$(printf '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__echo","tool_input":{},"error":"MCP error -32000: Connection closed","duration_ms":5000,"cwd":"%s"}' "$PROJ")
  for i in 1 2 3; do (printf '%s' "$payload" | "$MCPHEALTH_BIN" hook > "$T/out.$i" 2>/dev/null) & done
  wait
  assert_eq "$(entry_field svc failureCount)" 1
  for i in 1 2 3; do
    assert_contains "$(cat "$T/out.$i")" "blocked for the next 30 seconds" "hook $i"
  done
  # A call that began after the mark is a new failure.
  hook "$(post_failure_payload svc 'MCP error -32000: Connection closed')"
  assert_eq "$(entry_field svc failureCount)" 2
}

case_a_failure_naming_the_calls_own_host_marks_nothing() {
  hook "$(printf '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__fetch","tool_input":{"url":"https://Example.invalid:8443/page"},"error":"getaddrinfo ENOTFOUND example.invalid","cwd":"%s"}' "$PROJ")"
  assert_eq "$RC" 0
  assert_contains "$ERR" "a host this call's input named"
  assert_no_state
  hook "$(printf '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__fetch","tool_input":{"url":"http://news.example.com/a"},"error":"GET http://news.example.com/a: 503 Service Unavailable","cwd":"%s"}' "$PROJ")"
  assert_no_state
  # Claude Code's own words about the server are never the input's fault.
  hook "$(printf '{"hook_event_name":"PostToolUseFailure","tool_name":"mcp__svc__fetch","tool_input":{"url":"http://news.example.com/a"},"error":"MCP server \\"svc\\" is not connected","cwd":"%s"}' "$PROJ")"
  assert_eq "$(entry_field svc lastFailureCode)" transport
}

main "$@"
