#!/usr/bin/env bash
# `mcphealth reset`: removes entries under the hook's lock; dry runs; errors; races with hooks.
# Needs: GNU stat
source "$(dirname "$0")/lib.sh"

seed_three() {
  seed_state '{"version":1,"servers":{"agentmemory":{"status":"unhealthy","failureCount":9},"github":{"status":"healthy"},"notes":{"status":"unhealthy"}},"unconfigured":{"agentmemory":{"checkedAt":1}},"extra":true}'
}

case_reset_one_server() {
  seed_three
  mcph reset agentmemory
  assert_eq "$RC" 0
  assert_eq "$OUT" "reset agentmemory"
  assert_eq "$(json_get "$(STATE)" 'sorted(d["servers"])')" '["github", "notes"]'
  assert_eq "$(json_get "$(STATE)" 'd["unconfigured"]')" '{}'
  assert_eq "$(json_get "$(STATE)" 'd["extra"]')" true
  assert_eq "$(stat -c %a "$(STATE)")" 600
}

case_reset_unhealthy_and_all() {
  seed_three
  mcph reset --unhealthy --json
  assert_eq "$(json_eval "$OUT" 'sorted(d["removed"])')" '["agentmemory", "notes"]'
  assert_eq "$(json_get "$(STATE)" 'list(d["servers"])')" '["github"]'
  mcph reset --all
  assert_eq "$OUT" "reset github"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]')" '{}'
}

case_dry_run_writes_nothing() {
  seed_three
  local before; before=$(cat "$(STATE)")
  mcph reset --all --dry-run
  assert_eq "$RC" 0
  assert_contains "$OUT" "would reset agentmemory"
  assert_eq "$(cat "$(STATE)")" "$before"
}

case_a_typo_is_an_error_and_a_name_forgotten_already_a_note() {
  seed_three
  local before; before=$(cat "$(STATE)")
  # A name never cached, nor configured, is a typo: said with the name meant, nothing reset, exit 2.
  mcph reset agentmem
  assert_eq "$RC" 2
  assert_contains "$ERR" "'agentmem' is not in"
  assert_contains "$ERR" "(did you mean agentmemory?)"
  assert_contains "$ERR" "cached: agentmemory, github, notes (nor was it ever: nothing reset)"
  assert_eq "$(cat "$(STATE)")" "$before"
  mcph reset agentmem notes
  assert_eq "$RC" 2
  assert_eq "$(cat "$(STATE)")" "$before" "nothing reset beside a typo"
  # Scripts re-run reset: a name already gone is what they wanted, not a failure. The history remembers notes
  # (unhealthy, forgotten); a config defines github.
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"github\":$(stdio_def healthy)}}"
  mcph reset notes github
  assert_eq "$RC" 0
  assert_contains "$OUT" "reset github"
  assert_eq "$(json_get "$(STATE)" '"github" in d["servers"]')" false
  mcph reset notes
  assert_eq "$RC" 0 "running it twice is fine"
  assert_contains "$ERR" "(forgotten already: nothing to reset for it)"
  mcph reset github --json
  assert_eq "$RC" 0 "a configured name, running it twice"
  assert_eq "$(json_eval "$OUT" 'd["removed"]')" "[]"
  mcph reset github --strict
  assert_eq "$RC" 2
}

case_usage_errors() {
  seed_three
  mcph reset
  assert_eq "$RC" 2
  mcph reset github --all
  assert_eq "$RC" 2
}

case_list_prints_cached_names() {
  seed_three
  mcph reset --list
  assert_eq "$OUT" $'agentmemory\ngithub\nnotes'
}

case_nothing_to_reset() {
  mcph reset --unhealthy
  assert_eq "$RC" 0
  assert_contains "$OUT" "nothing to reset"
}

case_unwritable_state_is_an_error() {
  seed_three
  chmod 755 "$T" "$HOME" "$HOME/.claude"
  chmod 644 "$(STATE)"
  local rc=0
  setpriv --reuid=65534 --regid=65534 --clear-groups "$MCPHEALTH_BIN" --state "$(STATE)" reset github 2>"$T/err" >/dev/null || rc=$?
  assert_eq "$rc" 2
  # Another user's state file is not written (issue 54 item 5): it would become this user's, or be planted.
  assert_contains "$(cat "$T/err")" "is owned by uid 0, not this user; not writing the state there"
}

case_reset_racing_parallel_hooks_loses_no_update() {
  local servers="" i
  for i in $(seq 1 16); do servers+="${servers:+,}\"old$i\":{\"status\":\"unhealthy\"}"; done
  seed_state "{\"version\":1,\"servers\":{$servers}}"
  local pids=()
  for i in $(seq 1 16); do
    post_failure_payload "new$i" "$CLIENT_CLOSED" | "$MCPHEALTH_BIN" hook >/dev/null 2>&1 &
    pids+=($!)
    "$MCPHEALTH_BIN" reset "old$i" >/dev/null 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  assert_eq "$(json_get "$(STATE)" 'sorted(d["servers"]) == sorted("new%d" % i for i in range(1, 17))')" true \
    "every reset and every hook update landed"
}

main "$@"
