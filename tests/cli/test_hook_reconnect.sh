#!/usr/bin/env bash
# The reconnect command as PreToolUse runs it: when, with what name, for how long.
source "$(dirname "$0")/lib.sh"

# An unhealthy entry whose retry is due, so the next PreToolUse probes.
seed_due() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"${1:-svc}\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 60000)),\"expiresAt\":$((now - 60000)),\"nextRetryAt\":$((now - 1)),\"failureCount\":1,\"lastError\":\"x\",\"lastFailureCode\":${2:-null}}}}"
}

# The verdict's retry made due now, as its backoff ending would: the history is kept.
seed_due_keeping_history() { edit_entries 'e["nextRetryAt"] = 1'; }

case_reconnect_restores_and_allows() {
  seed_due
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\"")}}"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/up"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_contains "$ERR" "[MCPHealthCheck] svc connection restored after reconnect"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["restoredBy"]')" "reconnect-command"
}

case_reconnect_failing_is_in_the_block_reason() {
  seed_due
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="echo 'restart refused' >&2; exit 1"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "svc is unavailable (fixture crashed: missing API key). Blocking do_thing so Claude can fall back to non-MCP tools. Reconnect attempt: restart refused."
}

case_reconnect_ok_but_reprobe_fails() {
  seed_due
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="true"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "(fixture crashed: missing API key; reconnect reprobe failed: fixture crashed: missing API key)"
  assert_contains "$ERR" "Reconnect attempt: ok."
}

case_hanging_reconnect_is_killed_at_timeout() {
  seed_due
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_TIMEOUT_MS=300
  export ECC_MCP_RECONNECT_COMMAND="sleep 600 & echo \$! > $T/bg.pid; wait"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "Reconnect attempt: timed out after 300 ms."
  local pid; pid=$(cat "$T/bg.pid")
  if is_running "$pid"; then fail "reconnect's child $pid survived the timeout"; fi
}

case_server_placeholder_is_shell_quoted() {
  seed_due "my.svc"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"my.svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="printf '%s|' {server} {server} > $T/named; exit 1"
  hook "$(pre_payload my.svc)"
  assert_eq "$(cat "$T/named")" "my.svc|my.svc|"
}

case_per_server_variable_wins() {
  seed_due "my-svc"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"my-svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/generic; exit 1"
  export ECC_MCP_RECONNECT_MY_SVC="touch $T/specific; exit 1"
  hook "$(pre_payload my-svc)"
  assert_file_exists "$T/specific"
  assert_no_file "$T/generic"
}

case_no_reconnect_when_last_code_is_429() {
  seed_due svc 429
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/reconnected"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "svc is unavailable"
  assert_not_contains "$ERR" "Reconnect attempt"
  assert_no_file "$T/reconnected"
}

# One recovery policy for the hook and `probe --reconnect`: any server a probe finds down is reconnected (never
# after a 429), the first failure included.
case_reconnect_on_first_failure_found_by_a_probe() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/reconnected"
  hook "$(pre_payload svc)"
  assert_file_exists "$T/reconnected"
  assert_contains "$ERR" "Reconnect attempt: ok."
}

# A server that starts and answers its handshake but dies on every call (the seed article's PM2 setup): the first
# failed call is reconnected and may be retried; the second proves a crash loop, and from then the server is blocked
# with the backoff though the reconnect and its handshake pass. Before, every failed call was "restored" and none
# was ever blocked (FAILS 0).
case_a_server_that_fails_on_every_call_is_blocked_from_the_second_failure() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  export ECC_MCP_RECONNECT_COMMAND="echo noop"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$OUT" "the call can be retried now"
  assert_eq "$(entry_field svc status)" healthy
  assert_eq "$(entry_field svc failedCalls)" 1
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$OUT" 'fails on calls: it starts and answers, but 2 calls in a row failed (this one on do_thing)'
  assert_contains "$ERR" "its calls keep failing and its handshake would pass, so it is not probed: still blocked"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc failedCalls)" 2
  assert_eq "$(entry_field svc lastFailedTool)" do_thing
  # The next calls are blocked, in words that say why.
  local i
  for i in 1 2 3; do
    hook "$(pre_payload svc)"
    assert_contains "$OUT" '"permissionDecision":"deny"'
    assert_contains "$OUT" 'fails on calls: it starts and answers, but its last 2 calls failed (the last on do_thing)'
  done
  mcph status
  assert_contains "$OUT" "fails on calls: 2 in a row (last on do_thing)"
  # The morning report counts the failed calls that reached the model, not only the blocked ones: the first in an
  # outage its reconnect ended at once, the second in the one still open, which the blocks belong to.
  mcph report
  assert_contains "$OUT" "2 outages, 2 failed calls reached the model, 3 calls blocked; 1 still down"
  assert_contains "$OUT" "1 failed call, 0 calls blocked"
  assert_contains "$OUT" "1 failed call, 3 calls blocked"
  mcph report --json
  assert_eq "$(json_eval "$OUT" 'd["failedCalls"]')" 2
  # A call that succeeds ends the row.
  hook "{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"mcp__svc__do_thing\",\"tool_input\":{},\"tool_response\":{},\"cwd\":\"$PROJ\"}"
  assert_eq "$(entry_field svc status)" healthy
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"].get("failedCalls")')" null
}

# A crash loop is blocked with its backoff: a look sees only its handshake, which passes all along. But a fix
# deployed changes the files its code is read from (the file it runs, an argument that names a script): the next
# call stats them, and one changed after its last check has it probed and tried at once, not after its backoff.
# Untouched, it stays blocked (before, a fix waited out the backoff: 6 calls blocked while it answered in the
# replay's "crash loop then a fix deployed").
case_a_crash_loop_is_tried_at_once_when_a_file_of_its_code_changes() {
  cp "$STDIO_SERVER" "$T/server.py"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"command\":\"$PY\",\"args\":[\"$T/server.py\",\"--mode\",\"healthy\"]}}}"
  export ECC_MCP_RECONNECT_COMMAND="echo noop"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_contains "$(entry_field svc codeFiles)" "$T/server.py"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "a crash loop whose code did not change"
  sleep 0.05
  touch "$T/server.py"
  hook "$(pre_payload svc)" -vv
  assert_not_contains "$OUT" '"permissionDecision":"deny"' "the fix deployed is tried at once"
  assert_contains "$ERR" "a file of its code changed since"
  assert_eq "$(entry_field svc status)" healthy
  assert_eq "$(entry_field svc failedCalls)" 2 "a passing handshake still clears no failed call"
  # The fix did not hold: the third failed call blocks it again, and nothing has changed since.
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_eq "$(entry_field svc status)" unhealthy
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
}

# A change is a change of the files (their modification time, size and inode) since the outage last looked, never
# a date against the clock (issue 54 item 4): a file dated in the future (an archive extracted with its dates, a
# share whose clock runs ahead) does not have every call probed; a fix whose file is older than the last check
# (a rename from a build folder, `cp -p`) is still a fix.
case_a_code_file_dated_in_the_future_does_not_open_a_crash_loop_and_an_older_fix_does() {
  cp "$STDIO_SERVER" "$T/server.py"
  "$PY" -c 'import os, sys, time; t = time.time() + 86400; os.utime(sys.argv[1], (t, t))' "$T/server.py"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"command\":\"$PY\",\"args\":[\"$T/server.py\",\"--mode\",\"healthy\",\"--count-file\",\"$T/starts\"]}}}"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_eq "$(entry_field svc status)" unhealthy
  rm -f "$T/starts"
  local n
  for n in 1 2 3; do
    hook "$(pre_payload svc)"
    assert_contains "$OUT" '"permissionDecision":"deny"' "call $n: a file dated tomorrow is no fix"
  done
  assert_no_file "$T/starts"
  # The fix: a new file put in its place, dated a year ago (older than every check).
  cp "$STDIO_SERVER" "$T/server.py.new"
  "$PY" -c 'import os, sys, time; t = time.time() - 365 * 86400; os.utime(sys.argv[1], (t, t))' "$T/server.py.new"
  mv "$T/server.py.new" "$T/server.py"
  hook "$(pre_payload svc)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"' "the fix deployed is tried at once, whatever its date"
}

# Without a reconnect: the probe after each backoff passes the handshake, which no longer clears the count, so the
# backoff grows with each failed call instead of starting over.
case_without_a_reconnect_a_passing_probe_does_not_clear_the_failed_calls() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  local n retry first=
  for n in 1 2 3; do
    hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
    assert_eq "$(entry_field svc failedCalls)" "$n"
    retry=$(( $(entry_field svc nextRetryAt) - $(entry_field svc checkedAt) ))
    echo "failed call $n: blocked for $retry ms" >&2
    [ -n "$first" ] || first=$retry
    # The backoff ends (the file says so): the next call goes through as the trial, unprobed (its handshake passes
    # whatever its calls do), and the server stays down until a call succeeds (issue 52 item 1: never shown
    # healthy while a trial call is pending).
    edit_entries 'e["nextRetryAt"] = e["checkedAt"] = e["expiresAt"] = e["checkedAt"] - 600000; e["lastFailedCallAt"] = e["downSince"] = e["checkedAt"]'
    hook "$(pre_payload svc)" -v
    assert_not_contains "$OUT" deny
    if [ "$n" -ge 2 ]; then
      assert_eq "$(entry_field svc status)" unhealthy
      assert_contains "$ERR" "is the trial call"
    fi
  done
  hook "$(post_payload svc)"
  assert_eq "$(entry_field svc status)" healthy "the trial call that succeeded restores it"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"].get("failedCalls")')" null "a call that succeeds ends the row"
  [ "$retry" -gt "$first" ] || fail "the third failed call in a row backed off $retry ms, as long as the first"
}

# A crash loop is told as what it is (issue 52 item 1): status names it and when its next trial call goes, never
# shows it healthy while that is pending, and a probe by hand (or cron's, or watch's) that meets its passing
# handshake holds it down instead of restoring it; report says it fails on calls.
case_a_crash_loop_is_named_and_a_passing_probe_holds_it() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_eq "$(entry_field svc failedCalls)" 2
  mcph status
  assert_contains "$OUT" "next trial call in"
  assert_contains "$OUT" "fails on calls: 2 in a row (last on do_thing)"
  mcph status --json
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["breaker"]')" crash-loop
  mcph probe svc
  assert_eq "$RC" 1 "a crash loop's passing handshake was called healthy: $OUT"
  assert_contains "$OUT" "answers its handshake, but its last 2 calls failed (the last on do_thing)"
  assert_eq "$(entry_field svc status)" unhealthy
  # Its retry due, a prober's passing probe still holds it: only a call (or a fix, or a reset) ends it.
  edit_entries 'e["nextRetryAt"] = e["checkedAt"] - 1'
  mcph probe svc
  assert_eq "$(entry_field svc status)" unhealthy
  mcph status
  assert_contains "$OUT" "trial call due"
  assert_not_contains "$OUT" "✔"
  mcph report
  assert_contains "$OUT" "fails on calls: 2 in a row"
  assert_not_contains "$OUT" "back (probe)"
}

# The crash loop's own cap (crashLoopMaxBackoffMs, MCPHEALTH_CRASH_LOOP_MAX_BACKOFF_MS): its trial calls double
# past the look cap to it; policy and explain-config show it.
case_a_crash_loops_trial_calls_double_past_the_look_cap() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  export ECC_MCP_HEALTH_BACKOFF_MS=1000 ECC_MCP_HEALTH_MAX_BACKOFF_MS=4000 MCPHEALTH_CRASH_LOOP_MAX_BACKOFF_MS=64000
  local n retry
  for n in 1 2 3 4 5 6 7 8; do hook "$(post_failure_payload svc "$CLIENT_CLOSED")"; edit_entries 'e["checkedAt"] = e["checkedAt"] - 1; e["downSince"] = min(e["downSince"], e["checkedAt"])'; done
  retry=$(( $(entry_field svc nextRetryAt) - $(entry_field svc checkedAt) - 1 ))
  [ "$retry" -gt 4000 ] || fail "a crash loop's trial waited $retry ms, no more than the look cap"
  [ "$retry" -le 64000 ] || fail "a crash loop's trial waited $retry ms, past its own cap"
  mcph policy svc
  assert_contains "$OUT" "crashLoopMaxBackoffMs"
  assert_contains "$OUT" "64000"
  mcph explain-config
  assert_contains "$OUT" "crash loop's backoff cap"
}

case_the_reconnect_it_ran_is_a_line_of_the_trace() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="echo reconnecting {server}"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")" -vv
  assert_eq "$RC" 0
  assert_contains "$ERR" "reconnect of svc: the command ok; the re-probe: exited: fixture crashed: missing API key ("
}

# A reconnect that failed is kept with the verdict (its command, exit status and first line, terminal colours
# stripped, credentials redacted) and shown by status and report: its stderr is otherwise the hook's alone, which
# the agent hides (issue 53 item 5: `pm2 restart wiki` failing all night, seen nowhere).
case_a_failed_reconnect_is_kept_and_shown_by_status_and_report() {
  seed_due
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="printf '\\033[31m[PM2][ERROR] Process or Namespace {server} not found\\033[39m\\n' >&2; echo 'token=sk-ant-api03-abcdefghijklmnopqrstuvwx' >&2; exit 1"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["lastReconnect"]["exit"]')" 1
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["lastReconnect"]["line"]')" "[PM2][ERROR] Process or Namespace svc not found"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["lastReconnect"]["by"]')" hook
  unset ECC_MCP_RECONNECT_COMMAND
  mcph status
  assert_contains "$OUT" "reconnect: svc: reconnect \`printf"
  assert_contains "$OUT" "failed (exit 1): [PM2][ERROR] Process or Namespace svc not found (by hook)"
  assert_not_contains "$OUT" $'\033['
  assert_not_contains "$OUT" "sk-ant-api03-abcdefghijklmnopqrstuvwx"
  mcph status --json
  assert_eq "$(json_eval "$OUT" '[s for s in d["servers"] if s["name"] == "svc"][0]["lastReconnect"]["ok"]')" false
  mcph report
  assert_contains "$OUT" "svc: reconnect \`printf"
  assert_contains "$OUT" "failed (exit 1): [PM2][ERROR] Process or Namespace svc not found (by hook, "
  assert_not_contains "$(cat "$(STATE)")" "sk-ant-api03-abcdefghijklmnopqrstuvwx"
}

# A recovery a reconnect brought is the reconnect's: the report says "back (reconnect by watch)", not "(watch)".
case_a_recovery_a_reconnect_brought_is_credited_to_it() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\"")}}"
  mcph watch --probe --once
  assert_eq "$RC" 1
  seed_due_keeping_history
  export ECC_MCP_RECONNECT_COMMAND="touch $T/up"
  mcph watch --probe --once
  assert_eq "$RC" 0 "$ERR"
  mcph report
  assert_contains "$OUT" "back "
  assert_contains "$OUT" "(reconnect by watch)"
}

main "$@"
