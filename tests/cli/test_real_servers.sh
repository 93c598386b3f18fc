#!/usr/bin/env bash
# A sample of real MCP servers from npm (tests/fixtures/npm_sample.py; scripts/test installs them, pinned): at its
# defaults, `mcphealth probe --all` must reach the verdict the real Claude Code reaches in `claude mcp list`, server
# by server, and verify every healthy one (none left "alive, silent"). No network: every backend is on 127.0.0.1.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

case_probe_all_agrees_with_claude_mcp_list_on_real_npm_servers() {
  need_sample
  write_sample
  # The defaults, as a user runs it: no timeout from the harness.
  unset ECC_MCP_HEALTH_TIMEOUT_MS
  # Side by side, as a cron job and a session starting would: both start every server at once on two cores.
  claude_verdicts &
  local claude_job=$! start
  start=$(date +%s%3N)
  mcph probe --all --json
  local probe_ms=$(( $(date +%s%3N) - start ))
  wait "$claude_job" || fail "claude mcp list did not finish"
  assert_eq "$RC" 1 "probe --all exit code (some servers are down): $ERR"
  # The sample says what Claude Code 2.1.197 reports; a different client version must be looked at, not trusted.
  assert_eq "$(cat "$T/claude.verdicts")" "$(cat "$T/expected")" "claude mcp list against the sample's record"
  printf '%s' "$OUT" > "$T/probe.json"
  local ours
  ours=$(probe_verdicts "$T/probe.json")
  assert_eq "$ours" "$(cat "$T/claude.verdicts")" "probe --all against claude mcp list"
  # Every server Claude Code connects to was verified: it answered MCP, none is only "alive, silent".
  local unverified
  unverified=$(unverified "$T/probe.json")
  assert_eq "$unverified" "" "servers up but not verified"
  # The one that goes quiet waiting for its backend says why: its own stderr, quoted.
  local redis
  redis=$("$PY" -c 'import json,sys; print([s for s in json.load(open(sys.argv[1]))["servers"] if s["name"] == "redis-backend-down"][0]["reason"])' "$T/probe.json")
  assert_contains "$redis" "start-up timeout"
  assert_contains "$redis" "ECONNREFUSED 127.0.0.1:1"
  echo "wall time: probe --all ${probe_ms} ms, claude mcp list $(cat "$T/claude.ms") ms"
  wait_for_quiet
}

main "$@"
