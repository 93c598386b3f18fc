#!/usr/bin/env bash
# `mcphealth status`: rows, derived times, warnings, exit codes, --json, --statusline; never writes.
source "$(dirname "$0")/lib.sh"

seed_mixed() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{
    \"good\":{\"status\":\"healthy\",\"checkedAt\":$((now - 180000)),\"expiresAt\":$((now + 100000)),\"failureCount\":0,\"lastError\":null,\"lastFailureCode\":null},
    \"authy\":{\"status\":\"healthy\",\"checkedAt\":$now,\"expiresAt\":$((now + 100000)),\"probe\":{\"kind\":\"needs-auth\",\"httpStatus\":401}},
    \"down\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 10000)),\"expiresAt\":$((now - 10000)),\"nextRetryAt\":$((now + 492000)),\"failureCount\":2,\"lastError\":\"HTTP 503\",\"lastFailureCode\":503,\"downSince\":$((now - 22260000))},
    \"due\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 90000)),\"expiresAt\":$((now - 90000)),\"nextRetryAt\":$((now - 1000)),\"failureCount\":1,\"lastError\":\"spawn x ENOENT\",\"lastFailureCode\":null}}}"
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"good":{"command":"true"},"authy":{"url":"http://127.0.0.1:1/mcp"},"down":{"command":"true"},"due":{"command":"true"},"fresh":{"command":"true"}}}'
}

case_table_shows_every_server_and_timing() {
  seed_mixed
  local before; before=$(cat "$(STATE)")
  mcph status
  assert_eq "$RC" 1 "a server is unhealthy"
  assert_contains "$OUT" "✔ healthy"
  assert_contains "$OUT" "! needs auth"
  assert_contains "$OUT" "✘ unhealthy"
  assert_contains "$OUT" "? never checked"
  # Columns line up with their headers: the status under STATUS, the scope under SCOPE.
  assert_contains "$(grep -E '^SERVER' <<<"$OUT")" "SERVER  STATUS"
  grep -qE '^good +✔ healthy +- +project ' <<<"$OUT" || fail "the good row's cells are not under their headers: $OUT"
  # Words that read without the manual: how long an outage has lasted and since when, how long a healthy verdict
  # holds, when a down one is tried again.
  assert_contains "$(grep -E '^SERVER' <<<"$OUT")" "DOWN FOR"
  assert_contains "$(grep -E '^SERVER' <<<"$OUT")" "LAST CHECK"
  assert_contains "$(grep -E '^SERVER' <<<"$OUT")" "NEXT CHECK"
  assert_contains "$(grep -E '^down ' <<<"$OUT")" "6h11m, since "
  assert_contains "$OUT" "3m0s ago"
  assert_contains "$OUT" "good for 1m"
  assert_contains "$OUT" "retry in 8m1"
  assert_contains "$OUT" "retry due"
  assert_contains "$OUT" "HTTP 503"
  assert_not_contains "$OUT" $'\033['
  assert_eq "$(cat "$(STATE)")" "$before" "status never writes"
}

case_exit_0_when_nothing_is_unhealthy() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"good\":{\"status\":\"healthy\",\"checkedAt\":$now,\"expiresAt\":$((now + 1000))}}}"
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"good":{"command":"true"}}}'
  mcph status -q
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
}

case_json_has_entries_and_derived_fields() {
  seed_mixed
  mcph status --json
  assert_eq "$RC" 1
  local q='{s["name"]: s for s in d["servers"]}'
  assert_eq "$(json_eval "$OUT" "($q)['down']['status']")" unhealthy
  assert_eq "$(json_eval "$OUT" "($q)['down']['entry']['lastFailureCode']")" 503
  assert_eq "$(json_eval "$OUT" "($q)['down']['retryDue']")" false
  assert_eq "$(json_eval "$OUT" "490000 < ($q)['down']['retryInMs'] <= 492000")" true
  assert_eq "$(json_eval "$OUT" "($q)['due']['retryDue']")" true
  assert_eq "$(json_eval "$OUT" "($q)['good']['ageMs'] >= 180000")" true
  assert_eq "$(json_eval "$OUT" "($q)['good']['configured']")" true
  assert_eq "$(json_eval "$OUT" "($q)['authy']['status']")" needs-auth
  assert_eq "$(json_eval "$OUT" "($q)['fresh']['status']")" unknown
  assert_eq "$(json_eval "$OUT" "($q)['fresh']['entry']")" null
  assert_eq "$(json_eval "$OUT" 'd["stateFile"]')" "$(STATE)"
  assert_eq "$(json_eval "$OUT" 'd["warnings"]')" "[]"
}

case_statusline_is_one_short_line() {
  seed_mixed
  rm "$PROJ/.mcp.json"
  mcph status --statusline
  assert_eq "$OUT" "mcp 1✔ 1! 2✘ down due"
  assert_eq "$RC" 1
}

case_statusline_before_any_verdict_says_so() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  mcph status --statusline
  assert_eq "$OUT" "mcp ?" "nothing checked yet is not 0 healthy"
  assert_eq "$RC" 0
  mcph probe svc
  mcph status --statusline
  assert_eq "$OUT" "mcp 1✔"
}

case_named_servers_only_and_unknown_is_an_error() {
  seed_mixed
  mcph status good --json
  assert_eq "$(json_eval "$OUT" '[s["name"] for s in d["servers"]]')" '["good"]'
  assert_eq "$RC" 0
  mcph status nosuch
  assert_eq "$RC" 2
  assert_contains "$ERR" "unknown server 'nosuch'"
}

case_warns_when_fail_open_is_on() {
  seed_mixed
  export MCPHEALTH_FAIL_OPEN=1
  mcph status --json
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "fail-open is on (MCPHEALTH_FAIL_OPEN)"
  mcph status
  assert_contains "$ERR" "fail-open is on"
}

case_warns_when_the_state_folder_is_a_file() {
  echo x > "$T/blocker"
  export ECC_MCP_HEALTH_STATE_PATH="$T/blocker/state.json"
  mcph status --json
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "cannot be written"
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "$T/blocker is not a folder"
}

case_warns_when_the_state_file_is_not_writable_by_the_user() {
  command -v setpriv >/dev/null || fail "setpriv is needed (util-linux)"
  mkdir -p "$T/shared"
  chmod 755 "$T" "$T/shared"
  echo '{"version":1,"servers":{}}' > "$T/shared/state.json"
  chmod 644 "$T/shared/state.json"
  local out
  out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T" "$MCPHEALTH_BIN" --state "$T/shared/state.json" status --json)
  assert_contains "$out" "is not writable"
}

case_warns_about_a_server_pinned_at_the_cap() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"stuck\":{\"status\":\"unhealthy\",\"checkedAt\":$now,\"expiresAt\":$now,\"nextRetryAt\":$((now + 600000)),\"failureCount\":7}}}"
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"stuck":{"command":"true"}}}'
  mcph status --json
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "stuck is pinned at the backoff cap"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["pinnedAtBackoffCap"]')" true
  # In the table its row says so; the sentence is no warning on every run, only with -v.
  mcph status
  assert_contains "$OUT" "retry in "
  assert_contains "$OUT" "(at the longest backoff)"
  assert_not_contains "$ERR" "pinned at the backoff cap"
  mcph status -v
  assert_contains "$ERR" "stuck is pinned at the backoff cap"
}

case_warns_about_entries_no_longer_defined() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"gone\":{\"status\":\"healthy\",\"checkedAt\":$now,\"expiresAt\":$((now + 1000))}}}"
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"kept":{"command":"true"}}}'
  mcph status
  assert_contains "$ERR" "gone is in the cache but no config file defines it (a failed call's name, or a claude.ai connector): not counted; \`mcphealth reset gone\` removes it"
  mcph status --json
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "gone is in the cache but no config file defines it"
  assert_eq "$(json_eval "$OUT" '{s["name"]: s["configured"] for s in d["servers"]}')" '{"gone": false, "kept": true}'
}

case_a_failed_call_to_a_name_no_folder_defines_does_not_turn_status_red() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"kept":{"command":"true"}}}'
  hook "{\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"mcp__nosuch__x\",\"error\":\"$CLIENT_CLOSED\",\"cwd\":\"$PROJ\"}"
  assert_eq "$(entry_field nosuch status)" unhealthy "the hook still remembers the failure (it blocks the name's next call)"
  mcph status
  assert_eq "$RC" 0 "an unbound name turned status red: $OUT"
  assert_contains "$ERR" "nosuch is in the cache but no config file defines it"
  mcph status --statusline
  assert_eq "$OUT" "mcp ?" "kept has no verdict yet, and nosuch is not one of the folder's servers"
}

case_a_config_that_does_not_parse_is_one_line_not_a_warning_per_server() {
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"a\":$(stdio_def healthy),\"b\":$(stdio_def healthy),\"c\":$(stdio_def healthy)}}"
  mcph probe --all
  printf '{"mcpServers":{"a":{"command":"true"},\n  "b": oops}}\n' > "$HOME/.claude.json"
  mcph status
  assert_eq "$(grep -c . <<<"$ERR")" 1 "more than one line: $ERR"
  assert_contains "$ERR" "$HOME/.claude.json does not parse at line 2, column 8"
  assert_eq "$(grep -c '^[abc] ' <<<"$OUT")" 3 "the verdicts are still shown"
}

case_warns_about_a_corrupt_file_moved_aside() {
  seed_state '{"version":1,"servers":{}}'
  echo 'garbage' > "$(STATE).corrupt-1700000000000"
  mcph status --json
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "moved aside to $(STATE).corrupt-1700000000000"
}

case_warns_about_a_corrupt_state_file() {
  seed_state 'not json'
  mcph status --json
  assert_eq "$(json_eval "$OUT" 'd["stateFileStatus"]')" corrupt
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "is not a valid state file"
}

case_warns_about_a_newer_state_version() {
  seed_state '{"version":3,"servers":{}}'
  mcph status --json
  assert_contains "$(json_eval "$OUT" 'd["warnings"]')" "has version 3, newer than this mcphealth writes"
}

case_colour_only_on_a_terminal_without_no_color() {
  seed_mixed
  script -qec "$MCPHEALTH_BIN status" /dev/null > "$T/tty.txt" || true
  assert_contains "$(cat "$T/tty.txt")" $'\033[31m'
  NO_COLOR=1 script -qec "$MCPHEALTH_BIN status" /dev/null > "$T/tty2.txt" || true
  assert_not_contains "$(cat "$T/tty2.txt")" $'\033[3'
  TERM=dumb script -qec "$MCPHEALTH_BIN status" /dev/null > "$T/tty2.txt" || true
  assert_not_contains "$(cat "$T/tty2.txt")" $'\033[3'
}

case_alive_silent_is_its_own_state_not_healthy() {
  # A server that starts and never answers costs a timeout per cold call: status must not call it healthy.
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"hung\":$(stdio_def hang),\"good\":$(stdio_def healthy)}}"
  mcph probe --all --timeout-ms 1500
  assert_eq "$RC" 0 "alive-silent counts as up"
  mcph status
  assert_eq "$RC" 0
  grep -qE '^hung +~ alive, silent ' <<<"$OUT" || fail "hung is not shown as alive-silent: $OUT"
  assert_contains "$OUT" "hint: hung: it starts but does not answer MCP"
  mcph status --json
  assert_eq "$(json_eval "$OUT" '[s["status"] for s in d["servers"] if s["name"] == "hung"][0]')" alive-silent
  mcph status --statusline
  assert_eq "$OUT" "mcp 1✔ 1~"
}

case_piped_output_is_never_cut_and_wide_never_cuts() {
  local now long; now=$(now_ms)
  long="E$(printf 'x%.0s' $(seq 1 240))END"
  seed_state "{\"version\":1,\"servers\":{\"down\":{\"status\":\"unhealthy\",\"checkedAt\":$now,\"nextRetryAt\":$((now + 30000)),\"failureCount\":1,\"lastError\":\"$long\",\"lastFailureCode\":\"transport\"}}}"
  mcph status
  assert_contains "$OUT" "${long}" "piped: the whole error"
  COLUMNS=80 mcph status
  assert_not_contains "$OUT" "END" "COLUMNS=80 cuts the last column"
  assert_contains "$OUT" "…"
  COLUMNS=80 mcph status --wide
  assert_contains "$OUT" "${long}"
  COLUMNS=80 mcph status -o wide
  assert_contains "$OUT" "${long}"
  # On a terminal, the terminal's width (script gives it one; tmux is not needed for that).
  script -qec "stty cols 90; $MCPHEALTH_BIN status" /dev/null > "$T/tty.txt" || true
  assert_not_contains "$(cat "$T/tty.txt")" "END"
}

case_multiline_error_shows_its_last_meaningful_line() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"py\":{\"status\":\"unhealthy\",\"checkedAt\":$now,\"nextRetryAt\":$((now + 30000)),\"failureCount\":1,\"lastError\":\"Traceback (most recent call last):\\n  File \\\"s.py\\\", line 1, in <module>\\n    import nosuchmod\\nModuleNotFoundError: No module named 'nosuchmod'\",\"lastFailureCode\":\"transport\",\"probe\":{\"kind\":\"exited\"}}}}"
  mcph status
  assert_contains "$OUT" "ModuleNotFoundError: No module named 'nosuchmod'"
  assert_not_contains "$OUT" "Traceback"
  assert_contains "$OUT" "hint: py: install the missing Python module"
  mcph status --json
  assert_contains "$(json_eval "$OUT" 'd["servers"][0]["entry"]["lastError"]')" "Traceback (most recent call last):"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["lastErrorLine"]')" "ModuleNotFoundError: No module named 'nosuchmod'"
}

case_unhealthy_filter_names_and_hints() {
  seed_mixed
  mcph status --unhealthy -o name
  assert_eq "$RC" 1
  assert_eq "$OUT" $'down\ndue'
  mcph status --unhealthy
  assert_contains "$OUT" "hint: due: install x"
  assert_contains "$OUT" "hint: down: the server reports an error"
  assert_not_contains "$OUT" "good"
  mcph status --names
  assert_eq "$OUT" $'authy\ndown\ndue\nfresh\ngood'
}

case_conflicting_formats_are_rejected() {
  seed_mixed
  mcph status --json --statusline
  assert_eq "$RC" 2
  assert_contains "$ERR" "statusline"
  mcph status -o table --names
  assert_eq "$RC" 2
}

case_empty_cache_says_so() {
  mcph status
  assert_eq "$RC" 0
  assert_contains "$OUT" "no servers in"
}

case_a_symlinked_state_file_is_named_as_never_written() {
  mkdir -p "$HOME/.claude"
  printf '{"version":1,"servers":{}}\n' > "$T/real-state.json"
  ln -s "$T/real-state.json" "$(STATE)"
  mcph status
  assert_contains "$ERR" "is a symlink: mcphealth reads it but never writes through one"
  mcph status --statusline
  assert_not_contains "$ERR" "symlink" "the status line stays quiet"
}

case_a_fixed_server_is_not_kept_red_by_its_old_verdict() {
  # api cannot start without API_KEY (misconfigured); set, it answers: a new definition, a new verdict.
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"api\":{\"command\":\"$PY\",\"args\":[\"$STDIO_SERVER\",\"--mode\",\"flag\",\"--flag-file\",\"$T/\${API_KEY}\"],\"env\":{\"API_KEY\":\"\${API_KEY}\"}}}}"
  touch "$T/k"
  # As the agent runs it: the hook judges with the agent's environment (a probe from another environment would
  # record nothing for a definition built from a variable it lacks).
  hook "$(pre_payload api)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  export API_KEY=k
  hook "$(pre_payload api)"
  assert_eq "$RC" 0
  # The old verdict is superseded: not shown, not counted, not in the status line.
  mcph status
  assert_eq "$RC" 0 "the superseded verdict counted: $OUT"
  assert_eq "$(grep -c '^api ' <<<"$OUT")" 1
  assert_not_contains "$OUT" "misconfigured"
  mcph status api
  assert_eq "$RC" 0
  mcph status --statusline
  assert_eq "$OUT" "mcp 1✔"
  mcph status --superseded --json
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" '[(r["status"], r["superseded"]) for r in d["servers"]]')" '[["healthy", false], ["misconfigured", true]]'
  mcph status --superseded
  assert_contains "$OUT" "superseded"
  # Removable alone: the verdict in force stays.
  mcph reset --stale
  assert_contains "$OUT" "reset api (superseded definition "
  mcph status --superseded --json
  assert_eq "$(json_eval "$OUT" '[r["status"] for r in d["servers"]]')" '["healthy"]'
}

case_status_name_shows_the_definition_this_folder_uses() {
  # A user-scope svc, and a local one for this folder: the hook here uses the local one.
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)},\"projects\":{\"$PROJ\":{\"mcpServers\":{\"svc\":$(stdio_def healthy)}},\"$T/other\":{}}}"
  mkdir -p "$T/other"
  mcph probe --all
  mcph status svc --json
  assert_eq "$(json_eval "$OUT" '[(r["status"], r["scope"]) for r in d["servers"]]')" '[["healthy", "local"]]'
  assert_eq "$RC" 0
  mcph status svc --json --cwd "$T/other"
  assert_eq "$(json_eval "$OUT" '[(r["status"], r["scope"]) for r in d["servers"]]')" '[["unhealthy", "user"]]'
  # The status line counts this folder's servers.
  hook "$(pre_payload svc)"
  mcph status --statusline
  assert_eq "$OUT" "mcp 1✔"
}

# A Gemini CLI project elsewhere: its hook bound the folder, so its server is in use there, whichever folder status
# runs in (it was called "in the cache for a definition that no folder Claude Code knows uses any more", with
# advice to reset a live verdict).
case_a_server_another_agent_uses_in_another_folder_is_in_use() {
  local gem="$T/gem"
  write_config "$HOME/.gemini/trustedFolders.json" "{\"$gem\":\"TRUST_FOLDER\"}"
  write_config "$gem/.gemini/settings.json" "{\"mcpServers\":{\"psvc\":$(stdio_def healthy)}}"
  hook "{\"hook_event_name\":\"BeforeTool\",\"tool_name\":\"mcp_psvc_echo\",\"tool_input\":{},\"cwd\":\"$gem\",\"mcp_context\":{\"server_name\":\"psvc\",\"tool_name\":\"echo\"}}" --agent gemini
  assert_eq "$RC" 0 "$ERR"
  assert_eq "$(json_get "$(STATE_ALL)" "[v['status'] for v in d['definitions'].values()]")" '["healthy"]'
  mcph status --json
  assert_eq "$RC" 0 "$ERR"
  assert_not_contains "$ERR" "no folder"
  assert_eq "$(json_eval "$OUT" "[(s['name'], s['agents']) for s in d['servers']]")" '[["psvc", ["gemini"]]]'
  mcph reset --stale
  assert_eq "$(json_get "$(STATE_ALL)" "len(d['definitions'])")" 1 "reset --stale removed a verdict in use"
}

case_in_80_columns_the_reason_is_shown_whole_and_hints_break_between_words() {
  local message="Error: NOTES_API_TOKEN is not set; export it in the shell that starts the agent, or put it in the server's env block"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"notes\":$(stdio_def crash "\"--message\",\"$message\"")}}"
  COLUMNS=80 mcph probe --all
  local cmd
  for cmd in "probe --all" "status"; do
    COLUMNS=80 mcph $cmd
    # Every line fits, and the reason the table cuts is whole below it (joined back from its wrapped lines).
    assert_eq "$("$PY" -c 'import sys; print(sum(len(l) > 80 for l in sys.stdin.read().splitlines()))' <<<"$OUT")" 0 \
      "$cmd: a line past 80 columns"
    assert_contains "$(tr -s ' \n' '  ' <<<"$OUT")" "why: exit 3: $message" "$cmd: the whole reason"
    assert_contains "$OUT" "hint: notes: run its command by hand to see why it exits"
  done
  # A pipe gets the table whole (never cut), so no second copy of the reason.
  mcph status
  assert_not_contains "$OUT" "why: "
}

case_here_judges_the_folder_you_are_in_and_two_servers_of_one_name_say_which() {
  # Two projects, each with a `db` of its own: proj-b's is down, proj-a's answers.
  two_dbs
  cd "$A"
  mcph status -q
  assert_eq "$RC" 1 "everything: a db is down"
  mcph status -q --here
  assert_eq "$RC" 0 "here: proj-a's db answers"
  mcph status --statusline
  assert_eq "$RC" 0 "the status line judges the folder too: $OUT"
  mcph status --here
  assert_contains "$OUT" "db"
  assert_not_contains "$OUT" "proj-b"
  # Every row and hint that names one of the two says which.
  COLUMNS=80 mcph status
  assert_contains "$OUT" "db (proj-a)"
  assert_contains "$OUT" "db (proj-b)"
}

main "$@"
