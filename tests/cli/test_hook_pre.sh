#!/usr/bin/env bash
# PreToolUse: the cache gates, probing stdio servers, marks, and the messages for each outcome.
# Needs: GNU stat
source "$(dirname "$0")/lib.sh"

case_cached_healthy_allows_without_probe() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"healthy\",\"checkedAt\":$now,\"expiresAt\":$((now + 600000)),\"failureCount\":0}}}"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash "\"--count-file\",\"$T/count\"")}}"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0 "exit code"
  assert_eq "$OUT" "" "stdout"
  assert_eq "$ERR" "" "stderr"
  assert_eq "$(line_count "$T/count")" 0 "probes run"
  # The first call in a folder binds its names (once); from then on a cache hit writes nothing.
  assert_eq "$(json_get "$(STATE_ALL)" 'd["definitions"][d["servers"]["svc"]["definition"]]["status"]')" healthy "adopted verdict"
  local before; before=$(cat "$(STATE)")
  hook "$(pre_payload svc)"
  assert_eq "$ERR" "" "stderr"
  assert_eq "$(line_count "$T/count")" 0 "probes run"
  assert_eq "$(cat "$(STATE)")" "$before" "state file untouched"
}

case_cached_unhealthy_blocks_until_retry() {
  local now; now=$(now_ms)
  local retry=$((now + 300000))
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$now,\"expiresAt\":$now,\"nextRetryAt\":$retry,\"failureCount\":2,\"downSince\":$((now - 180000)),\"lastError\":\"Connection closed\",\"lastFailureCode\":\"transport\"}}}"
  hook "$(pre_payload svc search)"
  assert_eq "$RC" 0
  local iso; iso=$("$PY" -c "import datetime,sys; t=datetime.datetime.fromtimestamp($retry/1000, datetime.timezone.utc); print(t.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % ($retry % 1000))")
  assert_contains "$ERR" "[MCPHealthCheck] svc is marked unhealthy until $iso; skipping search"
  assert_eq "$(json_eval "$OUT" 'd["hookSpecificOutput"]["permissionDecision"]')" "deny"
  assert_eq "$(json_eval "$OUT" 'd["hookSpecificOutput"]["hookEventName"]')" "PreToolUse"
  # The model gets what, since when, until when in its own terms, and what to do; no UTC instant.
  local reason; reason=$(json_eval "$OUT" 'd["hookSpecificOutput"]["permissionDecisionReason"]')
  assert_contains "$reason" 'The MCP server "svc" has been down for 3 minutes (last error: Connection closed; 2 failures in a row)'
  assert_contains "$reason" "search was not called"
  assert_contains "$reason" "blocked for the next 5 minutes"
  assert_contains "$reason" "Use other tools"
  assert_not_contains "$reason" "$iso"
}

case_no_config_allows_with_message() {
  hook "$(pre_payload ghost)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_contains "$ERR" "[MCPHealthCheck] No MCP config found for ghost; skipping preflight probe"
}

case_a_server_name_holding_double_underscores_is_the_longest_one_defined() {
  # Tool names keep `_` (and spell `.` as `_`): `my__srv`, `x..y` and `trail_` all meet the `__` separator.
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"my__srv\":$(stdio_def crash),\"x..y\":$(stdio_def crash),\"trail_\":$(stdio_def crash),\"my\":$(stdio_def healthy)}}"
  local name
  for name in my__srv x__y trail_; do
    # Twice: the first call reads the configs, the second decides from the folder's bindings.
    hook "$(pre_payload "$name" get__thing)" --output exit-code
    assert_eq "$RC" 2 "$name: first call"
    assert_contains "$ERR" "$name is unavailable"
    hook "$(pre_payload "$name" get__thing)" --output exit-code
    assert_eq "$RC" 2 "$name: second call"
  done
  assert_eq "$(entry_field my__srv status)" unhealthy
  assert_eq "$(entry_field trail_ status)" unhealthy
  # `my` itself is a server too: its tools are its own, healthy.
  hook "$(pre_payload my echo)" --output exit-code
  assert_eq "$RC" 0
}

case_missing_definition_is_remembered_until_config_changes() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"other":{"command":"true"}}}'
  hook "$(pre_payload late)"
  assert_contains "$ERR" "No MCP config found for late"
  assert_eq "$(json_get "$(BINDINGS)" '[b["names"]["late"]["standing"] for b in d.values()]')" '["none"]'
  # Same size and mtime: the remembered miss stands, proving the config is not read again.
  cp -p "$PROJ/.mcp.json" "$T/saved"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"late\":{\"command\":\"true\"}}}"
  "$PY" - "$PROJ/.mcp.json" "$(stat -c %s "$T/saved")" "$(stat -c %s "$PROJ/.mcp.json")" <<'PYEOF'
import sys
path, want, have = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
text = open(path).read().rstrip("\n")
# pad or trim white space so the size matches the old file exactly
text = (text + " " * max(0, want - 1 - len(text)))[: want - 1] + "\n"
open(path, "w").write(text)
PYEOF
  touch -r "$T/saved" "$PROJ/.mcp.json"
  hook "$(pre_payload late)"
  assert_contains "$ERR" "No MCP config found for late" "remembered miss"
  # A changed mtime: resolved again, now found and probed.
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"late\":$(stdio_def crash)}}"
  hook "$(pre_payload late)"
  assert_contains "$ERR" "late is unavailable (fixture crashed: missing API key)"
}

case_healthy_server_marked_healthy() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang)}}"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$ERR" ""
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" "healthy"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["failureCount"]')" "0"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["expiresAt"] - d["servers"]["svc"]["checkedAt"]')" "120000"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["source"]')" "$PROJ/.mcp.json"
  assert_eq "$(stat -c %a "$(STATE)")" "600" "state file mode"
}

case_crashing_server_blocked_with_its_stderr() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc query)"
  assert_eq "$RC" 0
  assert_contains "$ERR" "[MCPHealthCheck] svc is unavailable (fixture crashed: missing API key). Blocking query so Claude can fall back to non-MCP tools."
  assert_not_contains "$ERR" "Reconnect attempt"
  assert_eq "$(json_eval "$OUT" 'd["hookSpecificOutput"]["permissionDecision"]')" "deny"
  local s; s=$(STATE)
  assert_eq "$(entry_field svc status)" "unhealthy"
  assert_eq "$(entry_field svc failureCount)" "1"
  assert_eq "$(entry_field svc lastFailureCode)" "null"
  assert_eq "$(json_get "$s" 'd["servers"]["svc"]["nextRetryAt"] - d["servers"]["svc"]["checkedAt"]')" "30000"
  assert_eq "$(entry_field svc lastError)" "fixture crashed: missing API key"
}

case_silent_exit_reports_exit_code() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def silent-exit)}}"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "svc is unavailable (process exited before handshake (4))"
}

case_missing_command_is_enoent() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"svc":{"command":"no-such-mcp-server-cmd","args":[]}}}'
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "svc is unavailable (spawn no-such-mcp-server-cmd ENOENT)"
}

case_command_resolved_on_configured_path() {
  mkdir -p "$T/bin"
  printf '#!/bin/sh\nexec %s %s --mode hang\n' "$PY" "$STDIO_SERVER" > "$T/bin/my-mcp"
  chmod +x "$T/bin/my-mcp"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"command\":\"my-mcp\",\"env\":{\"PATH\":\"$T/bin:/usr/bin:/bin\"}}}}"
  hook "$(pre_payload svc)"
  assert_eq "$ERR" ""
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" "healthy"
}

case_unsupported_definition_is_unhealthy() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"svc":{"type":"websocket","endpoint":"x"}}}'
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "svc is unavailable (unsupported MCP server config)"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" "unhealthy"
}

case_recovered_server_says_connection_restored() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 90000)),\"expiresAt\":$((now - 90000)),\"nextRetryAt\":$((now - 1000)),\"failureCount\":3,\"lastError\":\"old\",\"lastFailureCode\":null,\"custom\":\"kept\"}}}"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang)}}"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_contains "$ERR" "[MCPHealthCheck] svc connection restored"
  local s; s=$(STATE)
  assert_eq "$(entry_field svc status)" "healthy"
  assert_eq "$(entry_field svc failureCount)" "0"
  assert_eq "$(entry_field svc lastError)" "null"
  assert_eq "$(entry_field svc custom)" "kept" "unknown fields kept"
  assert_eq "$(json_get "$s" 'd["servers"]["svc"]["lastRestoredAt"] == d["servers"]["svc"]["checkedAt"]')" "true"
}

case_backoff_doubles_on_repeated_failure() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 90000)),\"expiresAt\":$((now - 90000)),\"nextRetryAt\":$((now - 1)),\"failureCount\":2,\"lastRestoredAt\":1234}}}"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc)"
  local s; s=$(STATE)
  assert_eq "$(entry_field svc failureCount)" "3"
  assert_eq "$(json_get "$s" 'd["servers"]["svc"]["nextRetryAt"] - d["servers"]["svc"]["checkedAt"]')" "120000"
  assert_eq "$(entry_field svc lastRestoredAt)" "1234" "lastRestoredAt kept"
}

case_no_process_left_behind_after_probe() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def fork-child "\"--pid-file\",\"$T/child.pid\",\"--count-file\",\"$T/count\"")}}"
  hook "$(pre_payload svc)"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" "healthy"
  assert_file_exists "$T/child.pid"
  local child server
  child=$(cat "$T/child.pid")
  server=$(head -1 "$T/count")
  if is_running "$child"; then fail "grandchild $child still running"; fi
  if is_running "$server"; then fail "server $server still running"; fi
}

case_other_servers_untouched() {
  seed_state '{"version":1,"servers":{"other":{"status":"healthy","checkedAt":1,"expiresAt":2,"mine":true}},"extra":{"a":1}}'
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc)"
  local s; s=$(STATE)
  assert_eq "$(json_get "$s" 'd["servers"]["other"]')" '{"status": "healthy", "checkedAt": 1, "expiresAt": 2, "mine": true}'
  assert_eq "$(json_get "$s" 'd["extra"]')" '{"a": 1}'
}

case_non_mcp_call_prints_nothing() {
  hook '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}'
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$ERR" ""
  assert_no_state
}

case_a_state_file_from_before_the_files_beside_it_is_read_and_moved_out_at_the_next_write() {
  # mcphealth up to 0.x kept every verdict and every folder's bindings inside the state file; this one keeps them
  # beside it (<state>.d/), a file apiece. An old file must still decide, and move out at the next write.
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  local old=$T/old-state.json
  "$PY" - "$(STATE_ALL)" "$(BINDINGS)" "$old" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["bindings"] = json.load(open(sys.argv[2]))
json.dump(d, open(sys.argv[3], "w"))
PYEOF
  forget_state
  cp "$old" "$(STATE)"
  assert_eq "$(json_get "$(STATE)" 'len(d["definitions"]), len(d["bindings"])')" "[1, 1]"
  # Decided from the old file: blocked, not probed again (its retry is not due).
  hook "$(pre_payload svc)" -v
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$ERR" "cache: unhealthy (fixture crashed"
  # The next write moves them out.
  mcph probe svc
  assert_eq "$(json_get "$(STATE)" '"definitions" in d or "bindings" in d')" false
  assert_eq "$(json_get "$(STATE_ALL)" 'len(d["definitions"])')" 1
  assert_eq "$(json_get "$(BINDINGS)" "'$PROJ' in d")" true
}

main "$@"
