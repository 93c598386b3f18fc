#!/usr/bin/env bash
# The per-server policy file: probe: skip, per-server timeout and TTL, argv reconnect, validation, precedence.
source "$(dirname "$0")/lib.sh"

POLICY() { echo "$HOME/.config/mcphealth/policy.json"; }
policy() { write_config "$(POLICY)" "$1"; }
config() {
  local body="" pair
  for pair in "$@"; do body+="${body:+,}\"${pair%%=*}\":${pair#*=}"; done
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{$body}}"
}
entry() { json_get "$(STATE)" "d[\"servers\"][\"${2:-svc}\"]$1"; }
value_of() { json_eval "$OUT" "[s for s in d[\"servers\"] if s[\"name\"] == \"${1}\"][0][\"values\"][\"$2\"][\"$3\"]"; }

# hold_port: a process that owns a fixed port, as the copy of the server Claude Code runs does.
hold_port() {
  PORT=$(free_port)
  "$PY" -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(120)' "$PORT" &
  FIXTURE_PIDS+=($!)
  for _ in $(seq 1 100); do
    "$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2)' "$PORT" 2>/dev/null && return
    sleep 0.02
  done
  fail "the port holder did not start"
}

case_fixed_port_server_is_blocked_without_policy_and_allowed_with_skip() {
  hold_port
  config "svc=$(stdio_def healthy "\"--bind-port\",\"$PORT\",\"--count-file\",\"$T/starts\"")"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_contains "$OUT" '"permissionDecision":"deny"' "the second copy fails on the port: blocked without a policy"
  assert_contains "$ERR" "EADDRINUSE"
  mcph reset svc
  policy '{"servers":{"svc":{"probe":"skip"}}}'
  hook "$(pre_payload svc)"
  assert_eq "$OUT" "" "probe: skip allows the call"
  assert_eq "$(line_count "$T/starts")" 1 "probe: skip starts nothing"
  hook "$(pre_payload svc)"
  assert_eq "$OUT" ""
  assert_eq "$(line_count "$T/starts")" 1
  mcph status --json
  assert_eq "$(json_eval "$OUT" '[s["status"] for s in d["servers"] if s["name"] == "svc"][0]')" skipped
}

case_skipped_server_is_still_blocked_after_a_real_failure_and_recovers_on_success() {
  config "svc=$(stdio_def healthy "\"--count-file\",\"$T/starts\"")"
  policy '{"servers":{"svc":{"probe":"skip"}}}'
  hook "$(post_failure_payload svc 'MCP error -32000: Connection closed')"
  assert_eq "$(entry '["status"]')" unhealthy
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "a real failure mark still blocks a skipped server"
  assert_no_file "$T/starts"
  hook '{"hook_event_name":"PostToolUse","tool_name":"mcp__svc__do_thing","tool_input":{},"cwd":"'"$PROJ"'"}'
  assert_eq "$(entry '["status"]')" healthy "a successful call restores it"
  assert_eq "$(entry '["restoredBy"]')" tool-success
  hook "$(pre_payload svc)"
  assert_eq "$OUT" ""
  assert_no_file "$T/starts"
}

case_a_per_project_rule_holds_on_the_cache_path_too() {
  # A rule for svc in this project only: fail-open. The first call probes (slow path); the second decides from
  # the cache; the same rule must hold on both, whatever the order of calls.
  config "svc=$(stdio_def crash)"
  policy "{\"servers\":{\"svc\":[{\"project\":\"$PROJ\",\"failOpen\":true}]}}"
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 0 "first call (probe path)"
  assert_eq "$(entry '["status"]')" unhealthy
  hook "$(pre_payload svc)" --output exit-code
  assert_eq "$RC" 0 "second call (cache path)"
  # Elsewhere the rule does not hold: another folder with the same definition blocks from the cache.
  mkdir -p "$T/other"
  cp "$PROJ/.mcp.json" "$T/other/.mcp.json"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"tool_input\":{},\"cwd\":\"$T/other\"}" --output exit-code
  assert_eq "$RC" 2 "another project"
}

case_per_server_timeout_and_ttl() {
  config "slow=$(stdio_def slow '"--delay-ms","800"')" "fast=$(stdio_def healthy)"
  export MCPHEALTH_TIMEOUT_MS=700 MCPHEALTH_PROBE_DEPTH=handshake
  mcph probe slow --json
  assert_eq "$RC" 1 "answers 0.8 s apart miss the environment's 700 ms"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["kind"]')" timeout
  policy '{"servers":{"slow":{"timeoutMs":6000,"ttlMs":45000,"protocol":"legacy"}}}'
  mcph probe --all --json
  assert_eq "$RC" 0 "the policy gives slow 6 s"
  assert_eq "$(json_eval "$OUT" '[s["kind"] for s in d["servers"] if s["name"] == "slow"][0]')" answered
  mcph probe fast --json
  local slow_ttl fast_ttl
  slow_ttl=$(json_get "$(STATE)" 'd["servers"]["slow"]["expiresAt"] - d["servers"]["slow"]["checkedAt"]')
  fast_ttl=$(json_get "$(STATE)" 'd["servers"]["fast"]["expiresAt"] - d["servers"]["fast"]["checkedAt"]')
  assert_eq "$slow_ttl" 45000
  assert_eq "$fast_ttl" 120000
  # The hook uses the same per-server timeout.
  mcph reset slow
  hook "$(pre_payload slow)"
  assert_eq "$OUT" ""
  assert_eq "$(entry '["status"]' slow)" healthy
}

case_argv_reconnect_runs_without_a_shell_for_a_name_with_spaces() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"my server\":$(stdio_def flag "\"--flag-file\",\"$T/up\"")}}"
  policy "{\"servers\":{\"my server\":{\"reconnect\":[\"$PY\",\"-c\",\"import sys; open(sys.argv[1] + '-' + sys.argv[2], 'w').write('x'); open(sys.argv[1], 'w').write('')\",\"$T/up\",\"{server}\"]}}}"
  mcph probe my_server --reconnect --json
  assert_eq "$RC" 0 "the reconnect brought it back"
  assert_file_exists "$T/up-my server"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["reconnect"]')" ok
  # The name is one word of argv wherever {server} stands in it, space included; no shell reads it.
  policy "{\"servers\":{\"my server\":{\"reconnect\":[\"touch\",\"$T/made-{server}\"]}}}"
  rm -f "$T/up"
  mcph probe my_server --reconnect --json
  assert_file_exists "$T/made-my server"
}

case_invalid_policy_allows_the_call_and_says_so_once() {
  config "svc=$(stdio_def healthy)"
  policy '{"servers":{"svc":{"probe":"skip","timeotMs":5}}}'
  hook "$(pre_payload svc)"
  assert_eq "$OUT" "" "an invalid policy never blocks"
  assert_contains "$ERR" "policy file $(POLICY) is not valid, so it is ignored and the environment decides"
  assert_contains "$ERR" 'servers.svc.timeotMs: unknown key; did you mean "timeoutMs"?'
  assert_eq "$(entry '["status"]')" healthy "ignored: the server was probed as the environment says"
  mcph reset svc
  hook "$(pre_payload svc)"
  assert_not_contains "$ERR" "policy file" "said once per change of the file"
  sleep 0.01
  policy '{"servers":{"svc":{"probe":"skipp"}}}'
  mcph reset svc
  hook "$(pre_payload svc)"
  assert_contains "$ERR" 'servers.svc.probe: "skipp" is not skip, liveness, handshake or auto'
}

case_policy_command_lists_problems_with_line_and_column() {
  config "svc=$(stdio_def healthy)"
  printf '{\n  "servers": {\n    "svc": {"timeoutMs": 5,}\n  }\n}\n' > "$T/p.json"
  mcph --policy "$T/p.json" policy
  assert_eq "$RC" 1
  assert_contains "$OUT" "problem: line 3, column"
  policy '{"defaults":{"failOpen":"yes","timeoutMs":-3},"servers":{"svc":{"reconnect":[]}},"sever":{}}'
  mcph policy --json
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" 'sorted(p["where"] for p in d["policy"]["problems"])')" \
    '["defaults.failOpen", "defaults.timeoutMs", "servers.svc.reconnect", "sever"]'
  assert_contains "$OUT" 'expected true or false, got a string'
  assert_contains "$OUT" 'did you mean \"servers\"?'
  mcph policy nosuch
  assert_eq "$RC" 2
}

case_precedence_one_level_at_a_time() {
  config "svc=$(stdio_def healthy)" "other=$(stdio_def healthy)"
  unset ECC_MCP_HEALTH_TIMEOUT_MS
  mcph policy --json svc
  assert_eq "$(value_of svc timeoutMs origin)" default
  assert_eq "$(value_of svc 'timeoutMs (probe, watch, refresh)' value)" 30000
  export ECC_MCP_HEALTH_TIMEOUT_MS=1100
  mcph policy --json svc
  assert_eq "$(value_of svc timeoutMs value)" 1100
  assert_eq "$(value_of svc timeoutMs origin)" "variable ECC_MCP_HEALTH_TIMEOUT_MS"
  export MCPHEALTH_TIMEOUT_MS=1200
  mcph policy --json svc
  assert_eq "$(value_of svc timeoutMs value)" 1200
  assert_eq "$(value_of svc timeoutMs origin)" "variable MCPHEALTH_TIMEOUT_MS"
  policy '{"defaults":{"timeoutMs":1300}}'
  mcph policy --json svc
  assert_eq "$(value_of svc timeoutMs value)" 1300
  assert_eq "$(value_of svc timeoutMs origin)" "policy defaults"
  policy '{"defaults":{"timeoutMs":1300},"servers":{"s*":{"timeoutMs":1400}}}'
  mcph policy --json
  assert_eq "$(value_of svc timeoutMs value)" 1400
  assert_eq "$(value_of svc timeoutMs origin)" "policy servers.s*"
  assert_eq "$(value_of other timeoutMs value)" 1300 "a pattern applies only to the names it matches"
  policy "{\"defaults\":{\"timeoutMs\":1300},\"servers\":{\"s*\":{\"timeoutMs\":1400},\"svc\":[{\"timeoutMs\":1500},{\"project\":\"$PROJ\",\"timeoutMs\":1600}]}}"
  mcph policy --json svc
  assert_eq "$(value_of svc timeoutMs value)" 1600 "an exact name in this project wins over the name alone"
  assert_eq "$(value_of svc timeoutMs origin)" "policy servers.svc[1]"
  mcph policy --json svc --cwd "$T"
  assert_eq "$RC" 2 "svc is defined in the project, not in $T"
  mcph probe svc --json --timeout-ms 1700 --no-update
  assert_eq "$RC" 0
  mcph explain-config --json svc
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["ownSettings"]["timeoutMs"]["origin"]')" "policy servers.svc[1]"
  # The flag is the top: probe's --timeout-ms beats every policy entry (seen in what explain-config reports as
  # the settings of the run, and in the probe's own behaviour with a server slower than the policy allows).
  config "svc=$(stdio_def slow '"--delay-ms","300"')"
  mcph probe svc --json --timeout-ms 200 --depth handshake --no-update
  assert_eq "$RC" 1 "--timeout-ms 200 wins over the policy's 1600 ms"
  mcph probe svc --json --depth handshake --no-update
  assert_eq "$RC" 0 "without the flag, the policy's 1600 ms is enough"
}

case_policy_path_from_xdg_variable_and_flag() {
  config "svc=$(stdio_def healthy)"
  write_config "$T/xdg/mcphealth/policy.json" '{"defaults":{"ttlMs":1111}}'
  export XDG_CONFIG_HOME="$T/xdg"
  mcph policy --json svc
  assert_eq "$(json_eval "$OUT" 'd["policy"]["path"]')" "$T/xdg/mcphealth/policy.json"
  assert_eq "$(value_of svc ttlMs value)" 1111
  write_config "$T/var.json" '{"defaults":{"ttlMs":2222}}'
  export MCPHEALTH_POLICY="$T/var.json"
  mcph policy --json svc
  assert_eq "$(value_of svc ttlMs value)" 2222
  assert_eq "$(json_eval "$OUT" 'd["policy"]["pathOrigin"]')" "variable MCPHEALTH_POLICY"
  write_config "$T/flag.json" '{"defaults":{"ttlMs":3333}}'
  mcph --policy "$T/flag.json" policy --json svc
  assert_eq "$(value_of svc ttlMs value)" 3333
  assert_eq "$(json_eval "$OUT" 'd["policy"]["pathOrigin"]')" "flag --policy"
}

case_a_syntax_error_says_where_with_the_text_there() {
  printf '{"defaults": {"ttlMs": 5000,}}\n' > "$T/policy.json"
  mcph --policy "$T/policy.json" policy
  assert_eq "$RC" 1
  assert_contains "$OUT" 'line 1, column 29: syntax error near `{"defaults": {"ttlMs": 5000,}}`'
  # The text shown goes through the one redactor: a credential on that line is not printed.
  printf '{"defaults": {"reconnectCommand": "curl -H \x27Authorization: Bearer sk-ant-api03-abcdefghijklmnop\x27 x",}}\n' > "$T/policy.json"
  mcph --policy "$T/policy.json" policy
  assert_contains "$OUT" "syntax error near"
  assert_not_contains "$OUT" "abcdefghijklmnop"
}

# The hook and status hold an entry to one set of rules (gate::cache_rules): a policy's TTL, a policy's backoff cap
# and a Retry-After give the same answer in both. Before, status bounded a mark by the environment's settings only:
# a policy ttlMs of 10 minutes and a mark 200 s old were "fresh" to the hook and "on next call" in status.
case_the_hook_and_status_hold_an_entry_to_the_same_rules() {
  local now
  # A server that would fail a probe: a call the hook decided from the cache leaves the mark as it was.
  config "svc=$(stdio_def crash "\"--count-file\",\"$T/starts\"")" "other=$(stdio_def crash)"
  policy '{"servers":{"svc":{"ttlMs":600000},"other":{"maxBackoffMs":7200000}}}'
  now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{
    \"svc\":{\"status\":\"healthy\",\"checkedAt\":$((now - 200000)),\"expiresAt\":$((now + 400000)),\"failureCount\":0},
    \"other\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 1000)),\"nextRetryAt\":$((now + 5400000)),\"failureCount\":3,\"lastError\":\"HTTP 503\",\"lastFailureCode\":503}}}"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0 "the policy's TTL holds the mark fresh for the hook"
  assert_no_file "$T/starts"
  assert_eq "$(entry '["checkedAt"]')" "$((now - 200000))" "no probe"
  hook "$(pre_payload other)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "in its backoff under the policy's cap"
  mcph status --json
  local q='{s["name"]: s for s in d["servers"]}'
  assert_eq "$(json_eval "$OUT" "($q)['svc']['freshForMs'] > 390000")" true "status: fresh as long as the hook holds it"
  assert_eq "$(json_eval "$OUT" "($q)['other']['retryInMs'] > 5300000")" true "status: the retry the hook waits for"
  mcph status
  assert_contains "$(grep -E '^svc ' <<<"$OUT")" "good for 6m"
  assert_contains "$(grep -E '^other ' <<<"$OUT")" "retry in 1h29m"
}

# A reconnect command is printed through the one redactor, wherever it is printed: policy and explain-config, text
# and --json (issue 54 item 3); the policy's argv and string forms, and the variable's.
case_a_reconnect_command_is_printed_redacted_everywhere() {
  config "svc=$(stdio_def healthy)" "other=$(stdio_def healthy)"
  policy '{"servers":{"svc":{"reconnect":"curl -H \"Authorization: Bearer polS3cret1\" https://h.example/restart?token=polS3cret2"},"other":{"reconnect":["env","PGPASSWORD=polS3cret3","pg_ctl","restart"]}}}'
  export ECC_MCP_RECONNECT_COMMAND="curl -u deploy:varS3cret4 https://h.example/restart"
  local out
  for args in "policy" "policy --json" "explain-config" "explain-config --json" "policy svc" "policy other"; do
    # shellcheck disable=SC2086
    mcph $args
    out+="$OUT$ERR"
  done
  for secret in polS3cret1 polS3cret2 polS3cret3; do
    assert_not_contains "$out" "$secret" "a reconnect command's credential"
  done
  assert_contains "$out" "pg_ctl restart"
  assert_contains "$out" "Authorization: Bearer ***"
}

main "$@"
