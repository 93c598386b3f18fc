#!/usr/bin/env bash
# mcphealth's rules against the real client's: a fixed seed's sample of generated folder layouts, each run through
# `claude mcp list` (the pinned version and the newest) and through mcphealth (probe --all, SessionStart, PreToolUse),
# with every definition a marker program. A definition mcphealth starts that a client does not fails the case
# (tests/fixtures/differential.py; `scripts/differential` runs larger samples by hand).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# differential ARGS...: tests/fixtures/differential.py against both pinned clients; sets OUT and fails the case on
# any divergence.
differential() {
  need_claude
  local newest=${MCPHEALTH_CLAUDE_NEWEST:-}
  [ -n "$newest" ] && [ -x "$newest" ] || skip "needs the newest claude too (MCPHEALTH_CLAUDE_NEWEST; scripts/test installs it)"
  set +e
  OUT=$("$PY" "$MCPHEALTH_FIXTURES/differential.py" --mcphealth "$MCPHEALTH_BIN" --claude "$CLAUDE_BIN" \
    --claude "$newest" "$@" 2>&1)
  RC=$?
  set -e
  echo "$OUT" | tail -1
  [ "$RC" -eq 0 ] || fail "divergences from the real client:
$OUT"
}

case_no_definition_starts_that_claude_code_would_not_start() {
  differential --seed 20261203 --count 40 --seconds 240
  assert_contains "$OUT" "differential: "
}

# The layouts where the two pinned versions' approval rules differ (issue 37 item 10): mcphealth told each client's
# version starts what that client starts, and not knowing it, nothing a repository names that either would not.
case_where_the_versions_differ_each_version_rules() {
  differential --fixed --count 5 --seconds 240
  assert_contains "$OUT" "differential: 5 layouts, 0 with a divergence"
  assert_contains "$OUT" "0 where mcphealth started less than a client"
}

main "$@"
