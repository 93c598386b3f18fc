#!/usr/bin/env bash
# The real Qwen Code (from npm, pinned by scripts/test), driven offline by our fake model's chat completions, with
# mcphealth's hooks registered by `mcphealth install --agent qwen`: a healthy call, then a server that dies
# mid-session is blocked from the next call with our reason; a project's own server is checked from its session.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# qwen_outage FILE CUE: svc defined in settings FILE; turn 1 calls it healthy ("one"), turn 2 starts the outage CUE
# and calls it ("two"), turn 3 calls it again ("three"), which must not reach it.
qwen_outage() {
  qwen_settings "$1" "{\"svc\":$(qwen_svc_def)}"
  [ "$1" = "$HOME/.qwen/settings.json" ] || qwen_settings "$HOME/.qwen/settings.json" '{}'
  model_script "{\"turns\":[[$(echo_call one)],$(cue_turn "$2" "$(echo_call two)"),[$(echo_call three)]]}"
  start_model
  mcph install --agent qwen
  assert_eq "$RC" 0 "install"
  qwen_session
  local results
  results=$(copilot_results) # chat completions: the tool messages of the last request
  assert_contains "$results" "echo: one" "the healthy call's result"
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')" "the calls that reached the server"
  assert_contains "$(sed -n '$p' <<<"$results")" 'Blocked on purpose by mcphealth, the MCP health check (not a hook failure). The MCP server \"svc\" has been down' \
    "the model's text for the blocked call"
  assert_eq "$(entry_field svc status)" unhealthy
}

# A server that answers every call with an error saying it is unavailable: Qwen Code calls it again, we block.
# A JSON-RPC error is the server answering: Qwen Code passes its message alone, and those words ("temporarily
# unavailable") are the tool's own, so the server is asked, answers, and the next call reaches it.
case_a_servers_error_words_do_not_block_it() {
  need_qwen
  qwen_settings "$HOME/.qwen/settings.json" "{\"svc\":$(qwen_svc_def)}"
  # One such error, then the server answers again (two in a row would be an upstream outage: issue 52 item 4).
  model_script "{\"turns\":[[$(echo_call one)],$(cue_turn "rpc-error database temporarily unavailable" "$(echo_call two)"),$(cue_turn ok "$(echo_call three)")]}"
  start_model
  mcph install --agent qwen
  assert_eq "$RC" 0 "install"
  qwen_session
  assert_contains "$(calls_seen)" "three" "a server that answers was blocked for its tool's words"
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"].get("svc", {}).get("status")')" unhealthy
  wait_for_quiet
}

# Qwen Code starts a project's own servers with no trust step, in a session there: so does its hook.
case_a_projects_server_is_checked_from_its_session() {
  need_qwen
  # A server that dies during a call: Qwen Code's own words for it (no "Connection closed"), and it restarts the
  # server for the next call, which we block.
  qwen_outage "$PROJ/.qwen/settings.json" die
  assert_eq "$(entry_field svc scope)" project
  # Outside a session nothing says Qwen Code runs there: probe starts nothing the repository defines.
  mcph probe --all --agent qwen --cwd "$PROJ" --json
  assert_eq "$RC" 2
  assert_contains "$ERR" "no MCP servers that the agents would start were found"
  wait_for_quiet
}

# Qwen Code renames `my.svc`'s tools (`mcp__my_svc__echo_1mvuuwo`, a hash of the name as configured), so they are
# not `my_svc`'s (`mcp__my_svc__echo`): when one dies, the other, healthy, is still called.
case_a_renamed_server_is_not_the_server_whose_name_it_was_renamed_to() {
  need_qwen
  local other
  other=$(printf '{"command":"%s","args":["%s","stdio","--cue-file","%s","--calls-file","%s"],"trust":true}' \
    "$PY" "$SESSION_SERVER" "$T/cue-other" "$T/calls-other")
  qwen_settings "$HOME/.qwen/settings.json" "{\"my_svc\":$other,\"my.svc\":$(qwen_svc_def)}"
  local renamed='{"name":"mcp__my_svc__echo_1mvuuwo","input":{"text":"%s"}}' plain='{"name":"mcp__my_svc__echo","input":{"text":"%s"}}'
  # shellcheck disable=SC2059
  model_script "{\"turns\":[[$(printf "$renamed" one),$(printf "$plain" a1)],$(cue_turn die "$(printf "$renamed" two)"),[$(printf "$plain" a2)],[$(printf "$renamed" three)]]}"
  start_model
  mcph install --agent qwen
  assert_eq "$RC" 0 "install"
  qwen_session
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')" "the calls that reached the renamed server"
  assert_eq "$("$PY" -c 'import json,sys; [print(json.loads(l).get("text","")) for l in open(sys.argv[1])]' "$T/calls-other")" \
    "$(printf 'a1\na2')" "the calls that reached the other server: its healthy call was blocked"
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["my.svc"]["status"]')" unhealthy
  assert_not_contains "$(json_get "$(STATE)" 'd["servers"].get("my_svc", {}).get("status")')" unhealthy
  wait_for_quiet
}

# A server slower than the `timeout` its settings give it: Qwen Code 0.24.4 fails the call with the MCP SDK's words
# alone ("Request timed out"), and would fail the next one too. The call timed out in the client, so it is an
# outage of its own kind, and the next call is blocked (before, the words were read as a tool's own, the server
# answered its handshake, and the third call reached it and timed out again).
case_a_call_slower_than_qwen_code_waits_for_is_a_timeout() {
  need_qwen
  local def
  def=$(qwen_svc_def)
  qwen_settings "$HOME/.qwen/settings.json" "{\"svc\":${def%\}},\"timeout\":1500}}"
  model_script "{\"turns\":[[$(echo_call one)],$(cue_turn "slow 4000" "$(echo_call two)"),[$(echo_call three)]]}"
  start_model
  mcph install --agent qwen
  assert_eq "$RC" 0 "install"
  qwen_session
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')" "the third call never reached the slow server"
  assert_eq "$(entry_field svc lastFailureCode)" timeout
  assert_contains "$(sed -n '$p' <<<"$(copilot_results)")" 'Blocked on purpose by mcphealth' "the model's text for the blocked call"
  wait_for_quiet
}

main "$@"
