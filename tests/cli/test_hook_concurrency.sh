#!/usr/bin/env bash
# Parallel hooks: no lost updates, one probe and one reconnect per expired server.
source "$(dirname "$0")/lib.sh"

case_parallel_hooks_lose_no_update() {
  local pids=()
  for i in $(seq 1 32); do
    post_failure_payload "svc$i" "$CLIENT_CLOSED" | "$MCPHEALTH_BIN" hook >/dev/null 2>>"$T/err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  assert_eq "$(json_get "$(STATE)" 'len(d["servers"])')" "32" "servers recorded by 32 parallel hooks"
  assert_eq "$(json_get "$(STATE)" 'sorted(v["lastFailureCode"] for v in d["servers"].values()) == ["transport"]*32')" "true"
}

case_a_cold_folder_burst_loses_no_failure_mark() {
  # 64 failure marks and 32 calls (to other servers, each probed) at once on a folder nothing has bound yet: every
  # hook reads the configs and binds the folder while the marks write; not one mark may be dropped.
  local pairs="" i pids=()
  for i in $(seq 1 96); do pairs+="${pairs:+,}\"s$i\":$(stdio_def healthy)"; done
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{$pairs}}"
  for i in $(seq 1 64); do
    post_failure_payload "s$i" 'MCP error -32000: Connection closed' | "$MCPHEALTH_BIN" hook >/dev/null 2>>"$T/err" &
    pids+=($!)
  done
  for i in $(seq 1 32); do
    pre_payload "s$((i + 64))" | "$MCPHEALTH_BIN" hook >/dev/null 2>>"$T/err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  assert_eq "$(json_get "$(STATE)" 'sum(1 for e in d["servers"].values() if e["status"] == "unhealthy")')" 64 "marks kept"
}

# A burst of successes after an outage: 60 PostToolUse restores (6 for each of 10 servers marked down) at once, beside
# 20 new failures of other servers. Every restore is written: a write rewrites what it changed, so the lock is held
# for milliseconds, never the 2 s a writer waits for it. (Issue 39 measured 8 of 60 restores dropped when each write
# rewrote the whole state; not reproduced here, this passes on 848e109 too: a guard of the rule.)
case_a_burst_of_restores_loses_none() {
  local i j pids=()
  for i in $(seq 1 10); do post_failure_payload "up$i" "$CLIENT_CLOSED" | "$MCPHEALTH_BIN" hook >/dev/null 2>>"$T/err"; done
  assert_eq "$(json_get "$(STATE)" 'sum(1 for e in d["servers"].values() if e["status"] == "unhealthy")')" 10
  for j in $(seq 1 6); do
    for i in $(seq 1 10); do
      post_payload "up$i" | "$MCPHEALTH_BIN" hook >/dev/null 2>>"$T/err" &
      pids+=($!)
    done
  done
  for i in $(seq 1 20); do
    post_failure_payload "down$i" "$CLIENT_CLOSED" | "$MCPHEALTH_BIN" hook >/dev/null 2>>"$T/err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  ERR=$(cat "$T/err")
  assert_eq "$(json_get "$(STATE)" 'sorted(k for k, e in d["servers"].items() if e["status"] == "healthy") == sorted("up%d" % i for i in range(1, 11))')" true "every server restored"
  assert_eq "$(json_get "$(STATE)" 'sum(1 for k, e in d["servers"].items() if k.startswith("down") and e["status"] == "unhealthy")')" 20 "every failure kept"
  assert_not_contains "$ERR" "still held after"
}

case_parallel_hooks_share_one_probe_and_one_reconnect() {
  local now; now=$(now_ms)
  seed_state "{\"version\":1,\"servers\":{\"svc\":{\"status\":\"unhealthy\",\"checkedAt\":$((now - 60000)),\"expiresAt\":$((now - 60000)),\"nextRetryAt\":$((now - 1)),\"failureCount\":1,\"lastError\":\"x\",\"lastFailureCode\":null}}}"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash "\"--count-file\",\"$T/probes\"")}}"
  export ECC_MCP_RECONNECT_COMMAND="echo x >> $T/reconnects; exit 1"
  local i pids=()
  for i in $(seq 1 10); do
    pre_payload svc | "$MCPHEALTH_BIN" hook --output exit-code >/dev/null 2>"$T/err.$i" &
    pids+=($!)
  done
  local rc verdicts=0 blocked=0 starved=0
  for i in $(seq 1 10); do
    set +e; wait "${pids[$((i - 1))]}"; rc=$?; set -e
    if grep -q 'svc is unavailable (fixture crashed' "$T/err.$i"; then verdicts=$((verdicts + 1)); fi
    if [ "$rc" -eq 2 ]; then
      blocked=$((blocked + 1))
    elif [ "$rc" -eq 0 ] && grep -q 'could not be probed (this machine is too busy' "$T/err.$i"; then
      # A loaded machine (a sanitized run beside a burst of 96 hooks) starves a probe of CPU: it learns nothing,
      # records nothing, allows, and hands the lock to the next hook. That is the rule, not a lost coalescing.
      starved=$((starved + 1))
    else
      ERR=$(cat "$T/err.$i")
      fail "hook $i exited $rc without a verdict or a busy machine"
    fi
  done
  ERR=$(cat "$T"/err.*)
  # One probe gave the verdict, one reconnect ran on it, and every hook after it read the verdict from the cache.
  assert_eq "$verdicts" 1 "probes that gave a verdict"
  assert_eq "$(line_count "$T/reconnects")" 1 "reconnects"
  assert_eq "$((blocked + starved))" 10 "every call blocked, or allowed on a starved probe"
  local started; started=$(line_count "$T/probes")
  [ "$started" -ge 1 ] && [ "$started" -le $((1 + starved)) ] || fail "server starts: $started for 1 verdict and $starved starved probes"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["svc"]["failureCount"]')" "2"
}

main "$@"
