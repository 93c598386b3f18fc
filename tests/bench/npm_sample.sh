#!/usr/bin/env bash
# The npm sample of real MCP servers (tests/fixtures/npm_sample.py): `probe --all` at its defaults and at the
# hook's 5 s budget (the old default), beside `claude mcp list`, in one run. Prints per setting the wall time, how
# many verdicts agree with Claude Code's, and how many servers were left up but unverified ("alive, silent").
#   npm_sample.sh   (MCPHEALTH_BIN, MCPHEALTH_FIXTURES, MCPHEALTH_CLAUDE, MCPHEALTH_NPM_BIN set, as scripts/bench sets them)
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/../cli/real_agent.sh"

case_sample() {
  need_sample
  write_sample
  unset ECC_MCP_HEALTH_TIMEOUT_MS
  claude_verdicts
  local total
  total=$(wc -l < "$T/claude.verdicts")
  printf '%-36s %10s %14s %12s\n' "npm sample ($total definitions)" "wall time" "agree w/ claude" "unverified"
  printf '%-36s %8s ms %14s %12s\n' "claude mcp list" "$(cat "$T/claude.ms")" "-" "-"
  local label args start ms
  for row in "probe --all (defaults)|" "probe --all --timeout-ms 5000|--timeout-ms 5000"; do
    IFS='|' read -r label args <<<"$row"
    start=$(date +%s%3N)
    mcph probe --all --json $args
    ms=$(( $(date +%s%3N) - start ))
    printf '%s' "$OUT" > "$T/probe.json"
    local agree
    agree=$(comm -12 <(probe_verdicts "$T/probe.json") "$T/claude.verdicts" | wc -l)
    printf '%-36s %8s ms %11s/%-2s %12s\n' "$label" "$ms" "$agree" "$total" "$(unverified "$T/probe.json" | wc -w)"
  done
}

run_case sample
