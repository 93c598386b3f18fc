#!/usr/bin/env bash
# The real Gemini CLI (from npm, pinned by scripts/test), driven offline by our fake model, with mcphealth's hooks
# registered by `mcphealth install --agent gemini`: a server that dies mid-session is blocked from the next call
# (the server never sees it), the model reads our reason, the next session starts knowing, and nothing is left
# running.
# Needs: GNU timeout
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/real_agent.sh"

# gemini_outage CUE: a session whose first turn calls echo ("one") on a healthy server, whose second starts the
# outage CUE and calls it ("two"), and whose third calls it again ("three"); hooks registered as a user would.
gemini_outage() {
  model_script "{\"turns\":[[$(gemini_call one)],{\"write\":[\"$T/cue\",\"$1\"],\"pause_ms\":700,\"calls\":[$(gemini_call two)]},[$(gemini_call three)]]}"
  start_model
  mcph install --agent gemini
  assert_eq "$RC" 0 "install --agent gemini: $ERR"
  gemini_session
}

# assert_third_blocked: the server never saw the third call, and the model read our reason for it.
assert_third_blocked() {
  assert_not_contains "$(calls_seen)" "three" "the third call reached the server"
  local results
  results=$(gemini_results)
  assert_contains "$(sed -n '1p' <<<"$results")" 'echo: one' "the first call's result"
  assert_contains "$(sed -n '$p' <<<"$results")" 'The MCP server \"svc\" has been down' "the model's text for the blocked call"
}

case_stdio_server_dying_during_a_call_is_blocked_from_the_next_call() {
  need_gemini
  gemini_svc_stdio
  gemini_outage die
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  # The server's own words, out of Gemini CLI's wrapper.
  assert_eq "$(entry_field svc lastError)" 'MCP error -32000: Connection closed'
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')"
  assert_third_blocked
  wait_for_quiet
}

case_http_server_stopped_mid_session_is_blocked_from_the_next_call() {
  need_gemini
  gemini_svc_http
  gemini_outage down
  assert_eq "$(entry_field svc status)" unhealthy
  assert_eq "$(entry_field svc lastFailureCode)" transport
  assert_third_blocked
  wait_for_quiet
}

case_the_next_session_starts_knowing_the_server_is_down() {
  need_gemini
  gemini_svc_stdio
  gemini_outage die
  # A second session: SessionStart's context reaches the model before the prompt.
  rm -f "$T/model.log"
  model_script '{"turns":[]}'
  gemini_session
  assert_contains "$(gemini_first_text)" 'MCP servers not available at the start of this session: "svc" is down'
  wait_for_quiet
}

case_a_healthy_session_is_allowed_and_recorded_under_its_own_binding() {
  need_gemini
  gemini_svc_stdio
  model_script "{\"turns\":[[$(gemini_call one)],[$(gemini_call two)]]}"
  start_model
  mcph install --agent gemini
  gemini_session
  assert_eq "$(calls_seen)" "$(printf 'one\ntwo')"
  assert_eq "$(entry_field svc status)" healthy
  assert_eq "$(json_get "$(BINDINGS)" "d['$PROJ (gemini)']['names']['svc']['definition'] is not None")" true
  wait_for_quiet
}

case_explain_config_reads_the_registration_and_the_servers() {
  need_gemini
  gemini_svc_stdio
  mcph explain-config --agent gemini --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['BeforeTool']")" false
  mcph install --agent gemini
  mcph explain-config --agent gemini --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['BeforeTool']")" true
  assert_eq "$(json_eval "$OUT" "d['hooks']['events']['AfterTool']")" true
  assert_eq "$(json_eval "$OUT" "d['trusted']")" true
  assert_eq "$(json_eval "$OUT" "[s['name'] for s in d['servers']]")" '["svc"]'
  # The same file under Claude Code registers nothing.
  mcph explain-config --json
  assert_eq "$(json_eval "$OUT" "d['hooks']['preToolUse']")" false
}

# started_env WHAT...: runs WHAT (a server's starter) in $PROJ with only the variables below, for the `envy` server
# of gemini_envy; prints the one start it made, as the server recorded it (argv, env, cwd), then forgets it.
started_env() {
  rm -f "$T/env.jsonl"
  (cd "$PROJ" && env -i PATH="$(dirname "$(command -v node)"):/usr/bin:/bin" HOME="$HOME" FIXDIR="$MCPHEALTH_FIXTURES" \
    NOTME=kept EMPTYV= GIT_CONFIG_COUNT=1 GEMINI_CLI_X=1 MY_API_TOKEN=t0k KEYBOARD=k SSH_AUTH_SOCK=/run/agent \
    CLIENT_ID=c SOME_URL=https://me:pw@example.test/ GH=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \
    JWT=eyJhbGciOi.eyJzdWIi.c2ln AWS_ID=AKIAABCDEFGHIJKLMNOP SLACK=xoxb-123-abc \
    STRIPE=sk_test_abcdefghijklmnopqrstuvwx "${EXTRA_ENV[@]}" "$@" >"$T/starter.out" 2>&1 </dev/null) ||
    fail "$1 failed: $(cat "$T/starter.out")"
  [ -s "$T/env.jsonl" ] || fail "$1 started no server: $(cat "$T/starter.out")"
  head -n 1 "$T/env.jsonl"
}

# gemini_envy: the user's settings define `envy`, a server that records how it was started, with variables in its
# args (a bare $VAR too) and env (a key Gemini CLI refuses, a secret taken from the environment, unset ones).
gemini_envy() {
  "$PY" - "$HOME/.gemini/settings.json" "$T/env.jsonl" <<'PYEOF'
import json, os, sys
env = {"NODE_OPTIONS": "--no-warnings", "FROM_TOKEN": "${MY_API_TOKEN}", "PLAIN": "$FIXDIR", "K1": "${NOPE}",
       "K2": "x$NOPE", "K3": "${EMPTYV:-dflt}"}
server = {"command": "python3", "args": ["$FIXDIR/stdio_server.py", "--env-file", sys.argv[2], "--message",
          "m${EMPTYV:-x}"], "env": env, "trust": True}
os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}}, "mcpServers": {"envy": server}}, open(sys.argv[1], "w"))
PYEOF
  write_config "$HOME/.gemini/trustedFolders.json" "{\"$PROJ\":\"TRUST_FOLDER\"}"
}

# same_start A B: A (Gemini CLI's start) and B (mcphealth's) hold the same argv, cwd and environment, but for what
# Gemini CLI sets in its own process (which a hook it runs would pass on too).
same_start() {
  "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
own = {"GEMINI_CLI_NO_RELAUNCH", "LC_CTYPE"}
a, b = (json.loads(x) for x in sys.argv[1:3])
for start in (a, b):
    start["env"] = {k: v for k, v in start["env"].items() if k not in own}
if a != b:
    print("gemini:", json.dumps(a, sort_keys=True))
    print("mcphealth:", json.dumps(b, sort_keys=True))
PYEOF
}

case_a_stdio_server_is_probed_with_the_environment_gemini_cli_gives_it() {
  need_gemini
  gemini_envy
  for EXTRA_ENV in "GITHUB_SHA=abc123" ""; do
    local theirs ours diff
    EXTRA_ENV=($EXTRA_ENV)
    theirs=$(started_env timeout 60 "$GEMINI_BIN" mcp list)
    assert_contains "$(cat "$T/starter.out")" "envy" "gemini mcp list"
    assert_contains "$(cat "$T/starter.out")" "Connected" "gemini mcp list connects to envy"
    # Room for a busy machine: this case is about what the server gets, not how fast it answers.
    ours=$(started_env "$MCPHEALTH_BIN" probe --agent gemini --all --no-update --timeout-ms 20000)
    assert_contains "$(cat "$T/starter.out")" "healthy" "mcphealth probe"
    diff=$(same_start "$theirs" "$ours")
    assert_eq "$diff" "" "the server's start under Gemini CLI and under mcphealth's probe (${EXTRA_ENV[*]:-no GITHUB_SHA})"
  done
  # What that means, spelled out: the secrets stay with Gemini CLI, the rest passes, $VAR is read, and an unset
  # variable in env is "".
  local env
  env=$(json_eval "$ours" "sorted(d['env'])")
  assert_not_contains "$env" '"MY_API_TOKEN"'
  assert_not_contains "$env" '"NODE_OPTIONS"'
  assert_contains "$env" '"NOTME"'
  assert_eq "$(json_eval "$ours" "d['env']['K1'] + '|' + d['env']['FROM_TOKEN'] + '|' + d['argv'][-1]")" "|t0k|m"
  assert_eq "$(json_eval "$ours" "d['argv'][0]")" "$MCPHEALTH_FIXTURES/stdio_server.py"
}

# A server slower than the `timeout` its settings give it: Gemini CLI 0.61.0 fails the call with
# "MCP error -32001: Request timed out" inside its wrapper, and would fail the next one too (the server is still busy
# with the call before). The client timed out, so it is an outage of its own kind and the next call is blocked
# (before, the words were read as the tool's own and the third call went out and timed out too).
case_a_call_slower_than_gemini_cli_waits_for_is_a_timeout() {
  need_gemini
  gemini_settings "{\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/cue\",\"--calls-file\",\"$T/calls\"],\"trust\":true,\"timeout\":1500}"
  gemini_outage "slow 4000"
  assert_eq "$(entry_field svc lastFailureCode)" timeout
  assert_eq "$(entry_field svc lastError)" 'MCP error -32001: Request timed out'
  assert_third_blocked
  wait_for_quiet
}

main "$@"
