#!/usr/bin/env bash
# The real Claude Code (from npm, pinned by scripts/test), driven offline by our fake model, with mcphealth's hooks
# registered by `mcphealth install`: each outage kind starts mid-session, and the case checks what the cache holds,
# that the next call is blocked (the server never sees it) and what the model read.
# Needs: GNU stat, GNU timeout
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# outage_session CUE [CLAUDE ARGS...]: a session whose first turn starts the outage CUE and calls echo ("one"), and
# whose second calls it again ("two"); hooks registered as a user would.
outage_session() {
  model_script "{\"turns\":[$(cue_turn "$1" "$(echo_call one)"),[$(echo_call two)]]}"
  start_model
  mcph install
  assert_eq "$RC" 0 "install"
  claude_session "${@:2}"
}

# assert_second_blocked: the server never saw the second call, and the model read our reason for it.
assert_second_blocked() {
  assert_not_contains "$(calls_seen)" "two" "the second call reached the server"
  local results
  results=$(tool_results)
  assert_contains "$(sed -n '$p' <<<"$results")" 'The MCP server \"svc\" has been down' "the model's text for the blocked call"
}

case_stdio_server_exited_between_calls_is_blocked_from_the_second_call() {
  need_claude
  svc_stdio
  outage_session down
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  assert_contains "$(entry_field svc lastError)" 'is not connected'
  assert_eq "$(calls_seen)" ""
  assert_second_blocked
  # The hook read its client's version from the client's own install (approvals differ by version), without
  # running it: the folder is bound under that version.
  local version
  version=$("$CLAUDE_BIN" --version | awk '{print $1}')
  assert_contains "$(json_get "$(BINDINGS)" 'list(d.keys())')" "version $version" "the hook's client version"
  wait_for_quiet
}

case_stdio_server_dying_during_a_call_is_blocked_from_the_second_call() {
  need_claude
  svc_stdio
  outage_session die
  assert_eq "$(entry_field svc lastFailureCode)" transport
  assert_contains "$(entry_field svc lastError)" 'Connection closed'
  assert_eq "$(calls_seen)" "one"
  assert_second_blocked
  wait_for_quiet
}

case_http_server_refusing_connections_is_blocked_from_the_second_call() {
  need_claude
  svc_http
  outage_session down
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  assert_contains "$(entry_field svc lastError)" 'ECONNREFUSED'
  assert_second_blocked
  wait_for_quiet
}

# http_status_case CUE CODE: the server answers every POST with CUE's status; the probe after the failed call
# learns the status Claude Code's text leaves out.
http_status_case() {
  need_claude
  svc_http
  outage_session "$1"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" "$2"
  assert_second_blocked
  wait_for_quiet
}

case_http_503_with_empty_body_is_blocked_from_the_second_call() { http_status_case "status 503 empty" 503; }
case_http_503_with_plain_body_is_blocked_from_the_second_call() { http_status_case "status 503 plain" 503; }
case_http_503_with_json_body_is_blocked_from_the_second_call() { http_status_case "status 503 json" 503; }
case_http_403_is_blocked_from_the_second_call() { http_status_case "status 403 json" 403; }

case_http_429_keeps_the_servers_retry_after() {
  http_status_case "status 429 json 40" 429
  local checked retry
  checked=$(entry_field svc checkedAt)
  retry=$(entry_field svc nextRetryAt)
  [ $((retry - checked)) -ge 40000 ] || fail "Retry-After 40 not honoured: retry in $((retry - checked)) ms"
  assert_contains "$(tool_results | sed -n '$p')" 'Do other work meanwhile and retry after that'
}

case_expired_oauth_token_blocks_and_tells_the_model_to_ask_for_mcp() {
  http_status_case "status 401 oauth" 401
  # 2.1.197 gives the OAuth description alone, so the server is asked; 2.1.332's text has the 401 in it.
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"].get("probe", {}).get("kind", "not asked")')" \
    "$([ "${MCPHEALTH_REAL_CLAUDE:-}" = newest ] && echo "not asked" || echo needs-auth)"
  assert_contains "$(tool_results | sed -n '$p')" 'Ask the user to run /mcp'
}

case_http_401_without_oauth_body_is_blocked_from_the_second_call() { http_status_case "status 401 empty" 401; }

# one_failure_session CUE: the first call fails on CUE, the second finds the server answering again.
one_failure_session() {
  model_script "{\"turns\":[$(cue_turn "$1" "$(echo_call one)"),$(cue_turn ok "$(echo_call two)")]}"
  start_model
  mcph install
  assert_eq "$RC" 0 "install"
  claude_session
}

# A tool's own error may quote any words (an upstream API's, an issue body's): the server is asked, it answers, and
# the next call reaches it. The real client's text for an isError result is the tool's text, nothing more. (Two in a
# row are an upstream outage: case_an_upstream_outage_reaches_the_server_at_most_twice.)
case_upstream_rate_limit_in_a_tools_error_does_not_take_the_server_down() {
  need_claude
  svc_stdio
  one_failure_session "iserror upstream API answered 429 Too Many Requests"
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"].get("svc", {}).get("status")')" unhealthy
  assert_contains "$(calls_seen)" "two" "a server that answers was blocked for its tool's words"

  wait_for_quiet
}

case_a_host_the_input_named_is_not_the_servers_fault() {
  need_claude
  svc_stdio
  # The fetch of a dead host fails; the next call (the input fixed) must reach the server.
  model_script "{\"turns\":[$(cue_turn "iserror getaddrinfo ENOTFOUND example.invalid" "$(echo_call http://example.invalid/x)"),$(cue_turn ok "$(echo_call two)")]}"
  start_model
  mcph install
  claude_session
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" unhealthy
  assert_contains "$(calls_seen)" "two" "a healthy server was blocked"
  wait_for_quiet
}

case_a_json_rpc_error_is_the_server_answering_and_marks_nothing() {
  need_claude
  svc_stdio
  outage_session "rpc-error fixture backend exploded"
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" unhealthy
  assert_contains "$(calls_seen)" "two"
  wait_for_quiet
}

case_a_json_rpc_error_saying_unavailable_does_not_take_the_server_down() {
  need_claude
  svc_stdio
  one_failure_session "rpc-error database temporarily unavailable"
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"].get("svc", {}).get("status")')" unhealthy
  assert_contains "$(calls_seen)" "two" "a server that answers was blocked for its tool's words"
  wait_for_quiet
}

# Claude Code 2.1.197 runs one turn's MCP calls one after another, hooks included: the first failure marks the
# server and the hook blocks the rest, so the model reads one retry time. (Failures that do overlap, as other
# clients send them, are tests/cli/test_hook_post.sh's parallel case.)
case_parallel_calls_in_one_turn_are_one_failure() {
  need_claude
  svc_stdio
  model_script "{\"turns\":[$(cue_turn die "$(echo_call a)" "$(echo_call b)" "$(echo_call c)"),[$(echo_call two)]]}"
  start_model
  mcph install
  claude_session
  assert_eq "$(entry_field svc failureCount)" 1 "three parallel failures of one outage"
  local results
  results=$(tool_results)
  assert_not_contains "$results" "60 seconds"
  assert_not_contains "$results" "2 minutes"
  assert_second_blocked
  wait_for_quiet
}

case_recovers_after_the_backoff() {
  need_claude
  svc_http
  export ECC_MCP_HEALTH_BACKOFF_MS=1000
  model_script "{\"turns\":[$(cue_turn "status 503 empty" "$(echo_call one)"),[$(echo_call two)],{\"write\":[\"$T/cue\",\"ok\"],\"pause_ms\":1500,\"calls\":[$(echo_call three)]}]}"
  start_model
  mcph install
  claude_session
  assert_eq "$(calls_seen)" "three" "only the call after the backoff reaches the server"
  assert_eq "$(entry_field svc status)" healthy
  assert_contains "$(tool_results | sed -n '$p')" "echo: three"
  wait_for_quiet
}

case_session_start_names_a_server_known_down() {
  need_claude
  svc_http
  outage_session "status 503 empty"
  # A second session: the server is still down; the model hears so before its first turn.
  : > "$T/model.log"
  model_script '{"turns":[]}'
  claude_session
  assert_contains "$(first_request)" 'MCP servers not available at the start of this session: \"svc\" is down'
  wait_for_quiet
}

case_exit_code_mode_shows_the_model_our_line_and_no_trace() {
  need_claude
  svc_stdio
  model_script "{\"turns\":[$(cue_turn die "$(echo_call one)"),[$(echo_call two)]]}"
  start_model
  mcph install
  "$PY" - "$HOME/.claude/settings.json" "$MCPHEALTH_BIN" <<'PYEOF'
import json, sys
path, binary = sys.argv[1], sys.argv[2]
d = json.load(open(path))
for groups in d["hooks"].values():
    for g in groups:
        for h in g["hooks"]:
            h["command"] = binary + " -v hook --output exit-code"
json.dump(d, open(path, "w"))
PYEOF
  claude_session
  assert_not_contains "$(calls_seen)" "two"
  local last
  last=$(tool_results | sed -n '$p')
  assert_contains "$last" "[MCPHealthCheck] svc is marked unhealthy until"
  assert_not_contains "$last" "[mcphealth]" "the -v trace reached the model"
  wait_for_quiet
}

# `claude -p` starts a project server still pending approval: its calls prove it runs, so the hook checks it.
case_headless_checks_a_pending_project_server() {
  need_claude
  write_config "$HOME/.claude/settings.json" '{}'
  svc_stdio
  model_script "{\"turns\":[[$(echo_call one)]]}"
  start_model
  mcph install
  claude_session
  assert_eq "$(calls_seen)" "one"
  assert_eq "$(entry_field svc status)" healthy
  assert_eq "$(entry_field svc source)" "$PROJ/.mcp.json"
  # Interactive rules still hold for what no call proved: explain-config calls it pending.
  mcph explain-config --cwd "$PROJ"
  assert_contains "$OUT" "not approved"
  wait_for_quiet
}

# A pending project server shadows a user server of the same name under -p (Claude Code runs the project one):
# the hook probes the one that runs, so the project server's outage blocks from the second call.
case_headless_probes_the_project_server_that_shadows_the_user_one() {
  need_claude
  write_config "$HOME/.claude/settings.json" '{}'
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":{\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/user-cue\",\"--calls-file\",\"$T/user-calls\"]}}}"
  svc_stdio
  outage_session down
  assert_no_file "$T/user-calls"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc source)" "$PROJ/.mcp.json"
  assert_second_blocked
  wait_for_quiet
}

# Claude Code 2.1.332 names the definition each call goes to (mcp_server.source). The user's svc cannot start and a
# probe run has recorded it down; the project's svc, still pending approval, is the one `claude -p` runs: its calls
# go through, and its outage is the one that blocks.
case_newest_the_clients_source_decides_which_definition_is_judged() {
  need_claude_newest
  write_config "$HOME/.claude/settings.json" '{}'
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":{\"command\":\"/nonexistent/svc-server\"}}}"
  svc_stdio
  mcph probe --all
  assert_eq "$RC" 1 "the user's svc is down"
  model_script "{\"turns\":[[$(echo_call one)],$(cue_turn down "$(echo_call two)"),[$(echo_call three)]]}"
  start_model
  mcph install
  claude_session
  assert_eq "$(calls_seen)" "one" "the project's svc took the call before it went down"
  local results
  results=$(tool_results)
  assert_not_contains "$(sed -n '1p' <<<"$results")" "MCP server" "the first call was not blocked"
  assert_contains "$(sed -n '$p' <<<"$results")" 'The MCP server \"svc\" has been down' "the third call was blocked"
  assert_eq "$(entry_field svc source)" "$PROJ/.mcp.json" "the outage recorded is the project's svc's"
  wait_for_quiet
}

# svc_def CALLS_FILE: the session server as a stdio definition (JSON), its calls logged to CALLS_FILE.
svc_def() {
  printf '{"command":"%s","args":["%s","stdio","--cue-file","%s","--calls-file","%s"]}' "$PY" "$SESSION_SERVER" "$T/cue" "$1"
}

case_a_server_given_with_mcp_config_is_checked() {
  need_claude
  # Defined nowhere but on the command line, as a file relative to where claude starts.
  write_config "$PROJ/extra/servers.json" "{\"mcpServers\":{\"svc\":$(svc_def "$T/calls")}}"
  outage_session down --mcp-config extra/servers.json
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc source)" "$PROJ/extra/servers.json"
  assert_second_blocked
  wait_for_quiet
}

case_a_server_given_with_mcp_config_as_json_wins_over_the_user_one() {
  need_claude
  # The user's svc cannot start; the one given as JSON text on the command line is the one Claude Code runs.
  write_config "$HOME/.claude.json" '{"mcpServers":{"svc":{"command":"/nonexistent/svc-server"}}}'
  model_script "{\"turns\":[[$(echo_call one)],[$(echo_call two)]]}"
  start_model
  mcph install
  claude_session --mcp-config "{\"mcpServers\":{\"svc\":$(svc_def "$T/calls")}}"
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')" "both calls reached the server Claude Code runs"
  assert_not_contains "$(tool_results)" "MCP server" "no call was blocked"
  wait_for_quiet
}

case_strict_mcp_config_leaves_only_its_servers() {
  need_claude
  # A user `other` that cannot start is not run by Claude Code under --strict-mcp-config: nothing to check.
  write_config "$HOME/.claude.json" '{"mcpServers":{"other":{"command":"/nonexistent/other-server"}}}'
  write_config "$T/servers.json" "{\"mcpServers\":{\"svc\":$(svc_def "$T/calls")}}"
  outage_session down --mcp-config "$T/servers.json" --strict-mcp-config
  assert_eq "$(entry_field svc status)" unhealthy
  assert_second_blocked
  # The session's folder binds apart (its servers are another set), and there `other` is not one Claude Code runs:
  # no definition is bound to it (a name the agent does not start is not bound one by one).
  assert_eq "$(json_get "$(BINDINGS)" 'len([k for k, b in d.items() if "--mcp-config" in k and "svc" in b["names"]])')" 1
  assert_eq "$(json_get "$(BINDINGS)" '[b["names"].get("other", {}).get("definition") for k, b in d.items() if "--mcp-config" in k]')" '[null]'
  assert_not_contains "$(cat "$T/calls" 2>/dev/null)" other
  wait_for_quiet
}

# doctor, held against the real program: its version is read and within the range the README states, the hook
# install wrote is found and starts, and once a session ran, the hook is seen.
case_doctor_says_the_gate_is_on_for_the_real_claude() {
  need_claude
  svc_stdio
  model_script "{\"turns\":[[$(echo_call one)]]}"
  start_model
  mkdir -p "$T/bin"
  ln -s "$CLAUDE_BIN" "$T/bin/claude"
  mcph install
  claude_session
  PATH="$T/bin:$PATH" mcph doctor --agent claude-code --json
  assert_eq "$RC" 0 "doctor's exit"
  local version; version=$("$CLAUDE_BIN" --version | grep -oE '^[0-9]+\.[0-9]+\.[0-9]+')
  assert_eq "$(json_eval "$OUT" 'd["agents"][0]["version"]')" "$version"
  assert_eq "$(json_eval "$OUT" '[c["verdict"] for c in d["agents"][0]["checks"] if c["check"] == "version"][0]')" ok
  assert_eq "$(json_eval "$OUT" '[c["verdict"] for c in d["agents"][0]["checks"] if c["check"] == "seen"][0]')" ok
  assert_eq "$(json_eval "$OUT" 'd["agents"][0]["gated"]')" true
  wait_for_quiet
}

# A server that starts and dies on every call (Claude Code restarts it before each next call by itself), behind a
# reconnect command, as the seed article sets PM2 up: of five calls, at most two reach it; the second failure
# proves the loop, and the model reads that the server fails on calls. Before, all five reached it.
# five_calls_reach_at_most_two CUE WHAT: a session of five calls whose first starts CUE; at most two reach the server.
five_calls_reach_at_most_two() {
  model_script "{\"turns\":[$(cue_turn "$1" "$(echo_call one)"),[$(echo_call two)],[$(echo_call three)],[$(echo_call four)],[$(echo_call five)]]}"
  start_model
  mcph install
  assert_eq "$RC" 0 "install"
  claude_session
  local reached
  reached=$(calls_seen | wc -l)
  echo "calls that reached the $2 server: $reached of 5" >&2
  [ "$reached" -le 2 ] || fail "$reached of 5 calls reached a $2 server"
}

case_a_crash_loop_behind_a_reconnect_reaches_the_server_at_most_twice() {
  need_claude
  svc_stdio
  export ECC_MCP_RECONNECT_COMMAND="echo noop"
  five_calls_reach_at_most_two die crash-looping
  assert_contains "$(tool_results | sed -n '$p')" 'fails on calls' "the model's text for the blocked call"
  assert_eq "$(entry_field svc status)" unhealthy
  wait_for_quiet
}

# A stdio server whose upstream is down (issue 52 item 4): every call's result is an isError with an upstream 503
# in the tool's own words, its handshake passes. One such text proves nothing; the second in a row blocks it as an
# upstream outage, so of five calls at most two reach it, and the model reads fixed words, never the tool's.
case_an_upstream_outage_reaches_the_server_at_most_twice() {
  need_claude
  svc_stdio
  five_calls_reach_at_most_two "iserror upstream API answered 503 Service Unavailable (incident https://status.example.test/42)" \
    "upstream-down"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc upstream)" true
  assert_eq "$(entry_field svc lastError)" "its last 2 calls failed with an upstream error (HTTP 503)"
  assert_contains "$(tool_results | sed -n '$p')" 'what it depends on fails' "the model's text for the blocked call"
  wait_for_quiet
}

# With a check the user declares (issue 52 item 1): the database behind a healthy server goes down mid-session
# (the server's cue, which the check reads as pg_isready would read the database), and every call fails; the first
# failed call is confirmed by the check at once, and no other reaches the server.
case_a_backend_down_behind_a_healthy_server_fails_one_call_with_a_declared_check() {
  need_claude
  svc_stdio
  local check="[\"/bin/sh\",\"-c\",\"! grep -qs ^iserror \\\"\$0\\\"\",\"$T/cue\"]"
  write_config "$HOME/.config/mcphealth/policy.json" "{\"servers\":{\"svc\":{\"check\":{\"command\":$check}}}}"
  model_script "{\"turns\":[[$(echo_call one)],$(cue_turn "iserror connect ECONNREFUSED 127.0.0.1:5432" "$(echo_call two)"),[$(echo_call three)],[$(echo_call four)]]}"
  start_model
  mcph install
  claude_session
  assert_eq "$(calls_seen | tr '\n' ' ')" "one two " "the call that failed, and none after it, reached the server"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_contains "$(entry_field svc lastError)" "its check (command /bin/sh -c"
  assert_contains "$(tool_results | sed -n '$p')" 'The MCP server \"svc\" has been down' "the model's text for the blocked call"
  wait_for_quiet
}

# A project's settings can set the environment of the hooks the client runs (Claude Code passes their `env` on:
# this case sees the policy it names read by the hook, through its TTL): a check from a policy they name never runs.
case_a_policy_the_projects_settings_name_is_read_but_its_check_never_runs() {
  need_claude
  svc_stdio
  write_config "$T/elsewhere/policy.json" "{\"servers\":{\"svc\":{\"ttlMs\":77777,\"check\":{\"command\":[\"touch\",\"$T/pwned\"]}}}}"
  write_config "$PROJ/.claude/settings.json" "{\"env\":{\"MCPHEALTH_POLICY\":\"$T/elsewhere/policy.json\"}}"
  model_script "{\"turns\":[[$(echo_call one)]]}"
  start_model
  mcph install
  claude_session
  assert_eq "$(calls_seen)" "one"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["expiresAt"] - d["servers"]["svc"]["checkedAt"]')" 77777 \
    "the hook read the policy the project's settings named"
  assert_no_file "$T/pwned"
  wait_for_quiet
}

# One result that quotes third-party words ("Connection closed", "503") between calls that succeed blocks nothing.
case_one_tool_result_quoting_outage_words_blocks_nothing() {
  need_claude
  svc_stdio
  model_script "{\"turns\":[$(cue_turn "iserror the issue says: Connection closed by peer, then 503 from the proxy" "$(echo_call one)"),$(cue_turn ok "$(echo_call two)"),$(cue_turn "iserror quoted: 503 Service Unavailable" "$(echo_call three)"),$(cue_turn ok "$(echo_call four)")]}"
  start_model
  mcph install
  claude_session
  assert_eq "$(calls_seen | wc -l)" 4 "a call was blocked for a tool's quoted words"
  assert_not_contains "$(entry_field svc status)" unhealthy
  wait_for_quiet
}

case_a_call_slower_than_the_client_waits_for_is_a_timeout_not_a_lost_connection() {
  # A server that answers every call in 4 s under a client that waits 1.5 s (MCP_TOOL_TIMEOUT): alive (its
  # handshake passes), but every call fails. Claude Code says `MCP server "svc" tool "echo" timed out after 1s`
  # (2.1.197 and 2.1.332): its own kind, one failed call, then blocked.
  need_claude
  svc_stdio
  export MCP_TOOL_TIMEOUT=1500
  outage_session "slow 4000"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" timeout
  assert_contains "$(entry_field svc lastError)" 'timed out after'
  assert_contains "$(tool_results | sed -n '$p')" 'The MCP server \"svc\" has been down' "the second call blocked"
  assert_eq "$(calls_seen)" "one" "the second call never reached the slow server"
  wait_for_quiet
}


# A server that refused Claude Code's token waits for Claude Code's credentials file (docs/hook.md): this holds the
# gate's reading of that file to the real program. `claude mcp login svc` (it needs a terminal: tmux) against our
# OAuth fixture, whose authorization URL redirects at once (followed here as a browser would), writes the tokens to
# the file the gate watches, and the next call goes through; when the server stops taking the token, Claude Code's
# own refresh writes the file again.
case_a_login_in_claude_code_is_seen_by_the_gate_at_once() {
  need_claude
  local port_file="$T/oauth.port" store="$HOME/.claude/.credentials.json" url screen i
  "$PY" "$MCPHEALTH_FIXTURES/oauth_server.py" --port-file "$port_file" --log-file "$T/oauth.log" >/dev/null 2>&1 &
  FIXTURE_PIDS+=($!)
  for i in $(seq 1 200); do [ -s "$port_file" ] && break; sleep 0.02; done
  [ -s "$port_file" ] || fail "the OAuth fixture did not start"
  url="http://127.0.0.1:$(cat "$port_file")/mcp"
  write_config "$HOME/.claude.json" "{\"hasCompletedOnboarding\":true,\"projects\":{\"$PROJ\":{\"hasTrustDialogAccepted\":true}}}"
  "$CLAUDE_BIN" mcp add --transport http -s user svc "$url" >/dev/null 2>&1 || fail "claude mcp add"
  # The call failed for the token (Claude Code 2.1.332's words): blocked, waiting on that file.
  hook "$(post_failure_payload svc 'Dynamic Client Registration rejected (HTTP 401): invalid_token')"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["credentialFiles"][0]')" "$store"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  # The user logs in, in Claude Code's own terminal flow.
  tm_session login 250 50 \
    "env HOME='$HOME' DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 '$CLAUDE_BIN' mcp login svc --no-browser; sleep 60"
  await_screen login "Or paste the redirect URL" 30
  local authorize
  authorize=$({ tm capture-pane -p -J -t login | grep -o 'http://127.0.0.1:[0-9]*/authorize[^ ]*' || true; } | head -1)
  [ -n "$authorize" ] || fail "claude mcp login printed no authorization URL: $screen"
  "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=20).read()' "$authorize" ||
    fail "following the authorization URL to Claude Code's callback"
  await_screen login "Authenticated" 30
  assert_contains "$screen" 'Authenticated with "svc"'
  assert_eq "$(json_get "$store" '",".join(v["serverName"] for v in d["mcpOAuth"].values())')" svc
  hook "$(pre_payload svc)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"' "the call after the login"
  assert_contains "$ERR" "svc refused Claude Code's token, and Claude Code's credentials changed since"
  # The server stops taking the token: Claude Code refreshes it by itself, and rewrites the same file.
  local before
  before=$(stat -c %Y.%y "$store")
  "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b"", method="POST")).read()' \
    "${url%/mcp}/revoke-all"
  sleep 1.1 # a new mtime, to the second at least
  env DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 timeout 60 "$CLAUDE_BIN" mcp list >"$T/list" 2>&1
  assert_contains "$(cat "$T/oauth.log")" "POST /token refresh_token"
  [ "$(stat -c %Y.%y "$store")" != "$before" ] || fail "the refresh did not rewrite $store"
}

main "$@"
