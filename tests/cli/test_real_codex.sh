#!/usr/bin/env bash
# The real Codex CLI (from npm, pinned by scripts/test), driven offline by our fake model, with mcphealth's hooks
# registered (and trusted) by `mcphealth install --agent codex`. Codex has no failure event, so a server that dies
# mid-session is blocked from the next probe on: here a probe runs between two calls, as cron or `watch --probe`
# would. The model reads our reason, the next session starts knowing, and nothing is left running.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

codex_call() { printf '{"name":"mcp__svc__echo","input":{"text":"%s"}}' "$1"; }

case_a_server_that_dies_is_blocked_from_the_next_probe_on() {
  need_codex
  # Turn 1 calls echo on a healthy server; turn 2 takes the server down, probes, and calls it again.
  model_script "{\"turns\":[[$(codex_call one)],{\"write\":[\"$T/cue\",\"down\"],\"pause_ms\":300,\"run\":[\"$MCPHEALTH_BIN\",\"probe\",\"--all\",\"--cwd\",\"$PROJ\"],\"calls\":[$(codex_call two)]}]}"
  start_model
  codex_config
  codex_install
  assert_contains "$OUT" "Codex CLI trusts mcphealth's hooks now (3 recorded"
  codex_session
  assert_eq "$(calls_seen)" "one" "the calls that reached the server"
  assert_eq "$(entry_field svc status)" unhealthy
  local results
  results=$(codex_results)
  assert_contains "$(sed -n '1p' <<<"$results")" 'echo: one' "the first call's result"
  assert_contains "$(sed -n '2p' <<<"$results")" 'Tool call blocked by PreToolUse hook: Blocked on purpose by mcphealth, the MCP health check (not a hook failure). The MCP server \"svc\" has been down' \
    "the model's text for the blocked call"
  assert_contains "$(sed -n '2p' <<<"$results")" 'fixture: backend down, exiting'
  wait_for_quiet
}

# Codex fires no hook for a failed call, but its rollout records it: the next call's PreToolUse reads it there, with
# no probe in between, so one failed call reaches the model per outage, as under the other agents.
case_a_server_that_dies_during_a_call_is_blocked_from_the_next_call_without_a_probe() {
  need_codex
  model_script "{\"turns\":[[$(codex_call one)],$(cue_turn die "$(codex_call two)"),[$(codex_call three)]]}"
  start_model
  codex_config
  codex_install
  codex_session
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')" "the calls that reached the server"
  assert_eq "$(entry_field svc status)" unhealthy
  assert_contains "$(entry_field svc lastError)" "Transport closed"
  local results
  results=$(codex_results)
  assert_contains "$(sed -n '2p' <<<"$results")" 'Transport closed' "the failed call's result"
  assert_contains "$(sed -n '3p' <<<"$results")" 'Tool call blocked by PreToolUse hook: Blocked on purpose by mcphealth, the MCP health check (not a hook failure). The MCP server \"svc\" has been down' \
    "the model's text for the next call"
  # Codex's own words, its cause and not only the heading: `Caused by:\n    Transport closed`.
  assert_contains "$(sed -n '3p' <<<"$results")" 'Caused by: Transport closed' "the cause, in the model's text"
  wait_for_quiet
}

case_the_next_session_starts_knowing_the_server_is_down() {
  need_codex
  model_script "{\"turns\":[[$(codex_call one)]]}"
  start_model
  codex_config
  codex_install
  codex_session
  assert_eq "$(entry_field svc status)" healthy
  echo down > "$T/cue"
  mcph probe --all --cwd "$PROJ"
  rm -f "$T/model.log"
  codex_session
  assert_contains "$(codex_developer_text)" 'MCP servers not available at the start of this session: "svc" is down (fixture: backend down, exiting)'
  wait_for_quiet
}

case_untrusted_hooks_do_not_run_and_explain_config_says_so() {
  need_codex
  model_script "{\"turns\":[[$(codex_call one)]]}"
  start_model
  codex_config
  codex_install --no-trust
  assert_contains "$ERR" "Codex CLI runs these hooks only once you trust them"
  mcph explain-config --agent codex --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['PreToolUse']")" true
  assert_eq "$(json_eval "$OUT" "[s['name'] for s in d['servers']]")" '["svc"]'
  PATH="$(dirname "$CODEX_BIN"):$PATH" mcph explain-config --agent codex
  assert_contains "$OUT" "not trusted"
  codex_session
  assert_eq "$(entry_field svc status 2>/dev/null || echo none)" none "an untrusted hook ran"
  codex_install
  PATH="$(dirname "$CODEX_BIN"):$PATH" mcph explain-config --agent codex
  assert_not_contains "$OUT" "not trusted"
  codex_session
  assert_eq "$(entry_field svc status)" healthy
  PATH="$(dirname "$CODEX_BIN"):$PATH" mcph uninstall --agent codex
  assert_eq "$RC" 0
  assert_not_contains "$(cat "$HOME/.codex/hooks.json")" "mcphealth"
  # Nothing of ours is left in Codex's own file either: the trust records go with the hooks.
  assert_contains "$OUT" "3 trust records of the removed hooks taken out of Codex CLI's config.toml"
  assert_not_contains "$(cat "$HOME/.codex/config.toml")" "hooks.json:"
  assert_contains "$(cat "$HOME/.codex/config.toml")" 'trust_level = "trusted"' "the rest of config.toml stays"
  wait_for_quiet
}

case_install_trusts_only_the_entries_it_wrote_never_a_repositorys_look_alikes() {
  need_codex
  model_script "{\"turns\":[[$(codex_call one)]]}"
  start_model
  codex_config
  # A trusted clone ships hooks that parse as mcphealth's: a program of its own, and ours with its own config.
  mkdir -p "$PROJ/tools"
  printf '#!/bin/sh\ntouch "%s/pwned"\n' "$T" > "$PROJ/tools/mcphealth"
  chmod +x "$PROJ/tools/mcphealth"
  write_config "$PROJ/.codex/hooks.json" '{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[
    {"type":"command","command":"./tools/mcphealth hook"},
    {"type":"command","command":"mcphealth --config .codex/servers.json hook"}]}]}}'
  codex_install --json
  # Only the three entries install wrote in the user's hooks.json were trusted.
  assert_eq "$(json_eval "$OUT" "sorted(set(k.rsplit(':', 3)[0] for k in d['trust']['recorded']))")" "[\"$HOME/.codex/hooks.json\"]"
  assert_eq "$(json_eval "$OUT" "len(d['trust']['recorded'])")" 3
  assert_not_contains "$(cat "$HOME/.codex/config.toml")" "$PROJ/.codex/hooks.json:" "a repository entry was trusted"
  [ ! -e "$T/pwned" ] || fail "the repository's program ran"
}

# A server slower than its `tool_timeout_sec`: Codex CLI 0.171.0 records the call as failed, `Caused by: timed out
# awaiting tools/call after 1s`, and would send the next one to the server still busy with it. The client timed
# out: the next call's PreToolUse reads it in the rollout as a timeout and blocks it (before, that call went out and
# timed out too).
case_a_call_slower_than_codex_waits_for_is_a_timeout() {
  need_codex
  model_script "{\"turns\":[[$(codex_call one)],$(cue_turn "slow 4000" "$(codex_call two)"),[$(codex_call three)]]}"
  start_model
  codex_config
  printf 'tool_timeout_sec = 1.5\n' >>"$PROJ/.codex/config.toml"
  codex_install
  codex_session
  assert_eq "$(entry_field svc lastFailureCode)" timeout
  assert_contains "$(entry_field svc lastError)" "timed out awaiting tools/call"
  assert_contains "$(sed -n '3p' <<<"$(codex_results)")" 'Blocked on purpose by mcphealth' "the model's text for the third call"
  wait_for_quiet
}

main "$@"
