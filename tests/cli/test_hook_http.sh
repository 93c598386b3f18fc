#!/usr/bin/env bash
# PreToolUse on HTTP servers: status classes, Retry-After, headers, proxies, failures to connect.
source "$(dirname "$0")/lib.sh"

# http_config URL [HEADERS JSON]: one HTTP server called "remote".
http_config() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"remote\":{\"type\":\"http\",\"url\":\"$1\"${2:+,\"headers\":$2}}}}"
}
entry() { json_get "$(STATE)" "d[\"servers\"][\"remote\"]$1"; }

case_reachable_statuses_are_healthy() {
  local status
  for status in 200 204 302 400 405 406; do
    start_http --status "$status"
    http_config "http://127.0.0.1:$HTTP_PORT/mcp"
    forget_state
    hook "$(pre_payload remote)"
    assert_eq "$RC" 0
    assert_eq "$OUT" "" "status $status allows"
    assert_eq "$(entry '["status"]')" "healthy" "status $status"
    assert_eq "$(entry '["probe"]["httpStatus"]')" "$status"
  done
}

case_liveness_depth_probes_with_a_plain_get() {
  export MCPHEALTH_PROBE_DEPTH=liveness
  start_http --status 406 --log-file "$T/requests" --expect-header "X-Key: k"
  http_config "http://127.0.0.1:$HTTP_PORT/mcp" '{"X-Key":"k"}'
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["status"]')" "healthy"
  assert_eq "$(entry '["probe"]["kind"]')" "reachable"
  assert_eq "$("$PY" -c 'import json,sys; print([json.loads(l)["method"] for l in open(sys.argv[1])])' "$T/requests")" "['GET']"
  start_http --status 503 --retry-after 300
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  forget_state
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (HTTP 503)"
  assert_eq "$(entry '["nextRetryAt"] - d["servers"]["remote"]["checkedAt"]')" "300000"
}

case_auth_challenge_is_healthy_needs_auth() {
  start_http --status 401 --www-authenticate 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  assert_eq "$OUT" ""
  assert_eq "$(entry '["status"]')" "healthy"
  assert_eq "$(entry '["probe"]["httpStatus"]')" "401"
  assert_eq "$(entry '["probe"]["kind"]')" "needs-auth"
}

# A server that refused Claude Code's token (its 2.1.332 framing) waits for Claude Code's credentials file to change:
# a probe carries no token, and meets "asks for a token" whether the user logged in again or not. A login or a
# token refresh rewrites that file (checked in the real 2.1.197 and 2.1.332), and the next call tries the new token.
# Before, each retry's probe let a call through to fail again, and a login was seen only at the retry after it.
case_a_refused_token_waits_for_the_agents_credentials_to_change() {
  start_http --status 401 --www-authenticate 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  local store="$HOME/.claude/.credentials.json"
  mkdir -p "$HOME/.claude"
  printf '{}\n' > "$store"
  touch -d '-1 hour' "$store"
  hook "$(post_failure_payload remote 'Dynamic Client Registration rejected (HTTP 401): invalid_token')"
  assert_eq "$(entry '["status"]')" "unhealthy"
  assert_eq "$(entry '["credentialFiles"][0]')" "$store"
  hook "$(pre_payload remote)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  age_state 31000 # its retry is due: the probe meets a request for a token, as always
  hook "$(pre_payload remote)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$ERR" "the agent's credentials have not changed since"
  assert_eq "$(entry '["status"]')" "unhealthy"
  local said
  said=$(entry '["lastError"]')
  age_state 61000 # the next retry: held the same way, in the same words (not nested in the last ones)
  hook "$(pre_payload remote)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_eq "$(entry '["lastError"]')" "$said"
  touch "$store" # the user ran /mcp (or claude mcp login remote)
  hook "$(pre_payload remote)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$ERR" "remote refused Claude Code's token, and Claude Code's credentials changed since"
}

# A tool's own text that says 401 (its API's) is no refusal of the agent's token (issue 52 item 4): the wait for the
# agent's credentials starts only from the client's own 401 framing, and a probe's "asks for a token" is what a
# probe always meets there. The server is not marked, and waits for nothing.
case_a_tools_401_does_not_start_the_wait_for_the_agents_credentials() {
  start_http --status 401 --www-authenticate 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  mkdir -p "$HOME/.claude"
  printf '{}\n' > "$HOME/.claude/.credentials.json"
  hook "$(post_failure_payload remote 'GitHub API: 401 Unauthorized (bad credentials for the repository)')"
  assert_not_contains "$(entry '["status"]')" "unhealthy"
  assert_eq "$(json_get "$(STATE_ALL)" 'd.get("servers", {}).get("remote", {}).get("credentialFiles")')" null
  hook "$(pre_payload remote)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"'
}

# A Bearer challenge with no OAuth metadata anywhere (every path answers 401): no client can log in (Claude Code
# 2.1.197 and 2.1.332 say "Failed to connect"), so it is down, and the fix is the definition's own header.
case_an_auth_challenge_with_nowhere_to_log_in_is_down_not_needs_auth() {
  start_http --status 401 --www-authenticate 'Bearer realm="x"'
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_eq "$(entry '["status"]')" "unhealthy"
  assert_contains "$(entry '["lastError"]')" "set headers.Authorization"
  assert_not_contains "$OUT" "/mcp"
  mcph status remote
  assert_not_contains "$OUT" "needs auth"
}

case_server_errors_are_unhealthy() {
  start_http --status 500
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (HTTP 500)"
  assert_eq "$(entry '["lastFailureCode"]')" "500" # its row (server error) says what follows: a reconnect
  start_http --status 404
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  forget_state
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (HTTP 404)"
}

case_503_carries_its_code_and_reconnects_at_once() {
  start_http --status 503
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/reconnected; exit 1"
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (HTTP 503)"
  assert_eq "$(entry '["lastFailureCode"]')" "503"
  assert_file_exists "$T/reconnected"
}

case_retry_after_seconds_sets_next_retry() {
  start_http --status 429 --retry-after 900
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/reconnected"
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["lastFailureCode"]')" "429"
  assert_eq "$(entry '["nextRetryAt"] - d["servers"]["remote"]["checkedAt"]')" "900000"
  assert_no_file "$T/reconnected"
}

case_retry_after_date_sets_next_retry() {
  local date; date=$("$PY" -c 'import email.utils,time; print(email.utils.formatdate(time.time()+1200, usegmt=True))')
  start_http --status 503 --retry-after "$date"
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  local delay; delay=$(entry '["nextRetryAt"] - d["servers"]["remote"]["checkedAt"]')
  [ "$delay" -ge 1195000 ] && [ "$delay" -le 1201000 ] || fail "Retry-After date gave a delay of $delay ms"
}

case_retry_after_is_capped_at_an_hour() {
  start_http --status 503 --retry-after 86400
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["nextRetryAt"] - d["servers"]["remote"]["checkedAt"]')" "3600000"
}

case_connection_refused_is_a_transport_failure() {
  local port; port=$(free_port)
  http_config "http://127.0.0.1:$port/mcp"
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (connect ECONNREFUSED 127.0.0.1:$port)"
  assert_eq "$(entry '["lastFailureCode"]')" "transport"
}

# A server that takes the connection and answers later than the probe waits is slow, not down: the rule a stdio
# server that started and is silent meets (alive, silent: let through). Before, it was blocked as "request timed
# out" while the same delay over stdio was allowed.
case_accept_then_hang_is_slow_not_down_and_the_call_goes_through() {
  start_http --behaviour hang
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  assert_eq "$RC" 0
  assert_not_contains "$OUT" deny
  assert_eq "$(entry_field remote status)" healthy
  mcph status remote
  assert_contains "$OUT" "alive"
}

case_immediate_close_is_unhealthy() {
  start_http --behaviour close
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (socket hang up"
}

case_unknown_host_is_enotfound() {
  http_config "http://no-such-host.invalid/mcp"
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (getaddrinfo ENOTFOUND no-such-host.invalid)"
}

case_untrusted_certificate_is_a_tls_failure() {
  openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
    -keyout "$T/key.pem" -out "$T/cert.pem" >/dev/null 2>&1 || fail "openssl could not make a test certificate"
  start_http --tls-cert "$T/cert.pem" --tls-key "$T/key.pem"
  http_config "https://localhost:$HTTP_PORT/mcp"
  hook "$(pre_payload remote)"
  assert_contains "$ERR" "remote is unavailable (TLS: certificate verify failed)"
  assert_eq "$(entry '["lastFailureCode"]')" "transport"
}

case_configured_headers_are_sent_expanded() {
  export MCP_TOKEN=s3cret
  start_http --expect-header "Authorization: Bearer s3cret" --log-file "$T/requests"
  http_config "http://127.0.0.1:$HTTP_PORT/mcp" '{"Authorization":"Bearer ${MCP_TOKEN}","X-Team":"${TEAM:-core}"}'
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["status"]')" "healthy"
  assert_eq "$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["headers"]["X-Team"])' "$T/requests")" "core"
}

case_streamable_and_sse_types_and_bare_url_are_probed() {
  start_http --status 406
  for def in "{\"type\":\"streamable-http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}" \
             "{\"type\":\"sse\",\"url\":\"http://127.0.0.1:$HTTP_PORT/sse\"}" \
             "{\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"; do
    write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"remote\":$def}}"
    forget_state
    hook "$(pre_payload remote)"
    assert_eq "$(entry '["status"]')" "healthy" "$def"
  done
}

case_loopback_never_goes_through_a_proxy() {
  start_http --log-file "$T/proxy-log"
  local proxy_port=$HTTP_PORT
  start_http --status 200
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  export http_proxy="http://127.0.0.1:$proxy_port" HTTP_PROXY="http://127.0.0.1:$proxy_port" https_proxy="http://127.0.0.1:$proxy_port"
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["status"]')" "healthy"
  assert_no_file "$T/proxy-log"
  http_config "http://localhost:$HTTP_PORT/mcp"
  forget_state
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["status"]')" "healthy"
  assert_no_file "$T/proxy-log"
}

case_dead_proxy_does_not_break_loopback_probes() {
  start_http --status 200
  http_config "http://127.0.0.1:$HTTP_PORT/mcp"
  export http_proxy="http://127.0.0.1:$(free_port)" no_proxy="example.com"
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["status"]')" "healthy"
}

case_other_hosts_do_go_through_the_proxy() {
  start_http --status 200 --log-file "$T/proxy-log"
  export http_proxy="http://127.0.0.1:$HTTP_PORT"
  http_config "http://mcp.example.test/mcp"
  hook "$(pre_payload remote)"
  assert_eq "$(entry '["status"]')" "healthy"
  assert_contains "$(cat "$T/proxy-log")" '"target": "http://mcp.example.test/mcp"'
}

case_cache_hit_does_not_load_libcurl() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"remote\":{\"status\":\"healthy\",\"checkedAt\":$now,\"expiresAt\":$((now + 600000))}}}"
  http_config "http://127.0.0.1:1/mcp"
  set +e
  pre_payload remote | LD_DEBUG=libs "$MCPHEALTH_BIN" hook >/dev/null 2>"$T/ld"
  set -e
  assert_contains "$(cat "$T/ld")" "libc.so" "LD_DEBUG output is there"
  assert_not_contains "$(cat "$T/ld")" "libcurl" "cache hit must not load libcurl"
  printf '{"hook_event_name":"PreToolUse","tool_name":"Read"}' | LD_DEBUG=libs "$MCPHEALTH_BIN" hook >/dev/null 2>"$T/ld2"
  assert_not_contains "$(cat "$T/ld2")" "libcurl" "non-MCP call must not load libcurl"
  # ...while an HTTP probe does, so the check above can fail.
  forget_state
  pre_payload remote | LD_DEBUG=libs "$MCPHEALTH_BIN" hook >/dev/null 2>"$T/ld3" || true
  assert_contains "$(cat "$T/ld3")" "libcurl" "an HTTP probe loads libcurl"
}

# A URL's credentials never leave: every failure path of an HTTP server whose URL carries a password (a port out of
# range, an unset variable in it, a refused connection, a 503 that quotes the URL), and every output that can carry
# its reason: the model's text, the hook's stderr, the state file, status, probe and explain-config, both ways.
case_a_urls_password_appears_in_no_output() {
  local secret=S3CR3Tpw closed all=""
  start_http --status 503
  closed=$(free_port)
  unset API_PORT
  local urls=("http://deploy:$secret@127.0.0.1:99999/mcp" "http://deploy:$secret@127.0.0.1:\${API_PORT}/mcp"
    "http://deploy:$secret@127.0.0.1:$closed/mcp" "http://deploy:$secret@127.0.0.1:$HTTP_PORT/mcp?token=$secret"
    "htp//deploy:$secret@127.0.0.1:$closed/mcp")
  local url
  for url in "${urls[@]}"; do
    forget_state
    http_config "$url"
    hook "$(pre_payload remote)"
    all+="$OUT$ERR"
    hook "$(pre_payload remote)" --output exit-code
    all+="$OUT$ERR"
    hook "{\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"mcp__remote__x\",\"cwd\":\"$PROJ\",\"error\":\"connect ECONNREFUSED $url\"}"
    all+="$OUT$ERR$(cat "$(STATE)" 2>/dev/null)"
    for args in "status" "status --json" "probe remote" "probe --all --json" "explain-config" "explain-config --json" "policy remote"; do
      # shellcheck disable=SC2086
      mcph $args
      all+="$OUT$ERR"
    done
    all+="$(cat "$(STATE)" 2>/dev/null)"
  done
  assert_contains "$all" "***@127.0.0.1" "the reasons name the host"
  grep -n -- "$secret" <<<"$all" | head -5 >&2 || true
  assert_not_contains "$all" "$secret"
}

main "$@"
