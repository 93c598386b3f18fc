#!/usr/bin/env bash
# No input bypasses the gate, no file type hangs or is replaced, no child outlives a killed hook, and the failure
# classifier and every time read from outside stay within bounds. Each case failed on the main before this work.
# Needs: GNU grep, GNU stat, GNU time, GNU timeout
source "$(dirname "$0")/lib.sh"

# down_server NAME: a crashing server NAME, marked down by a first call (so the next ones are blocked from cache).
down_server() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"$1\":$(stdio_def crash)}}"
  hook "$(pre_payload "$1")" --output exit-code
  assert_eq "$RC" 2 "$1 is down"
}

# payload_with_input TOOL_INPUT_JSON: a PreToolUse for svc whose tool_input is given verbatim (may be invalid JSON).
payload_with_input() {
  printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__svc__do_thing","cwd":"%s","tool_input":%s}' "$PROJ" "$1"
}

case_tool_arguments_cannot_switch_the_gate_off() {
  down_server svc
  local deep='1' i
  for i in $(seq 1 40); do deep="[$deep]"; done
  hook "$(payload_with_input "{\"q\":$deep}")" --output exit-code
  assert_eq "$RC" 2 "40 levels deep"
  hook "$(payload_with_input '{"q":"cut emoji \ud83d"}')" --output exit-code
  assert_eq "$RC" 2 "a lone surrogate escape"
  hook "$(printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__svc__do_thing","cwd":"%s","tool_input":{"q":"\xff\xfe latin-1 bytes"}}' "$PROJ")" --output exit-code
  assert_eq "$RC" 2 "invalid UTF-8"
  # Beyond any limit (20000 deep): the gate still applies, from the fields found in the text, and says so.
  deep=$("$PY" -c 'print("[" * 20000 + "]" * 20000)')
  hook "$(payload_with_input "{\"q\":$deep}")" --output exit-code
  assert_eq "$RC" 2 "20000 levels deep"
  assert_contains "$ERR" "the hook input is not valid JSON"
  hook "$(payload_with_input '{"q": broken')"
  assert_contains "$OUT" '"permissionDecision":"deny"' "garbled JSON"
}

case_a_deeply_nested_claude_json_keeps_its_servers() {
  local deep='1' i
  for i in $(seq 1 40); do deep="{\"k\":$deep}"; done
  write_config "$HOME/.claude.json" "{\"tipsHistory\":$deep,\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "svc is unavailable (fixture crashed: missing API key)"
}

case_fifo_as_state_file_or_config_never_hangs() {
  mkfifo "$T/state.fifo"
  export MCPHEALTH_STATE_PATH="$T/state.fifo"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  set +e
  OUT=$(pre_payload svc | timeout 20 "$MCPHEALTH_BIN" hook 2>"$T/err"); RC=$?
  set -e
  ERR=$(cat "$T/err")
  assert_eq "$RC" 0 "the hook answers (124 = hung)"
  assert_contains "$ERR" "it is a FIFO, not a regular file"
  [ -p "$T/state.fifo" ] || fail "the FIFO was replaced"
  set +e
  timeout 20 "$MCPHEALTH_BIN" status >/dev/null 2>"$T/err"; RC=$?
  set -e
  assert_eq "$RC" 2 "status says it cannot read the state"
  assert_contains "$(cat "$T/err")" "it is a FIFO"
  set +e
  timeout 20 "$MCPHEALTH_BIN" reset svc >/dev/null 2>&1; RC=$?
  set -e
  [ "$RC" != 124 ] || fail "reset hung on a FIFO"
  unset MCPHEALTH_STATE_PATH
  rm -f "$PROJ/.mcp.json"
  mkfifo "$PROJ/.mcp.json"
  set +e
  OUT=$(pre_payload svc | timeout 20 "$MCPHEALTH_BIN" hook 2>"$T/err"); RC=$?
  timeout 20 "$MCPHEALTH_BIN" explain-config --json >"$T/explain" 2>/dev/null
  set -e
  assert_eq "$RC" 0 "the hook answers with a FIFO as .mcp.json"
  assert_contains "$(cat "$T/explain")" "it is a FIFO, not a regular file"
}

case_device_as_config_is_refused_not_read() {
  ln -s /dev/zero "$PROJ/.mcp.json"
  set +e
  OUT=$(pre_payload svc | timeout 20 "$MCPHEALTH_BIN" hook 2>"$T/err"); RC=$?
  timeout 20 "$MCPHEALTH_BIN" explain-config --json >"$T/explain" 2>/dev/null
  set -e
  assert_eq "$RC" 0
  assert_contains "$(cat "$T/explain")" "it is a device, not a regular file"
}

# A private node of the null device, not /dev/null itself: a regression must not be able to replace the machine's.
case_null_device_as_state_path_means_no_cache() {
  mknod -m 666 "$T/null" c "$(stat -c '%t' /dev/null)" "$(stat -c '%T' /dev/null)" 2>/dev/null || { echo "skip: cannot mknod"; return 0; }
  export MCPHEALTH_STATE_PATH="$T/null"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash "\"--count-file\",\"$T/count\"")}}"
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 2 "still gated, by a fresh probe"
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 2
  assert_eq "$(line_count "$T/count")" 2 "nothing cached: probed each time"
  assert_eq "$(stat -c %F "$T/null")" "character special file" "the device is still a device"
  assert_no_file "$T/null.lock"
  assert_no_file "$T/null.probe.lock"
  mcph status
  assert_contains "$ERR" "the cache is off"
}

case_device_as_state_path_is_never_replaced() {
  mknod "$T/dev" c 1 5 2>/dev/null || { echo "skip: cannot mknod here"; return 0; }
  export MCPHEALTH_STATE_PATH="$T/dev"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc)"
  assert_eq "$(stat -c %F "$T/dev")" "character special file"
  assert_contains "$ERR" "it is a device"
}

# The hook probing a server that never answers, killed by SIGNAL (the hook's options after it): the server (and its
# group) must go too.
killed_mid_probe() {
  local signal=$1
  shift
  export ECC_MCP_HEALTH_TIMEOUT_MS=30000
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang "\"--count-file\",\"$T/count\"")}}"
  pre_payload svc >"$T/payload"
  "$MCPHEALTH_BIN" hook "$@" <"$T/payload" >/dev/null 2>"$T/hook-err" &
  local hook_pid=$!
  local i
  for i in $(seq 1 200); do [ -s "$T/count" ] && break; sleep 0.05; done
  local server_pid; server_pid=$(head -1 "$T/count")
  [ -n "$server_pid" ] || fail "the server did not start"
  kill "-$signal" "$hook_pid"
  set +e
  wait "$hook_pid"; RC=$?
  set -e
  ERR=$(cat "$T/hook-err")
  for i in $(seq 1 100); do is_running "$server_pid" || break; sleep 0.05; done
  if is_running "$server_pid"; then kill -9 "$server_pid"; fail "the probed server $server_pid outlived the hook ($signal)"; fi
}

# Gemini CLI and Copilot CLI block a call on any exit but 0: a hook ended by a signal allows it (the exit is set
# before the payload is read, so it is every agent's).
case_sigterm_ends_the_probe_and_allows_the_call() {
  killed_mid_probe TERM
  assert_eq "$RC" 0
  assert_contains "$ERR" "ended by signal 15; allowing the call"
}

case_sighup_and_sigint_end_the_probe_and_allow_the_call() {
  killed_mid_probe HUP
  assert_eq "$RC" 0
  assert_contains "$ERR" "ended by signal 1;"
  rm -f "$T/count"
  killed_mid_probe INT
  assert_eq "$RC" 0
}

case_a_file_size_limit_or_a_small_stack_never_blocks_a_call() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  set +e
  pre_payload svc | (ulimit -f 0; "$MCPHEALTH_BIN" hook --agent gemini) >/dev/null 2>"$T/err"; RC=$?
  set -e
  assert_eq "$RC" 0 "under ulimit -f 0: $(cat "$T/err")"
  # A payload nested 9,000 deep on a 512 KB stack: read whole (Boost.JSON recurses per level), it would overflow it.
  # Its fields are read all the same, and a server cached down is still blocked.
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"deny"'
  "$PY" -c 'import sys; d=9000; sys.stdout.write("{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"" + sys.argv[1] + "\",\"tool_name\":\"mcp__svc__echo\",\"tool_input\":{\"a\":" + "["*d + "]"*d + "}}")' "$PROJ" >"$T/deep"
  set +e
  OUT=$( (ulimit -s 512; "$MCPHEALTH_BIN" hook <"$T/deep") 2>"$T/err"); RC=$?
  set -e
  assert_eq "$RC" 0 "a deep payload on a small stack: $(cat "$T/err")"
  assert_contains "$OUT" '"deny"' "the deep payload's call to a server marked down"
}

case_sigkill_still_takes_the_direct_child_along() {
  killed_mid_probe KILL
  assert_eq "$RC" 137
}

case_sigkill_takes_the_whole_group_along_grandchildren_too() {
  # A wrapper script that starts the real server below it: `sh -> sleep`. SIGKILL reaches no handler of ours.
  export ECC_MCP_HEALTH_TIMEOUT_MS=30000
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"command\":\"/bin/sh\",\"args\":[\"-c\",\"sleep 600 & echo \$! > $T/grandchild; wait\"]}}}"
  pre_payload svc >"$T/payload"
  "$MCPHEALTH_BIN" hook <"$T/payload" >"$T/hook.out" 2>&1 &
  local hook_pid=$! i
  for i in $(seq 1 200); do [ -s "$T/grandchild" ] && break; sleep 0.05; done
  local grandchild; grandchild=$(cat "$T/grandchild")
  [ -n "$grandchild" ] || fail "the wrapper did not start its server"
  kill -KILL "$hook_pid"
  wait "$hook_pid" || true
  for i in $(seq 1 100); do is_running "$grandchild" || break; sleep 0.05; done
  if is_running "$grandchild"; then kill -9 "$grandchild"; fail "the wrapper's child $grandchild outlived the SIGKILLed hook"; fi
}

case_no_descriptors_left_is_our_fault_never_a_verdict() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  pre_payload svc >"$T/payload"
  # Too few descriptors to start the server: the call is allowed, saying why, and nothing is recorded.
  set +e
  ERR=$(bash -c 'ulimit -n 9; exec "$0" hook' "$MCPHEALTH_BIN" <"$T/payload" 2>&1 >/dev/null)
  RC=$?
  set -e
  assert_eq "$RC" 0
  assert_contains "$ERR" "EMFILE"
  assert_contains "$ERR" "nothing was learned of the server"
  assert_eq "$(json_get "$(STATE)" 'd["servers"].get("svc", {}).get("status")' 2>/dev/null || echo null)" null "no verdict"
  # With descriptors again, it is checked and healthy: it was never blocked.
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_eq "$(entry_field svc status)" healthy
}

case_probe_all_out_of_descriptors_exits_3_and_records_no_fault() {
  local pairs="" i
  for i in $(seq 1 40); do pairs+="${pairs:+,}\"s$i\":$(stdio_def healthy)"; done
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{$pairs}}"
  set +e
  OUT=$(bash -c 'ulimit -n 48; exec "$0" probe --all --parallel 0 --json' "$MCPHEALTH_BIN" 2>"$T/err")
  RC=$?
  set -e
  assert_eq "$RC" 3 "exit code (not 134, not 1): $(cat "$T/err")"
  printf '%s' "$OUT" > "$T/probe.json"
  local faults recorded
  faults=$("$PY" -c 'import json,sys; print(sum(s["kind"] == "local-fault" for s in json.load(open(sys.argv[1]))["servers"]))' "$T/probe.json")
  [ "$faults" -gt 0 ] || fail "no probe met the limit"
  # Every server is healthy: none of them may be recorded down.
  recorded=$(json_get "$(STATE)" 'sorted(set(e["status"] for e in d["servers"].values()))')
  assert_eq "$recorded" '["healthy"]'
}

# Each credential shape the redactor knows (util::secret_shapes, the same examples), as a dying server's last
# stderr line: on no path is it kept or shown (state, history, the model's text, hook lines, status, report,
# --json, the capture file).
case_no_secret_in_a_servers_stderr_is_kept_or_shown() {
  export MCPHEALTH_HOOK_CAPTURE="$T/capture.jsonl"
  local example secret
  while IFS='|' read -r example secret; do
    forget_state; rm -f "$(STATE)".history*.jsonl "$T/capture.jsonl"
    "$PY" - "$PROJ/.mcp.json" "$PY" "$STDIO_SERVER" "$example" <<'PYEOF'
import json, sys
path, py, server, message = sys.argv[1:]
json.dump({"mcpServers": {"gh": {"command": py, "args": [server, "--mode", "crash", "--message", message]}}}, open(path, "w"))
PYEOF
    hook "$(pre_payload gh)" -v
    assert_contains "$OUT" '"permissionDecision":"deny"' "blocked for [$example]"
    local seen="$OUT$ERR"
    # A failure in the client's own framing (proof: its text is kept as the mark's error), quoting the secret.
    hook "$("$PY" -c 'import json, sys; print(json.dumps({"hook_event_name": "PostToolUseFailure", "tool_name": "mcp__gh__x", "tool_input": {}, "error": "HTTP 401: Invalid OAuth error response: " + sys.argv[1], "cwd": sys.argv[2]}))' "$example" "$PROJ")"
    seen+="$OUT$ERR"
    hook "$(printf '{"hook_event_name":"SessionStart","source":"startup","cwd":"%s"}' "$PROJ")"
    seen+="$OUT$ERR"
    for args in "status" "status --json" "status gh -v" "report" "report --json -v" "explain-config" "explain-config --json"; do
      # shellcheck disable=SC2086
      mcph $args
      seen+="$OUT$ERR"
    done
    seen+=$(cat "$(STATE)" "$(STATE)".history*.jsonl "$T/capture.jsonl" 2>/dev/null)
    assert_contains "$seen" "***" "something was redacted for [$example]"
    assert_not_contains "$seen" "$secret" "[$example] kept or shown"
  done <<'EOF2'
invalid URL http://deploy:S3CR3Tpw@127.0.0.1:9/mcp|S3CR3Tpw
GET https://h.example/mcp?access_token=QV3RYs3cret failed|QV3RYs3cret
connect deploy:UsErPa55@10.0.0.1:5432 refused|UsErPa55
fatal: GITHUB_TOKEN=abc123notashape is invalid|abc123notashape
using api_key=lowerKEY987 for requests|lowerKEY987
X-Api-Key: hdrSECRET4242 rejected|hdrSECRET4242
Authorization: Bearer authHDRtok77 expired|authHDRtok77
sent Bearer bearerTOK55 and got 401|bearerTOK55
sent Basic dXNlcjpzZWNyZXRwYXNz and got 401|dXNlcjpzZWNyZXRwYXNz
config {"token":"jsonTOKval1","user":"x"}|jsonTOKval1
auth failed for ghp_0123456789abcdefABCDEF0123456789abcd|ghp_0123456789abcdefABCDEF0123456789abcd
key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 refused|sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123
sk_live_51Habcdefghijklmnop rejected|sk_live_51Habcdefghijklmnop
{"aws":"AKIAIOSFODNN7EXAMPLE"}|AKIAIOSFODNN7EXAMPLE
slack said xoxb-123456789012-abcdefghijkl.|xoxb-123456789012-abcdefghijkl
glpat-abcdefghij0123456789 expired|glpat-abcdefghij0123456789
npm_abcdefghijklmnopqrstuvwxyz0123456789 revoked|npm_abcdefghijklmnopqrstuvwxyz0123456789
jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU rejected|eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU
EOF2
  # The capture file is opened as the state file is: never through a link, never blocking on a FIFO.
  rm -f "$T/capture.jsonl"
  ln -s "$T/elsewhere" "$T/capture.jsonl"
  hook "$(pre_payload gh)"
  assert_no_file "$T/elsewhere"
  rm -f "$T/capture.jsonl"
  mkfifo "$T/capture.jsonl"
  set +e
  timeout 10 "$MCPHEALTH_BIN" hook < <(pre_payload gh) >/dev/null 2>&1
  local rc=$?
  set -e
  [ "$rc" -ne 124 ] || fail "a FIFO at the capture path held the hook"
}

# A FIFO at the history's path, or a rotated history linked to /dev/zero, holds neither the hook nor report.
case_a_history_that_is_not_a_file_holds_nothing() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  mkdir -p "$HOME/.claude"
  mkfifo "$(STATE).history.jsonl"
  ln -s /dev/zero "$(STATE).history.1.jsonl"
  set +e
  timeout 10 "$MCPHEALTH_BIN" hook < <(pre_payload svc) >/dev/null 2>"$T/err"
  local rc=$?
  set -e
  assert_eq "$rc" 0 "the hook answers (allowed by Claude Code's JSON deny, exit 0)"
  assert_contains "$(cat "$T/err")" "[MCPHealthCheck] history $(STATE).history.jsonl: cannot open"
  set +e
  OUT=$(timeout 10 "$MCPHEALTH_BIN" report 2>"$T/err")
  rc=$?
  set -e
  assert_contains "$(cat "$T/err")" "history not read"
  [ "$rc" -ne 124 ] || fail "report hung on the history"
}

case_status_numbers_in_ordinary_text_mark_nothing() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  local text
  for text in "ENOENT: no such file or directory, open '/tmp/report-503.txt'" "SyntaxError at line 503" \
              "expected 401 items, got 400" "retry window must be < 429 seconds"; do
    hook "$(post_failure_payload svc "$text")"
    assert_eq "$OUT" "" "nothing said for: $text"
  done
  [ ! -e "$(STATE)" ] || assert_eq "$(json_get "$(STATE)" '[v.get("status") for v in d["servers"].values()]')" '[]'
  # A status where a status is reported is a lead: the server is asked, and it answers, so nothing is marked (one
  # upstream error is noted; only a second in a row would block).
  hook "$(post_failure_payload svc "Request failed with status code 503")"
  assert_contains "$ERR" "svc failed with an upstream error (503) in its tool's own words, and answered a probe right after"
  assert_eq "$OUT" ""
  assert_not_contains "$(entry_field svc status)" unhealthy
}

# One failure's tool text proves nothing; two in a row do (issue 52 item 4): a tool that quotes outage words once,
# between calls that succeed, never takes its server down, and no session hears the words.
case_a_tools_own_words_of_an_outage_never_take_a_healthy_server_down() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  local text
  for text in "Connection closed by the remote host in issue #12" "socket hang up" "ECONNREFUSED 10.1.2.3:443" \
              "503 Service Unavailable" "upstream said: Connection closed"; do
    hook "$(post_failure_payload svc "$text")"
    assert_eq "$OUT" "" "nothing said to the model for: $text"
    assert_contains "$ERR" "answered a probe right after" "the server was asked for: $text"
    hook "$(post_payload svc)" # the next call succeeds
  done
  [ ! -e "$(STATE)" ] || assert_eq "$(json_get "$(STATE)" '[v.get("status") for v in d["servers"].values() if v.get("status") == "unhealthy"]')" '[]'
  # A session starting later hears nothing of those words.
  hook "$(printf '{"hook_event_name":"SessionStart","source":"startup","cwd":"%s"}' "$PROJ")"
  assert_not_contains "$OUT" "Connection closed"
}

# The client's HTTP wordings inside a stdio tool's own words (a fetch it made failing so) are the tool's: they
# marked a healthy stdio server down at once while they matched anywhere in a text (issue 52 item 4).
case_the_clients_http_words_in_a_stdio_tools_text_mark_nothing_at_once() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  local text
  for text in "fetch https://api.example.test failed: Unable to connect. Is the computer able to access the url?" \
              "Unable to connect. Is the computer able to access the url?" \
              "upstream login: HTTP 401: Invalid OAuth error response: bad token"; do
    forget_state
    hook "$(post_failure_payload svc "$text")"
    assert_eq "$OUT" "" "the model heard of a mark for: $text"
    assert_not_contains "$(entry_field svc status)" unhealthy "[$text] marked a healthy stdio server down"
  done
}

# The state's shard folders are never followed away (issue 54 item 5): a shard swapped for a symlink to another
# folder, or a `.d` folder others may write in, is refused, and the tending of old files never deletes there.
case_a_symlinked_or_shared_shard_folder_is_never_written_or_tended() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  hook "$(pre_payload svc)"
  local file shard victim=$T/victim
  file=$(ls "$(STATE).d"/verdicts/*/*.json | head -1)
  shard=$(dirname "$file")
  mkdir -p "$victim"
  printf '{"key":"x"}\n' > "$victim/old.json"
  printf 'not ours\n' > "$victim/notes.txt"
  touch -d '-60 days' "$victim/old.json" "$victim/notes.txt"
  mv "$shard" "$T/shard-was"
  ln -s "$victim" "$shard"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_file_exists "$victim/old.json" "the tending followed the symlink and deleted another folder's file"
  assert_file_exists "$victim/notes.txt"
  assert_contains "$ERR" "is a symlink; refusing to write or tend the state's files there"
  # A `.d` folder others may write in: refused the same way.
  rm "$shard"
  mv "$T/shard-was" "$shard"
  chmod 0777 "$(STATE).d"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "is writable by others; refusing to write or tend the state's files there"
  chmod 0700 "$(STATE).d"
  # The state file itself, writable by others: not written.
  chmod 0666 "$(STATE)"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_contains "$ERR" "is writable by others; not writing the state there"
}

# Two in a row, nothing between: an upstream outage, blocked with the backoff, in fixed words (never the tool's).
case_two_upstream_errors_in_a_row_block_the_server_in_fixed_words() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  hook "$(post_failure_payload svc "upstream: 503 Service Unavailable, see https://status.example.com/incident")"
  assert_not_contains "$(entry_field svc status)" unhealthy
  hook "$(post_failure_payload svc "upstream: 503 Service Unavailable, see https://status.example.com/incident")"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastError)" "its last 2 calls failed with an upstream error (HTTP 503)"
  assert_not_contains "$OUT" "status.example.com"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$OUT" "what it depends on fails"
  assert_not_contains "$OUT" "status.example.com"
  mcph status
  assert_contains "$OUT" "upstream errors: 2 in a row"
  assert_contains "$OUT" "next trial call in"
}

case_huge_retry_after_is_capped_at_an_hour() {
  start_http --status 429 --retry-after 9223372036854775807
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"remote\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}}}"
  hook "$(pre_payload remote)"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["remote"]["nextRetryAt"] - d["servers"]["remote"]["checkedAt"]')" 3600000
}

case_a_retry_in_the_year_2286_is_honoured_only_for_the_cap() {
  local now; now=$(now_ms)
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 7200000)),\"nextRetryAt\":9999999999999,\"failureCount\":3}}}"
  hook "$(pre_payload svc)"
  assert_eq "$OUT" "" "two hours after the check, past any cap: probed, healthy, allowed"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" healthy
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$now,\"nextRetryAt\":9999999999999,\"failureCount\":3}}}"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "is further out than any backoff writes; honouring it only until"
  assert_contains "$OUT" '"permissionDecision":"deny"'
}

case_status_of_an_unreadable_state_is_an_error() {
  mkdir -p "$T/dir-as-state"
  export MCPHEALTH_STATE_PATH="$T/dir-as-state"
  mcph status
  assert_eq "$RC" 2
  assert_contains "$ERR" "cannot read the state file"
  mcph status --statusline
  assert_eq "$RC" 2
  assert_eq "$OUT" "mcp ?"
}

case_context_never_claims_a_mark_that_was_not_written() {
  printf 'x' >"$T/file"
  export MCPHEALTH_STATE_PATH="$T/file/state.json"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_not_contains "$OUT" "blocked"
  assert_contains "$OUT" "is not answering"
}

case_only_http_and_https_urls_are_probed() {
  local scheme
  for scheme in file:///etc/passwd gopher://127.0.0.1:1/ dict://127.0.0.1:1/; do
    write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"remote\":{\"type\":\"http\",\"url\":\"$scheme\"}}}"
    mcph probe remote --json --no-update
    assert_contains "$(json_eval "$OUT" 'd["servers"][0]["reason"]')" "only http and https URLs are probed"
  done
}

case_a_folder_or_a_plain_file_is_not_on_path() {
  mkdir -p "$T/bin/tool-dir"
  printf '#!/bin/sh\n' >"$T/bin/not-exec"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"a\":{\"command\":\"tool-dir\",\"env\":{\"PATH\":\"$T/bin\"}},\"b\":{\"command\":\"$T/bin/not-exec\"},\"c\":{\"command\":\"$T/bin/tool-dir\"}}}"
  mcph explain-config --json
  assert_eq "$(json_eval "$OUT" '[s["resolvedCommand"] for s in d["servers"]]')" '[null, null, null]'
  assert_eq "$(json_eval "$OUT" '[f["id"] for f in d["findings"]].count("command-not-found")')" 3
}

case_control_characters_never_split_a_line() {
  hook '{"hook_event_name":"PreToolUse","tool_name":"mcp__evil\nname\u001b[31m__x","cwd":"/nonexistent"}'
  assert_eq "$(printf '%s\n' "$ERR" | wc -l)" 1 "one line on stderr"
  assert_contains "$ERR" 'evil\nname\x1b[31m'
}

case_a_huge_response_header_is_named() {
  start_http --status 200 --huge-header 2000000
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"remote\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}}}"
  mcph probe remote --json --no-update --timeout-ms 5000
  assert_contains "$(json_eval "$OUT" 'd["servers"][0]["reason"]')" "response header too large"
}

# flood_probe TRANSPORT URL_PATH TYPE: probes a server whose event stream never ends an event; sets REASON and PEAK_KB
# (the probe's peak resident memory).
flood_probe() {
  start_mcp_http --transport "$1" --flood
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"remote\":{\"type\":\"${3:-http}\",\"url\":\"http://127.0.0.1:$HTTP_PORT$2\"}}}"
  OUT=$(/usr/bin/time -f '%M' -o "$T/peak" "$MCPHEALTH_BIN" probe remote --json --no-update --timeout-ms 8000 </dev/null) || true
  REASON=$(json_eval "$OUT" 'd["servers"][0]["reason"]')
  PEAK_KB=$(tail -n 1 "$T/peak")
}

case_an_event_stream_that_never_ends_an_event_is_cut_off_at_1_mib() {
  [ -x /usr/bin/time ] || skip "needs /usr/bin/time"
  for transport in "streamable /mcp http" "legacy-sse /sse sse"; do
    set -- $transport
    flood_probe "$1" "$2" "$3"
    assert_contains "$REASON" "over 1 MiB" "$1"
    # In bounded memory: the stream sends 256 MiB (before the cap, the probe held all of it); the bound leaves
    # room for a sanitized build's own overhead.
    [ "$PEAK_KB" -lt 131072 ] || fail "$1: the probe peaked at $PEAK_KB kB"
  done
}

# hostile_config: an unapproved repository's .mcp.json whose names, command, args and URL hold a window-title
# escape, a C1 CSI and a bidi override.
hostile_config() {
  "$PY" - "$PROJ/.mcp.json" <<'PYEOF'
import json, sys
esc, csi, rlo = "\x1b]0;pwned\x07", "\u009b2J", "\u202e"
json.dump({"mcpServers": {
    "a" + esc: {"command": "/opt/" + csi + "bin" + esc + "/srv", "args": ["--x" + rlo]},
    "b" + rlo: {"type": "http", "url": "http://h.invalid/" + esc + "mcp"},
}}, open(sys.argv[1], "w"))
PYEOF
}

# assert_no_raw_controls TEXT WHAT: TEXT holds no ESC, BEL, C1 CSI or bidi override.
assert_no_raw_controls() {
  if printf '%s' "$1" | grep -qaP '[\x1b\x07]|\xc2\x9b|\xe2\x80\xae'; then fail "$2 printed a raw control: $(printf '%s' "$1" | od -c | head -5)"; fi
}

case_terminal_controls_from_a_repository_never_reach_the_terminal() {
  write_config "$HOME/.claude/settings.json" '{}' # the repository's servers stay unapproved
  hostile_config
  mcph explain-config
  assert_no_raw_controls "$OUT$ERR" "explain-config"
  assert_contains "$OUT" 'a\x1b]0;pwned\x07'
  assert_contains "$OUT" '\u009b2J'
  assert_contains "$OUT" '\u202e'
  # Approved and probed: the hints and tables of probe and status, and the status line.
  write_config "$HOME/.claude/settings.json" '{"enableAllProjectMcpServers":true}'
  mcph probe --all
  assert_no_raw_controls "$OUT$ERR" "probe"
  assert_contains "$OUT" "hint: "
  mcph status
  assert_no_raw_controls "$OUT$ERR" "status"
  mcph status --statusline
  assert_no_raw_controls "$OUT$ERR" "status --statusline"
  mcph reset --all --dry-run
  assert_no_raw_controls "$OUT$ERR" "reset"
  mcph policy
  assert_no_raw_controls "$OUT$ERR" "policy"
}

case_credentials_in_urls_are_never_shown() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"remote":{"type":"http","url":"http://alice:pw-1@127.0.0.1:1/mcp?token=${TOK}&v=2"},"db":{"command":"/bin/true","args":["--db=postgresql://bob:pw-2@db.invalid/app"]}}}'
  export TOK=tok-3
  mcph explain-config
  assert_contains "$OUT" "http://***@127.0.0.1:1/mcp?token=***&v=***"
  mcph explain-config --json
  local all
  mcph explain-config remote db
  all=$OUT
  mcph explain-config --json
  all+=$OUT
  mcph probe --all --json
  all+=$OUT$ERR
  mcph status --wide
  all+=$OUT$ERR
  for secret in alice pw-1 tok-3 bob pw-2; do assert_not_contains "$all" "$secret" "a credential in the output"; done
}

case_a_huge_server_name_is_never_written() {
  local big
  big=$("$PY" -c 'print("s" * (1024 * 1024))')
  # From payloads: three failure marks and a call, each for a 1 MiB name.
  for i in 1 2 3; do
    hook "$(post_failure_payload "$big$i" 'MCP error -32000: Connection closed')"
    assert_eq "$RC" 0
    assert_contains "$ERR" "longer than any MCP server's"
  done
  hook "$(pre_payload "$big")"
  assert_eq "$RC" 0
  # From a config: a huge name defined beside a real one binds nothing of it.
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"$big\":$(stdio_def healthy),\"svc\":$(stdio_def healthy)}}"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  local size
  size=$(stat -c %s "$(STATE)")
  [ "$size" -lt 65536 ] || fail "the state file grew to $size bytes"
  mcph status
  assert_eq "$RC" 0 "status reads it back: $ERR"
}

# An untrusted clone's .mcp.json naming 150,000 servers, none approved: session start reads it once, in one pass,
# binds none of them one by one (the agent starts none), and reads at most 4,096 of one file. Before, every later
# hook in any folder paid ~235 bytes of state per name, and resolving them was quadratic (20k names: 7.6 s).
case_a_clone_naming_thousands_of_servers_costs_a_bounded_state() {
  rm "$HOME/.claude/settings.json" # nothing of the clone is approved
  "$PY" -c 'import json,sys; json.dump({"mcpServers": {f"s{i}": {"command": "/bin/true"} for i in range(150000)}}, open(sys.argv[1], "w"))' \
    "$PROJ/.mcp.json"
  hook "{\"hook_event_name\":\"SessionStart\",\"cwd\":\"$PROJ\",\"session_id\":\"x\"}"
  assert_eq "$RC" 0
  hook "$(pre_payload s5)"
  assert_eq "$RC" 0
  assert_contains "$ERR" "not approved"
  local size
  size=$(stat -c %s "$(STATE)")
  [ "$size" -lt 8192 ] || fail "the state file grew to $size bytes for names the agent does not start"
  mcph explain-config
  assert_contains "$OUT" "145904 server definitions past the first 4096 not read"
  assert_contains "$OUT" "s39 and 4056 more"
}

# C1 controls and bidirectional overrides from a server's error (or a repository's names) are valid in JSON, and a
# terminal acts on them: every --json writes them as \uXXXX, the same JSON to a parser.
case_json_output_escapes_c1_and_bidi_characters() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$now,\"expiresAt\":$now,\"nextRetryAt\":$((now + 60000)),\"failureCount\":1,\"lastError\":\"bad \\u202egnp.exe \\u0085 \\u2066x\\u2069 \\u200f end\",\"lastFailureCode\":\"transport\"}}}"
  mcph status --json
  assert_contains "$OUT" 'bad \u202egnp.exe \u0085 \u2066x\u2069 \u200f end'
  "$PY" -c 'import sys; t=sys.stdin.buffer.read().decode(); bad=[c for c in t if 0x80<=ord(c)<=0x9f or ord(c) in (0x202e,0x2066,0x2069,0x200f)]; sys.exit(1 if bad else 0)' <<<"$OUT" ||
    fail "status --json printed raw C1 or bidi characters"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["entry"]["lastError"] == "bad \u202egnp.exe \u0085 \u2066x\u2069 \u200f end"')" true
}

main "$@"
