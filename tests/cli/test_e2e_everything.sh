#!/usr/bin/env bash
# End to end against a real MCP server: @modelcontextprotocol/server-everything from npm, installed by scripts/test
# into .cache/npm. Over stdio, Streamable HTTP and legacy SSE, through `probe` and through the hook.
source "$(dirname "$0")/lib.sh"

EVERYTHING=${MCPHEALTH_EVERYTHING:-${MCPHEALTH_SOURCE_DIR:-}/.cache/npm/node_modules/.bin/mcp-server-everything}
E2E_TIMEOUT=15000

need_everything() {
  [ -x "$EVERYTHING" ] || skip "server-everything not found at $EVERYTHING: ./scripts/test installs it (npm install into .cache/npm)"
}

# start_everything MODE: starts it over HTTP on a free port; sets EVERYTHING_PORT once it accepts connections.
start_everything() {
  EVERYTHING_PORT=$(free_port)
  PORT=$EVERYTHING_PORT "$EVERYTHING" "$1" >"$T/everything-$1.log" 2>&1 &
  FIXTURE_PIDS+=($!)
  for _ in $(seq 1 300); do
    "$PY" -c 'import socket,sys; s=socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$EVERYTHING_PORT" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "server-everything $1 did not listen on $EVERYTHING_PORT: $(cat "$T/everything-$1.log")"
}

field() { json_eval "$OUT" "d[\"servers\"][0]$1"; }

# A wrapper that records the server's pid, so the test can check it is gone afterwards.
stdio_wrapper() {
  printf '#!/bin/sh\necho $$ > %s/everything.pid\nexec %s stdio\n' "$T" "$EVERYTHING" > "$T/everything-stdio"
  chmod +x "$T/everything-stdio"
}

case_stdio_answers_with_its_own_tool_count() {
  need_everything
  local expected; expected=$("$PY" "$MCPHEALTH_FIXTURES/count_tools.py" "$EVERYTHING" stdio)
  stdio_wrapper
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"everything\":{\"command\":\"$T/everything-stdio\"}}}"
  mcph probe everything --json --timeout-ms "$E2E_TIMEOUT"
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(field '["tools"]')" "$expected" "tool count the server reports"
  assert_eq "$(field '["serverName"]')" "mcp-servers/everything"
  local pid; pid=$(cat "$T/everything.pid")
  if is_running "$pid"; then fail "server-everything ($pid) left running after the probe"; fi
  true
}

# http_answers MODE TYPE PATH: starts server-everything over HTTP and probes it; it must answer with its tool count.
http_answers() {
  need_everything
  local expected; expected=$("$PY" "$MCPHEALTH_FIXTURES/count_tools.py" "$EVERYTHING" stdio)
  start_everything "$1"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"everything\":{\"type\":\"$2\",\"url\":\"http://127.0.0.1:$EVERYTHING_PORT$3\"}}}"
  mcph probe everything --json --timeout-ms "$E2E_TIMEOUT"
  assert_eq "$RC" 0
  assert_eq "$(field '["kind"]')" answered
  assert_eq "$(field '["tools"]')" "$expected"
  assert_eq "$(field '["transport"]')" "$2"
}

case_streamable_http_answers() { http_answers streamableHttp http /mcp; }

case_legacy_sse_answers() { http_answers sse sse /sse; }

case_unknown_session_post_is_a_real_hang() {
  need_everything
  start_everything sse
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"stuck\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:$EVERYTHING_PORT/message?sessionId=unknown\"}}}"
  mcph probe stuck --json --timeout-ms 1500 --depth handshake
  assert_eq "$RC" 1
  assert_eq "$(field '["status"]')" unhealthy
}

case_hook_allows_and_records_a_real_server() {
  need_everything
  stdio_wrapper
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"everything\":{\"command\":\"$T/everything-stdio\"}}}"
  export ECC_MCP_HEALTH_TIMEOUT_MS=$E2E_TIMEOUT
  hook "$(pre_payload everything echo)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["everything"]["status"]')" healthy
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["everything"]["probe"]["kind"]')" answered
  local pid; pid=$(cat "$T/everything.pid")
  if is_running "$pid"; then fail "server-everything ($pid) left running after the hook"; fi
  true
}

main "$@"
