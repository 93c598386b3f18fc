#!/usr/bin/env bash
# `mcphealth probe`: MCP handshakes against our fixture servers, exit codes, output, recording.
# Needs: GNU stat
source "$(dirname "$0")/lib.sh"

# config NAME=DEF...: writes $PROJ/.mcp.json with the given servers.
config() {
  local body="" pair
  for pair in "$@"; do body+="${body:+,}\"${pair%%=*}\":${pair#*=}"; done
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{$body}}"
}
probe_json() { mcph probe --json "$@"; }
field() { json_eval "$OUT" "d[\"servers\"][${2:-0}]$1"; }

case_stdio_handshake_reports_server_details() {
  config "svc=$(stdio_def healthy '"--tools","7"')"
  probe_json svc
  assert_eq "$RC" 0
  assert_eq "$(field '["status"]')" healthy
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(field '["tools"]')" 7
  assert_eq "$(field '["protocolVersion"]')" 2025-11-25
  assert_eq "$(field '["serverName"]')" fixture-stdio
  assert_eq "$(field '["serverVersion"]')" 1.0.0
  assert_eq "$(field '["transport"]')" stdio
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["probe"]["tools"]')" 7
}

# What a start costs in CPU is kept with the verdict (the probe's cpuMs): a down server's looks are spaced by it,
# at most 2% of a core while calls ask for it (issue 52 item 2). A server that spends 0.4 s of CPU and fails.
case_a_starts_cpu_is_kept_with_the_verdict() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"dear\":$(stdio_def burn '"--delay-ms","400"'),\"cheap\":$(stdio_def crash)}}"
  mcph probe --all
  assert_eq "$RC" 1 "$OUT"
  local dear cheap
  dear=$(json_get "$(STATE)" 'd["servers"]["dear"]["probe"].get("cpuMs")')
  cheap=$(json_get "$(STATE)" 'd["servers"]["cheap"]["probe"].get("cpuMs")')
  echo "a dear start: $dear ms of CPU; a crash at once: $cheap ms" >&2
  if [ "${MCPHEALTH_PLATFORM:-linux}" = portable ]; then
    assert_eq "$dear" null "the portable build knows no start's CPU (POSIX has no wait4): its looks keep the base spacing"
    return
  fi
  [ "$dear" -ge 300 ] || fail "the dear start's CPU was recorded as $dear ms"
  [ "$cheap" -lt 300 ] || fail "a crash at once cost $cheap ms"
}

case_slow_answer_within_timeout_is_answered() {
  config "svc=$(stdio_def slow '"--delay-ms","150"')"
  probe_json svc --timeout-ms 3000
  assert_eq "$(field '["kind"]')" answered
}

case_silent_process_is_alive_silent_under_auto_only() {
  config "svc=$(stdio_def hang)"
  probe_json svc --timeout-ms 500
  assert_eq "$RC" 0 "alive-silent is not unhealthy"
  assert_eq "$(field '["status"]')" alive-silent
  probe_json svc --timeout-ms 500 --depth handshake
  assert_eq "$RC" 1
  assert_eq "$(field '["kind"]')" timeout
  assert_contains "$(field '["reason"]')" "no MCP answer within 500 ms"
  probe_json svc --timeout-ms 300 --depth liveness
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" alive-silent
}

case_silent_at_the_clients_own_start_up_timeout_is_down_with_its_stderr() {
  config "svc=$(stdio_def hang '"--message","Redis connect ECONNREFUSED 127.0.0.1:6379"')"
  # Shorter than the client's start-up timeout: alive, silent, and what it said is the note.
  MCP_TIMEOUT=900 probe_json svc --timeout-ms 500
  assert_eq "$RC" 0
  assert_eq "$(field '["status"]')" alive-silent
  assert_contains "$(field '["reason"]')" "ECONNREFUSED 127.0.0.1:6379"
  # As long as the client's: Claude Code gives up on it, so it is down, and says why.
  MCP_TIMEOUT=900 probe_json svc --timeout-ms 900
  assert_eq "$RC" 1
  assert_eq "$(field '["kind"]')" timeout
  assert_contains "$(field '["reason"]')" "start-up timeout"
  assert_contains "$(field '["reason"]')" "ECONNREFUSED 127.0.0.1:6379"
  assert_contains "$(field '["hint"]')" "refuses connections"
}

case_a_server_starved_of_cpu_is_never_called_alive() {
  sees_processes "count a group's CPU"
  # 32 servers that use 0.3 s of CPU and then exit, all at once: by a 1 s deadline most have not had the CPU to
  # exit, and such silence is the machine's, not the server's: none may be counted alive.
  local pairs=() i
  for i in $(seq 1 32); do pairs+=("b$i=$(stdio_def burn '"--delay-ms","300"')"); done
  config "${pairs[@]}"
  probe_json --all --parallel 0 --timeout-ms 1000
  printf '%s' "$OUT" > "$T/probe.json"
  local kinds
  kinds=$("$PY" -c 'import json,sys; print(" ".join(sorted(set(s["kind"] for s in json.load(open(sys.argv[1]))["servers"]))))' "$T/probe.json")
  assert_not_contains "$kinds" "alive-silent" "a starved server counted alive"
  assert_contains "$kinds" "local-fault"
  assert_eq "$RC" 3
  # Two at a time on two cores, each has the CPU it needs: all of them are seen to exit.
  probe_json --all --parallel 2 --timeout-ms 5000
  assert_eq "$RC" 1
  kinds=$(json_eval "$OUT" '" ".join(sorted(set(s["kind"] for s in d["servers"])))')
  assert_eq "$kinds" "exited"
}

# A server whose own processes burn the CPU (four of them, silent) is not starved by the machine: it is busy itself,
# and its silence is its verdict. (It was called a local fault: nothing recorded, each hook call waited, then allowed.)
case_a_server_busy_in_a_loop_of_its_own_is_not_the_machines_fault() {
  config "spin=$(stdio_def spin)"
  probe_json spin --timeout-ms 2000
  assert_eq "$(field '["kind"]')" "alive-silent"
  # Recorded: the next hook call decides from the cache instead of probing again.
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["spin"]["probe"]["kind"]')" alive-silent
}

case_crash_in_handshake_is_down_with_stderr() {
  config "svc=$(stdio_def crash '"--message","ANTHROPIC_API_KEY is not set"')"
  probe_json svc
  assert_eq "$RC" 1
  assert_eq "$(field '["status"]')" unhealthy
  assert_eq "$(field '["kind"]')" exited
  assert_eq "$(field '["reason"]')" "ANTHROPIC_API_KEY is not set"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["status"]')" unhealthy
}

case_jsonrpc_error_is_a_protocol_error() {
  config "svc=$(stdio_def rpc-error)"
  probe_json svc
  assert_eq "$RC" 1
  assert_eq "$(field '["kind"]')" protocol-error
  assert_eq "$(field '["reason"]')" "initialize failed: database unavailable (-32603)"
}

case_notifications_and_noise_are_skipped() {
  config "svc=$(stdio_def chatty)"
  probe_json svc
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(field '["tools"]')" 3
}

case_server_ping_is_answered_and_other_requests_refused() {
  config "svc=$(stdio_def ping-first)"
  probe_json svc --timeout-ms 3000
  assert_eq "$(field '["kind"]')" answered "the fixture exits unless ping got {} and roots/list got -32601"
}

case_slow_starting_modern_server_is_still_modern() {
  # server/discover gets a third of the timeout; a modern server that starts later answers it late, then refuses
  # initialize. The late answer is the verdict (this read "initialize failed: Method not found" before).
  config "svc=$(stdio_def modern '"--start-delay-ms","700"')"
  probe_json svc --timeout-ms 1800
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(field '["protocolVersion"]')" 2026-07-28
  assert_eq "$(field '["serverName"]')" fixture-modern
}

case_modern_server_is_discovered() {
  config "svc=$(stdio_def modern '"--tools","2"')"
  probe_json svc
  assert_eq "$(field '["protocolVersion"]')" 2026-07-28
  assert_eq "$(field '["serverName"]')" fixture-modern
  assert_eq "$(field '["tools"]')" 2
  probe_json svc --protocol modern
  assert_eq "$(field '["protocolVersion"]')" 2026-07-28
  probe_json svc --protocol legacy
  assert_eq "$RC" 1
  assert_eq "$(field '["kind"]')" protocol-error
}

case_legacy_server_with_modern_protocol_fails_and_auto_falls_back() {
  config "svc=$(stdio_def healthy)"
  probe_json svc --protocol modern
  assert_eq "$RC" 1
  probe_json svc --protocol auto
  assert_eq "$RC" 0
  assert_eq "$(field '["protocolVersion"]')" 2025-11-25
}

case_streamable_http_json_and_sse_replies() {
  local replies
  for replies in json sse; do
    start_mcp_http --replies "$replies" --tools 5
    config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
    probe_json web
    assert_eq "$RC" 0 "$replies replies"
    assert_eq "$(field '["kind"]')" answered "$replies replies"
    assert_eq "$(field '["tools"]')" 5
    assert_eq "$(field '["serverName"]')" fixture-http
  done
}

case_streamable_http_session_and_version_headers() {
  start_mcp_http --require-session --log-file "$T/log"
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\",\"headers\":{\"X-Api-Key\":\"k1\"}}"
  probe_json web
  assert_eq "$(field '["kind"]')" answered
  "$PY" - "$T/log" <<'PYEOF' || fail "headers not as MCP requires"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
init = [r for r in reqs if r["rpc"] == "initialize"][0]
assert init["headers"]["Accept"] == "application/json, text/event-stream", init
assert init["headers"]["Content-Type"] == "application/json"
assert "Mcp-Session-Id" not in init["headers"]
later = [r for r in reqs if r["rpc"] in ("notifications/initialized", "tools/list")]
assert len(later) == 2, reqs
for r in later:
    assert r["headers"].get("Mcp-Session-Id"), r
    assert r["headers"].get("MCP-Protocol-Version") == "2025-11-25", r
assert all(r["headers"].get("X-Api-Key") == "k1" for r in reqs), "configured headers on every request"
assert [r for r in reqs if r["method"] == "DELETE"], "the session is ended with DELETE"
PYEOF
}

case_legacy_sse_only_server_is_answered() {
  start_mcp_http --transport legacy-sse --tools 6 --log-file "$T/log"
  config "old={\"type\":\"sse\",\"url\":\"http://127.0.0.1:$HTTP_PORT/sse\"}"
  probe_json old
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(field '["tools"]')" 6
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["old"]["probe"]["via"]')" sse
  assert_eq "$(head -1 "$T/log" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["method"])')" POST
  # Learned: the next probe opens the SSE stream first, and never POSTs a Streamable HTTP request.
  : > "$T/log"
  probe_json old
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(head -1 "$T/log" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["method"])')" GET
  "$PY" - "$T/log" <<'PYEOF' || fail "a Streamable HTTP POST was sent to a learned SSE server"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert not [r for r in reqs if r["method"] == "POST" and r["path"] == "/sse"], reqs
PYEOF
}

case_modern_http_server() {
  start_mcp_http --modern --log-file "$T/log"
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web
  assert_eq "$(field '["protocolVersion"]')" 2026-07-28
  assert_eq "$(field '["serverName"]')" fixture-http-modern
  assert_contains "$(grep '"tools/list"' "$T/log")" '"MCP-Protocol-Version": "2026-07-28"'
}

case_strict_modern_server_gets_its_headers_on_every_post() {
  # A strict 2026-07-28 server refuses a POST whose Mcp-Method or MCP-Protocol-Version does not mirror the body.
  start_mcp_http --strict --log-file "$T/log"
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web --depth handshake
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" answered "not merely reachable: discover passed the strict checks"
  assert_eq "$(field '["protocolVersion"]')" 2026-07-28
  "$PY" - "$T/log" <<'PYEOF' || fail "a POST lacked its mirrored headers, or a GET/DELETE was sent"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["rpc"] for r in reqs] == ["server/discover", "tools/list"], reqs
for r in reqs:
    assert r["method"] == "POST", r
    assert r["headers"].get("Mcp-Method") == r["rpc"], r
    assert r["headers"].get("MCP-Protocol-Version") == "2026-07-28", r
PYEOF
}

case_strict_server_without_2026_is_initialized_with_a_version_it_lists() {
  # -32022 UnsupportedProtocolVersion lists what the server speaks: initialize with the newest one we speak too.
  start_mcp_http --strict --supported 2025-03-26,2025-06-18,2099-01-01 --log-file "$T/log"
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web --depth handshake
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(field '["protocolVersion"]')" 2025-06-18
}

case_header_mismatch_is_named_as_our_bug() {
  start_mcp_http --strict --mismatch-always
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web
  assert_eq "$RC" 0 "the server is up: it answers, and refuses only our request"
  assert_eq "$(field '["kind"]')" reachable
  assert_contains "$(field '["reason"]')" "HeaderMismatch, -32020). That is a bug in mcphealth, not in the server"
  probe_json web --depth handshake
  assert_eq "$RC" 1
  assert_contains "$(field '["reason"]')" "a bug in mcphealth"
}

case_http_401_with_bearer_challenge_needs_auth() {
  start_mcp_http --status 401 --www-authenticate 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web --depth handshake
  assert_eq "$RC" 0 "needs-auth is not unhealthy"
  assert_eq "$(field '["status"]')" needs-auth
  assert_eq "$(field '["httpStatus"]')" 401
}

case_http_401_to_a_configured_authorization_header_is_down_not_needs_auth() {
  # The definition sends its own token and the server refuses it: Claude Code reports it failed (2.1.332: "OAuth
  # fallback is disabled when headers.Authorization is set"), so /mcp cannot help: down, and say whose token.
  start_mcp_http --status 401 --www-authenticate 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\",\"headers\":{\"authorization\":\"Bearer sk-expired-0123456789\"}}"
  for depth in handshake auto; do
    probe_json web --depth $depth
    assert_eq "$RC" 1 "a refused configured token is down ($depth)"
    assert_eq "$(field '["status"]')" unhealthy
    assert_contains "$(field '["reason"]')" "refuses the Authorization header the definition sets"
    assert_contains "$(field '["hint"]')" "renew the credentials the definition sends"
    assert_not_contains "$OUT" "sk-expired"
  done
  # The hook tells the model to have the token renewed, not to run /mcp.
  hook "$(pre_payload web)" 
  assert_contains "$OUT" "renew the credentials the MCP config sends"
  assert_not_contains "$OUT" "run /mcp"
}

case_http_503_with_retry_after_is_down() {
  start_mcp_http --status 503 --retry-after 120
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web
  assert_eq "$RC" 1
  assert_eq "$(field '["reason"]')" "HTTP 503"
  assert_eq "$(field '["retryAfterMs"]')" 120000
  assert_eq "$(field '["failureCode"]')" 503
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["web"]["nextRetryAt"] - d["servers"]["web"]["checkedAt"]')" 120000
}

case_http_status_without_mcp_counts_only_under_auto() {
  start_http --status 200
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web
  assert_eq "$RC" 0
  assert_eq "$(field '["status"]')" reachable
  probe_json web --depth handshake
  assert_eq "$RC" 1
  assert_eq "$(field '["kind"]')" protocol-error
}

# Connected and silent: slow, as a silent stdio server is (alive-silent); asked for a handshake, a timeout.
case_hanging_http_is_alive_silent_and_a_timeout_when_a_handshake_is_asked_for() {
  start_mcp_http --hang
  config "web={\"type\":\"http\",\"url\":\"http://127.0.0.1:$HTTP_PORT/mcp\"}"
  probe_json web --timeout-ms 600
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" alive-silent
  assert_contains "$(field '["reason"]')" "connected, but no MCP answer within 600 ms: slow, not down"
  probe_json web --timeout-ms 600 --depth handshake
  assert_eq "$RC" 1
  assert_eq "$(field '["kind"]')" timeout
  assert_eq "$(field '["reason"]')" "request timed out"
}

case_many_servers_at_once_all_reported() {
  local pairs=() i
  for i in $(seq 1 24); do pairs+=("ok$i=$(stdio_def healthy)"); done
  for i in $(seq 1 4); do pairs+=("hang$i=$(stdio_def hang)"); done
  config "${pairs[@]}"
  # 28 Python starts at once on two busy cores: one took over 4 s in CI, so the timeout leaves room for that.
  probe_json --all --depth handshake --timeout-ms 12000
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" 'len(d["servers"])')" 28
  assert_eq "$(json_eval "$OUT" 'sum(1 for s in d["servers"] if s["kind"] == "answered")')" 24
  assert_eq "$(json_eval "$OUT" 'sum(1 for s in d["servers"] if s["kind"] == "timeout")')" 4
  assert_eq "$(json_get "$(STATE)" 'len(d["servers"])')" 28
}

case_parallel_limit_still_probes_everything() {
  config "a=$(stdio_def healthy)" "b=$(stdio_def healthy)" "c=$(stdio_def crash)"
  probe_json --all --parallel 1
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" '[s["status"] for s in d["servers"]]')" '["healthy", "healthy", "unhealthy"]'
}

case_usage_errors_exit_2() {
  config "a=$(stdio_def healthy)" "b=$(stdio_def healthy)"
  mcph probe nosuch
  assert_eq "$RC" 2
  assert_contains "$ERR" "unknown server 'nosuch'; known: a, b"
  mcph probe
  assert_eq "$RC" 2
  mcph probe a --all
  assert_eq "$RC" 2
  mcph probe a --depth deep
  assert_eq "$RC" 2
  rm "$PROJ/.mcp.json"
  mcph probe --all
  assert_eq "$RC" 2
  assert_contains "$ERR" "no MCP servers that the agents would start were found; looked in:"
  assert_contains "$ERR" "$PROJ/.mcp.json"
}

case_no_update_writes_nothing() {
  config "a=$(stdio_def healthy)"
  mcph probe a --no-update
  assert_eq "$RC" 0
  assert_no_state
}

case_newer_check_by_a_hook_wins() {
  config "a=$(stdio_def crash)"
  local future=$(( $(now_ms) + 60000 ))
  seed_state "{\"version\":1,\"servers\":{\"a\":{\"status\":\"healthy\",\"checkedAt\":$future,\"expiresAt\":$((future + 1000))}}}"
  mcph probe a
  assert_eq "$RC" 1
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["a"]["status"]')" healthy
}

case_probe_clears_a_server_in_backoff() {
  config "a=$(stdio_def healthy)"
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"a\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 1000)),\"expiresAt\":$((now - 1000)),\"nextRetryAt\":$((now + 600000)),\"failureCount\":6}}}"
  mcph probe a
  assert_eq "$RC" 0
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["a"]["status"]')" healthy
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["a"]["failureCount"]')" 0
}

case_prometheus_never_creates_a_folder() {
  # A typo in the path must fail at once, before probing, not write where node_exporter does not read.
  config "good=$(stdio_def healthy)"
  mcph probe --all --prometheus "$T/no/such/dir/mcp.prom"
  assert_eq "$RC" 2
  assert_contains "$ERR" "does not exist"
  assert_no_file "$T/no"
  assert_no_file "$(STATE)" "nothing probed, nothing recorded"
  mcph watch --probe --once --prometheus "$T/nope/mcp.prom"
  assert_eq "$RC" 2
  assert_no_file "$T/nope"
}

case_prometheus_textfile() {
  config "good=$(stdio_def healthy '"--tools","9"')" "bad=$(stdio_def crash)"
  mcph probe --all --prometheus "$T/mcp.prom"
  assert_eq "$RC" 1
  local prom; prom=$(cat "$T/mcp.prom")
  assert_contains "$prom" '# TYPE mcphealth_up gauge'
  # Each series is labelled with its definition: two projects may define one name differently.
  local good bad
  good=$(json_get "$(STATE)" 'd["servers"]["good"]["definition"]')
  bad=$(json_get "$(STATE)" 'd["servers"]["bad"]["definition"]')
  assert_contains "$prom" "mcphealth_up{server=\"good\",definition=\"$good\"} 1"
  assert_contains "$prom" "mcphealth_up{server=\"bad\",definition=\"$bad\"} 0"
  assert_contains "$prom" "mcphealth_tools{server=\"good\",definition=\"$good\"} 9"
  assert_contains "$prom" "mcphealth_consecutive_failures{server=\"bad\",definition=\"$bad\"} 1"
  assert_contains "$prom" "mcphealth_probe_duration_seconds{server=\"good\",definition=\"$good\"} 0."
  assert_contains "$prom" "mcphealth_last_probe_timestamp_seconds{server=\"good\",definition=\"$good\"} 1"
  assert_contains "$prom" "mcphealth_status{server=\"bad\",definition=\"$bad\",status=\"unhealthy\"} 1"
  assert_contains "$prom" "mcphealth_status{server=\"bad\",definition=\"$bad\",status=\"healthy\"} 0"
  assert_eq "$(stat -c %a "$T/mcp.prom")" 644
  ls "$T" | grep -q 'mcp.prom.tmp' && fail "temp file left behind"
  true
}

case_quiet_prints_nothing_when_all_is_up() {
  config "good=$(stdio_def healthy)"
  mcph probe --all -q
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$ERR" ""
}

case_quiet_prints_only_what_is_down_and_warnings_only_with_v() {
  # cron mails whatever is printed: only the servers that are down, and no config warnings unless -v.
  config "good=$(stdio_def healthy)" "bad=$(stdio_def crash)"
  write_config "$HOME/.claude.json" '{"mcpServers": {'
  mcph probe --all -q
  assert_eq "$RC" 1
  assert_contains "$OUT" "bad"
  assert_not_contains "$OUT" "good"
  assert_eq "$ERR" ""
  mcph -v probe --all -q
  assert_contains "$ERR" ".claude.json"
}

case_unhealthy_filters_rows_but_not_the_exit_code() {
  config "good=$(stdio_def healthy)" "bad=$(stdio_def crash)"
  mcph probe --all --unhealthy -o name
  assert_eq "$RC" 1
  assert_eq "$OUT" "bad"
  config "good=$(stdio_def healthy)"
  mcph probe --all --unhealthy
  assert_eq "$RC" 0
  assert_eq "$OUT" "nothing is down"
}

case_output_formats_and_their_conflicts() {
  config "good=$(stdio_def healthy)"
  mcph probe good -o json
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["status"]')" healthy
  mcph probe good -o name
  assert_eq "$OUT" "good"
  mcph probe good -o yaml
  assert_eq "$RC" 2
  assert_contains "$ERR" "yaml"
  mcph probe good -o json --wide
  assert_eq "$RC" 2
}

case_traceback_shows_its_last_line_and_json_keeps_it_all() {
  config "py=$(stdio_def import-missing)"
  mcph probe py
  assert_eq "$RC" 1
  # Why it is down: how it ended, and the line that says why.
  assert_contains "$OUT" "exit 1: ModuleNotFoundError: No module named 'nosuchmod_for_mcphealth'"
  assert_not_contains "$OUT" "Traceback"
  assert_eq "$(grep -c . <<<"$OUT")" 3 "the header, one row and the hint: [$OUT]"
  assert_contains "$OUT" "hint: py: install the missing Python module"
  mcph probe py --json
  assert_contains "$(json_eval "$OUT" 'd["servers"][0]["reason"]')" "Traceback (most recent call last)"
  assert_contains "$(json_eval "$OUT" 'd["servers"][0]["hint"]')" "Python module"
  assert_eq "$(json_eval "$OUT" '[d["servers"][0]["exit"], d["servers"][0]["signal"]]')" '[1, null]' "the exit code, a number"
  mcph status
  assert_contains "$OUT" "exit 1: ModuleNotFoundError: No module named 'nosuchmod_for_mcphealth'"
  # A process a signal ended: no exit code, the signal by name.
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"sig":{"command":"/bin/sh","args":["-c","kill -SEGV $$"]}}}'
  mcph probe sig --json
  assert_eq "$(json_eval "$OUT" '[d["servers"][0]["exit"], d["servers"][0]["signal"]]')" '[null, "SIGSEGV"]'
}

case_table_has_no_colour_when_piped_or_no_color() {
  config "good=$(stdio_def healthy)" "bad=$(stdio_def crash)"
  mcph probe --all
  assert_contains "$OUT" "✔ healthy"
  assert_contains "$OUT" "✘ unhealthy"
  assert_not_contains "$OUT" $'\033['
  script -qec "$MCPHEALTH_BIN probe --all" /dev/null > "$T/tty.txt" || true
  assert_contains "$(cat "$T/tty.txt")" $'\033[32m'
  NO_COLOR=1 script -qec "$MCPHEALTH_BIN probe --all" /dev/null > "$T/tty2.txt" || true
  assert_not_contains "$(cat "$T/tty2.txt")" $'\033[3'
}

case_cwd_chooses_the_project() {
  mkdir -p "$T/other"
  write_config "$T/other/.mcp.json" "{\"mcpServers\":{\"elsewhere\":$(stdio_def healthy)}}"
  mcph probe --all --cwd "$T/other" --json
  assert_eq "$(field '["name"]')" elsewhere
}

case_reconnect_flag_runs_the_command() {
  config "svc=$(stdio_def flag "\"--flag-file\",\"$T/up\"")"
  export ECC_MCP_RECONNECT_COMMAND="touch $T/up"
  mcph probe svc
  assert_eq "$RC" 1
  assert_no_file "$T/up" "no reconnect without --reconnect"
  probe_json svc --reconnect
  assert_eq "$RC" 0
  assert_eq "$(field '["reconnect"]')" ok
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["restoredBy"]')" reconnect-command
}

case_no_process_left_after_probing_forking_servers() {
  config "a=$(stdio_def fork-child "\"--pid-file\",\"$T/a.pid\"")" "b=$(stdio_def hang "\"--count-file\",\"$T/b.pids\"")"
  mcph probe --all --timeout-ms 500
  local child hanging
  child=$(cat "$T/a.pid")
  hanging=$(cat "$T/b.pids")
  if is_running "$child"; then fail "grandchild $child survived"; fi
  if is_running "$hanging"; then fail "the hanging server $hanging survived"; fi
  true
}

# A child the server moved into a session of its own is out of the server's group, which the probe ends: it is
# ended too (found among the server's descendants before the group goes). Before, it outlived the probe.
case_a_child_moved_to_its_own_session_is_ended_with_the_probe() {
  sees_processes "find a server's children outside its group"
  config "a=$(stdio_def fork-session-child "\"--pid-file\",\"$T/a.pid\"")"
  mcph probe --all --timeout-ms 3000
  local child i
  child=$(cat "$T/a.pid")
  for i in $(seq 1 40); do is_running "$child" || break; sleep 0.05; done
  if is_running "$child"; then fail "the server's child $child, in a session of its own, survived the probe"; fi
}

case_learned_era_skips_discover_for_a_legacy_server_and_falls_back_when_it_moves() {
  config "svc=$(stdio_def switch "\"--flag-file\",\"$T/modern\",\"--log-file\",\"$T/methods\"")"
  probe_json svc --timeout-ms 3000
  assert_eq "$(field '["protocolVersion"]')" 2025-11-25
  assert_contains "$(cat "$T/methods")" "server/discover" "the first probe does not know the era yet"
  : > "$T/methods"
  probe_json svc --timeout-ms 3000
  assert_eq "$(field '["kind"]')" answered
  assert_not_contains "$(cat "$T/methods")" "server/discover" "a learned legacy era starts with initialize"
  assert_eq "$(head -1 "$T/methods")" initialize
  # The server moves to the 2026-07-28 protocol: initialize is refused, discover follows, and is learned.
  touch "$T/modern"
  : > "$T/methods"
  probe_json svc --timeout-ms 3000
  assert_eq "$RC" 0
  assert_eq "$(field '["protocolVersion"]')" 2026-07-28
  assert_eq "$(tr '\n' ' ' < "$T/methods")" "initialize server/discover tools/list "
  : > "$T/methods"
  probe_json svc --timeout-ms 3000
  assert_eq "$(head -1 "$T/methods")" server/discover
  # With --protocol (or a policy's protocol) nothing learned applies.
  rm "$T/modern"
  probe_json svc --timeout-ms 3000 --protocol legacy --no-update
  assert_eq "$(field '["protocolVersion"]')" 2025-11-25
}

# cron runs with PATH=/usr/bin:/bin; the agent runs with its own. A server on the agent's PATH only is neither
# blocked by a cron probe nor missed by one once the agent's hook has recorded its PATH.
case_a_probe_from_crons_path_is_not_the_verdict_for_the_agents_path() {
  mkdir -p "$T/agentbin"
  printf '#!/bin/sh\nexec %s %s --mode healthy\n' "$PY" "$STDIO_SERVER" > "$T/agentbin/notes-mcp"
  chmod +x "$T/agentbin/notes-mcp"
  config 'notes={"command":"notes-mcp","args":[]}'
  local agent_path="$T/agentbin:$PATH" cron_path=/usr/bin:/bin
  # No hook has run yet: the agent's PATH is unknown, so "not on cron's PATH" records nothing.
  PATH=$cron_path mcph probe --all --json
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" not-probed
  assert_contains "$(field '["reason"]')" '`notes-mcp` is not on this PATH (/usr/bin:/bin); not recorded'
  assert_eq "$(json_get "$(STATE)" 'd["servers"].get("notes")')" null
  # The session's call is not blocked by it.
  PATH=$agent_path hook "$(pre_payload notes)"
  assert_not_contains "$OUT" deny
  assert_eq "$(entry_field notes status)" healthy
  # Now the hook has recorded the agent's PATH: cron's probe starts the server with it, and says so.
  PATH=$cron_path mcph probe --all --json
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" answered
  assert_contains "$ERR" "servers start with the PATH Claude Code's hook ran with"
  PATH=$cron_path mcph probe --all -q
  assert_eq "$ERR" ""
  # A command missing from the agent's PATH too is the server's verdict.
  config 'notes={"command":"notes-mcp-gone","args":[]}'
  PATH=$cron_path mcph probe --all --json
  assert_eq "$RC" 1
  assert_eq "$(field '["kind"]')" spawn-failed
}

case_a_defined_but_unapproved_server_is_named_as_such_not_unknown() {
  config "wiki=$(stdio_def healthy)"
  write_config "$HOME/.claude/settings.json" '{}'
  mcph probe wiki
  assert_eq "$RC" 2
  assert_contains "$ERR" "'wiki' is defined in $PROJ/.mcp.json (project), but Claude Code does not start it here: not approved"
  assert_not_contains "$ERR" "unknown server"
  mcph status wiki
  assert_eq "$RC" 2
  assert_contains "$ERR" "'wiki' is defined in $PROJ/.mcp.json (project), but Claude Code does not start it here: not approved"
  mcph status nothing-here
  assert_contains "$ERR" "unknown server 'nothing-here'"
}

case_a_config_that_does_not_parse_is_said_once() {
  printf '{"mcpServers": {' > "$PROJ/.mcp.json"
  mcph probe --all
  assert_eq "$RC" 2
  assert_eq "$(grep -c 'incomplete JSON' <<<"$ERR")" 1 "the parse error, once"
  assert_eq "$(grep -c "  $PROJ/.mcp.json (project)" <<<"$ERR")" 1 "the file in 'looked in', once"
  assert_not_contains "$ERR" '\n'
}

case_probing_a_server_in_backoff_by_hand_does_not_back_it_off_further() {
  config "svc=$(stdio_def crash)"
  mcph probe svc
  assert_eq "$RC" 1
  assert_eq "$(entry_field svc failureCount)" 1
  local retry; retry=$(entry_field svc nextRetryAt)
  # Before its retry: what it saw is recorded, but neither the count nor the retry moves.
  mcph probe svc
  mcph probe svc
  assert_eq "$(entry_field svc failureCount)" 1
  assert_eq "$(entry_field svc nextRetryAt)" "$retry"
  assert_contains "$(entry_field svc lastError)" "fixture crashed"
  # Once its retry is due, a probe is that retry: it counts.
  edit_entries 'e["nextRetryAt"] = 1'
  mcph probe svc
  assert_eq "$(entry_field svc failureCount)" 2
}

case_a_long_probe_all_on_a_terminal_shows_progress_on_stderr_and_clears_it() {
  config "a=$(stdio_def slow '"--delay-ms","1300"')" "b=$(stdio_def slow '"--delay-ms","2200"')" "c=$(stdio_def healthy)"
  # A terminal on stdin, stdout and stderr (script(1)); stdout to a file, so what the pty shows is stderr's alone.
  script -qec "'$MCPHEALTH_BIN' probe --all --timeout-ms 5000 > '$T/table'" "$T/tty" >/dev/null
  assert_contains "$(cat "$T/tty")" "probing: 2 of 3 done (a)"
  assert_contains "$(cat "$T/tty")" $'\r\033[K'
  assert_contains "$(cat "$T/table")" "b       ✔ healthy"
  # Not a terminal: no progress.
  mcph probe --all --timeout-ms 5000
  assert_not_contains "$ERR" "probing:"
}

main "$@"
