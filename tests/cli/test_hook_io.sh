#!/usr/bin/env bash
# The hook's input and output contract: output modes, truncated input, fail-open, bad options, the state file.
# Needs: GNU stat
source "$(dirname "$0")/lib.sh"

crash_config() { write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"; }

case_json_mode_allow_prints_nothing() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang)}}"
  hook "$(pre_payload svc)" --output json
  assert_eq "$RC" 0
  assert_eq "$OUT" "" "an allow is never printed: it would skip the permission prompt"
}

case_exit_code_mode_blocks_with_exit_2() {
  crash_config
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 2
  assert_eq "$OUT" ""
  assert_contains "$ERR" "[MCPHealthCheck] svc is unavailable (fixture crashed: missing API key)"
}

case_passthrough_mode_echoes_input() {
  crash_config
  local payload; payload=$(pre_payload svc)
  hook "$payload" --output passthrough
  assert_eq "$RC" 2
  assert_eq "$OUT" "$payload"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"ok\":$(stdio_def hang)}}"
  payload=$(pre_payload ok)
  hook "$payload" --output passthrough
  assert_eq "$RC" 0
  assert_eq "$OUT" "$payload"
}

case_fail_open_turns_block_into_allow() {
  crash_config
  export ECC_MCP_HEALTH_FAIL_OPEN=Yes
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 0
  # The JS hook's line as it says it under fail-open (people grep for "Blocking" and "skipping"), then mcphealth's.
  assert_contains "$ERR" "[MCPHealthCheck] svc is unavailable (fixture crashed: missing API key). Blocking do_thing so Claude can fall back to non-MCP tools."
  assert_contains "$ERR" "[MCPHealthCheck] fail-open mode is enabled: the call is allowed"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_contains "$ERR" "svc is marked unhealthy until"
  assert_contains "$ERR" "; skipping do_thing"
  assert_contains "$ERR" "fail-open mode is enabled: the call is allowed"
}

case_fail_open_keeps_the_reconnect_note_of_the_line() {
  crash_config
  export ECC_MCP_HEALTH_FAIL_OPEN=1 ECC_MCP_RECONNECT_COMMAND=true
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 0
  assert_contains "$ERR" "so Claude can fall back to non-MCP tools. Reconnect attempt: "
  assert_contains "$ERR" "fail-open mode is enabled: the call is allowed"
}

case_mcphealth_spelling_wins() {
  crash_config
  export ECC_MCP_HEALTH_FAIL_OPEN=0
  export MCPHEALTH_FAIL_OPEN=true
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 0 "MCPHEALTH_FAIL_OPEN wins over ECC_MCP_HEALTH_FAIL_OPEN"
  export MCPHEALTH_STATE_PATH="$T/elsewhere/state.json"
  export ECC_MCP_HEALTH_STATE_PATH="$T/ignored.json"
  hook "$(pre_payload other)"
  assert_file_exists "$T/elsewhere/state.json.d/bindings" # the folder's bindings, beside the state file
  assert_no_file "$T/ignored.json.d"
  assert_no_file "$T/ignored.json"
}

case_truncated_pre_tool_use_blocks() {
  export ECC_HOOK_INPUT_MAX_BYTES=64
  local payload='{"hook_event_name":"PreToolUse","tool_name":"mcp__svc__big_tool","tool_input":{"blob":"'"$(head -c 500 /dev/zero | tr '\0' x)"'"}}'
  hook "$payload" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "[MCPHealthCheck] Hook input exceeded 64 bytes while checking svc; blocking big_tool to avoid bypassing MCP health checks"
  hook "$payload" --output passthrough
  assert_eq "$RC" 2
  assert_eq "$OUT" "${payload:0:64}" "passthrough echoes the bytes that were read"
}

case_truncated_before_the_tool_name_blocks() {
  export ECC_HOOK_INPUT_MAX_BYTES=64
  # The tool name after the cut: an MCP call may hide behind a big input, so it is not let through unchecked.
  local payload='{"hook_event_name":"PreToolUse","tool_input":{"blob":"'"$(head -c 500 /dev/zero | tr '\0' x)"'"},"tool_name":"mcp__svc__big_tool"}'
  hook "$payload" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "[MCPHealthCheck] Hook input exceeded 64 bytes before its tool name; blocking the call"
  export ECC_MCP_HEALTH_FAIL_OPEN=1
  hook "$payload" --output exit-code
  assert_eq "$RC" 0
  # A name read before the cut that is not an MCP tool's is still allowed.
  unset ECC_MCP_HEALTH_FAIL_OPEN
  hook '{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"'"$(head -c 500 /dev/zero | tr '\0' x)"'"}}' --output exit-code
  assert_eq "$RC" 0
}

case_json_answer_stays_valid_utf8_whatever_the_name_holds() {
  local name
  name=$(printf 'sv\xffc')
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"$name\":$(stdio_def crash)}}"
  hook "$(pre_payload "$name")"
  assert_eq "$RC" 0
  printf '%s' "$OUT" > "$T/answer"
  "$PY" -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8")); print(d["hookSpecificOutput"]["permissionDecision"])' "$T/answer" > "$T/decision" ||
    fail "the answer is not UTF-8 JSON: $(od -c "$T/answer" | head -3)"
  assert_eq "$(cat "$T/decision")" deny
}

case_an_unknown_event_flag_says_it_is_ignored() {
  hook "$(pre_payload svc)" --event Nope
  assert_eq "$RC" 0
  assert_contains "$ERR" "--event Nope is not an event mcphealth acts on"
}

case_a_config_over_the_read_limit_is_named_not_missing() {
  # Over 64 MiB: not read, and the hook says so rather than only "No MCP config found".
  "$PY" -c 'import sys; f=open(sys.argv[1],"w"); f.write("{\"mcpServers\":{},\"pad\":\""); f.write("x"*(65*1024*1024)); f.write("\"}")' "$HOME/.claude.json"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_contains "$ERR" "No MCP config found for svc"
  assert_contains "$ERR" "$HOME/.claude.json could not be read"
  # From the folder's bindings too (the second call reads no config).
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "$HOME/.claude.json could not be read"
}

case_truncated_with_fail_open_allows() {
  export ECC_HOOK_INPUT_MAX_BYTES=64
  export ECC_MCP_HEALTH_FAIL_OPEN=1
  local payload='{"hook_event_name":"PreToolUse","tool_name":"mcp__svc__big_tool","tool_input":{"blob":"'"$(head -c 500 /dev/zero | tr '\0' x)"'"}}'
  hook "$payload" --output exit-code
  assert_eq "$RC" 0
  assert_contains "$ERR" "[MCPHealthCheck] Hook input exceeded 64 bytes while checking svc; allowing big_tool because fail-open mode is enabled"
}

case_truncated_post_failure_never_blocks() {
  export ECC_HOOK_INPUT_TRUNCATED=true
  hook "$(post_failure_payload svc 'HTTP 503 Service Unavailable')" --output exit-code
  assert_eq "$RC" 0
  assert_contains "$ERR" "Hook input exceeded"
  assert_no_state
}

case_truncated_flag_variable_blocks_pre() {
  export ECC_HOOK_INPUT_TRUNCATED=1
  hook "$(pre_payload svc tool_a)" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "blocking tool_a"
}

case_malformed_variables_are_reported_but_not_on_a_cache_hit() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"healthy\",\"checkedAt\":$now,\"expiresAt\":$((now + 600000))}}}"
  export MCPHEALTH_PROBE_DEPTH=deep ECC_MCP_HEALTH_TTL_MS=2m
  hook "$(pre_payload svc)" # the folder's first call reads the configs (and may warn), binding its names
  hook "$(pre_payload svc)"
  assert_eq "$ERR" "" "a cache hit prints nothing"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"other\":$(stdio_def hang)}}"
  hook "$(pre_payload other)"
  assert_contains "$ERR" "[MCPHealthCheck] ignoring MCPHEALTH_PROBE_DEPTH=deep"
  assert_contains "$ERR" "[MCPHealthCheck] ignoring ECC_MCP_HEALTH_TTL_MS=2m"
}

case_unparseable_input_allows_silently() {
  hook 'this is {not json' --output exit-code
  assert_eq "$RC" 0
  assert_eq "$ERR" ""
}

case_bad_option_allows_the_call() {
  crash_config
  hook "$(pre_payload svc)" --no-such-option
  assert_eq "$RC" 0 "a typo must not block (CLI11 would exit 109)"
  assert_contains "$ERR" "[MCPHealthCheck] ignoring the hook's command line"
  hook "$(pre_payload svc)" --output bogus
  assert_eq "$RC" 0
}

case_event_read_from_payload_alone() {
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_eq "$RC" 0
  assert_contains "$ERR" "svc reported transport; marking server unhealthy and attempting reconnect"
  assert_contains "$ERR" "svc reconnect skipped: no reconnect command configured"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["lastFailureCode"]')" "transport"
}

case_event_flag_wins_over_payload() {
  crash_config
  hook "$(post_failure_payload svc 'HTTP 503')" --event PreToolUse --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "svc is unavailable"
}

case_malformed_state_moved_aside() {
  seed_state '[1, 2, 3'
  crash_config
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "was not valid; its bytes were moved to"
  local aside; aside=$(ls "$HOME/.claude/" | grep 'mcp-health-cache.json.corrupt-' || true)
  [ -n "$aside" ] || fail "no .corrupt- file"
  assert_eq "$(cat "$HOME/.claude/$aside")" "[1, 2, 3"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" "unhealthy"
}

case_state_without_servers_object_moved_aside() {
  seed_state '{"version":1,"servers":[]}'
  crash_config
  hook "$(pre_payload svc)"
  ls "$HOME/.claude/" | grep -q 'corrupt-' || fail "no .corrupt- file"
}

case_missing_state_folder_created_private() {
  export ECC_MCP_HEALTH_STATE_PATH="$T/a/b/c/state.json"
  crash_config
  hook "$(pre_payload svc)"
  assert_file_exists "$T/a/b/c/state.json"
  assert_eq "$(stat -c %a "$T/a/b/c")" "700"
  assert_eq "$(stat -c %a "$T/a")" "700"
}

case_newer_state_version_is_never_overwritten() {
  seed_state '{"version":2,"servers":{}}'
  crash_config
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "has version 2, newer than 1"
  assert_eq "$(cat "$(STATE)")" '{"version":2,"servers":{}}'
  assert_contains "$OUT" "deny" "the decision is still made"
}

case_symlinked_state_is_not_written_through() {
  mkdir -p "$HOME/.claude"
  echo '{"version":1,"servers":{}}' > "$T/target.json"
  ln -s "$T/target.json" "$(STATE)"
  crash_config
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "symlink"
  assert_eq "$(cat "$T/target.json")" '{"version":1,"servers":{}}'
}

case_unwritable_state_is_reported_not_blocking() {
  # A file where the state folder should be: fails by construction, even as root.
  mkdir -p "$T"
  echo x > "$T/notadir"
  export ECC_MCP_HEALTH_STATE_PATH="$T/notadir/state.json"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang)}}"
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 0
  assert_contains "$ERR" "[MCPHealthCheck] "
  assert_contains "$ERR" "notadir"
}

MCPHEALTH_PREFIX="[MCPHealthCheck] "

# verbose_hook FLAG PAYLOAD: the hook with a root option (-v, -vv) before it; sets OUT, ERR, RC.
verbose_hook() {
  local errf; errf=$(mktemp)
  set +e
  OUT=$(printf '%s' "$2" | "$MCPHEALTH_BIN" "$1" hook 2>"$errf")
  RC=$?
  set -e
  ERR=$(cat "$errf")
  rm -f "$errf"
}

case_v_traces_the_decision_path_of_a_probe_and_a_cache_hit() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  verbose_hook -v "$(pre_payload svc search)"
  assert_eq "$RC" 0
  assert_contains "$ERR" "[mcphealth] event PreToolUse (the payload's hook_event_name)"
  assert_contains "$ERR" "[mcphealth] tool on server svc: search"
  assert_contains "$ERR" "[mcphealth] state file $(STATE): missing"
  assert_contains "$ERR" "no current bindings for svc"
  assert_contains "$ERR" "[mcphealth] reading the configs for svc"
  assert_contains "$ERR" "svc is defined in $PROJ/.mcp.json (project scope), definition "
  assert_contains "$ERR" "[mcphealth] cache: no entry for svc"
  assert_contains "$ERR" "[mcphealth] probe of svc: answered (healthy) in "
  assert_contains "$ERR" "protocol 2025-11-25"
  assert_contains "$ERR" "[mcphealth] recorded definitions."
  assert_contains "$ERR" "and servers.svc: healthy for 2m0s"
  assert_contains "$ERR" "[mcphealth] decision: allow"
  # The second call is a cache hit: the bindings decide, no config is read.
  verbose_hook -v "$(pre_payload svc search)"
  assert_contains "$ERR" "bindings current; svc is definition "
  assert_contains "$ERR" "[mcphealth] cache: healthy, fresh for "
  assert_not_contains "$ERR" "reading the configs"
  assert_not_contains "$ERR" "probe of"
  assert_contains "$ERR" "[mcphealth] decision: allow"
}

case_v_traces_a_block_and_vv_adds_timings() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  verbose_hook -vv "$(pre_payload svc)"
  assert_contains "$ERR" "probe of svc: exited (unhealthy) in "
  assert_contains "$ERR" "fixture crashed: missing API key"
  assert_contains "$ERR" "unhealthy, retry in 30s"
  assert_contains "$ERR" "decision: block"
  grep -qE '^\[mcphealth \+[0-9]+\.[0-9]{2}ms\] decision: block$' <<<"$ERR" || fail "no timing on the -vv lines: $ERR"
  verbose_hook -v "$(pre_payload svc)"
  assert_contains "$ERR" "[mcphealth] cache: unhealthy (fixture crashed: missing API key), retry in "
  # Without -v, only the JS hook's lines.
  hook "$(pre_payload svc)"
  assert_not_contains "$ERR" "[mcphealth"
  assert_contains "$ERR" "[MCPHealthCheck] svc is marked unhealthy until"
}

case_v_says_why_a_non_mcp_call_is_allowed() {
  verbose_hook -v '{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}'
  assert_contains "$ERR" "[mcphealth] tool Read is not an MCP tool: allow"
  assert_contains "$ERR" "[mcphealth] decision: allow"
}

case_reason_to_model_capped_at_500() {
  local long; long=$(head -c 2000 /dev/zero | tr '\0' e)
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash "\"--message\",\"$long\"")}}"
  local tool; tool=$(head -c 400 /dev/zero | tr '\0' t)
  hook "$(pre_payload svc "$tool")"
  local reason; reason=$(json_eval "$OUT" 'd["hookSpecificOutput"]["permissionDecisionReason"]')
  assert_eq "${#reason}" 500
  # The reason is cut to one short line (the model needs what happened, not 2000 bytes of it).
  assert_contains "$reason" "eee..."
  local line; line=$(grep -F "svc is unavailable" <<<"$ERR")
  assert_eq "${#line}" $((500 + ${#MCPHEALTH_PREFIX}))
  [ "$(json_get "$(STATE)" 'len(d["servers"]["svc"]["lastError"])')" -eq 2000 ] || fail "lastError keeps 4000 chars of stderr"
}

# Run by hand on a terminal, the hook says what it waits for instead of waiting silently; from a pipe it says nothing.
case_the_hook_on_a_terminal_says_it_reads_a_payload() {
  command -v script >/dev/null || skip "needs script (util-linux)"
  printf '{"hook_event_name":"PreToolUse","tool_name":"Read"}\n\004' > "$T/typed"
  OUT=$(script -qc "$MCPHEALTH_BIN hook" /dev/null < "$T/typed" 2>&1)
  assert_contains "$OUT" "mcphealth hook reads one hook payload (JSON) on stdin"
  hook '{"hook_event_name":"PreToolUse","tool_name":"Read"}'
  assert_not_contains "$ERR" "reads one hook payload"
}

main "$@"
