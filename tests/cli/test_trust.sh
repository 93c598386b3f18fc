#!/usr/bin/env bash
# The servers Claude Code runs, and nothing else: approvals, /mcp disable, plugins, names as tool names spell them,
# unset variables, one verdict per definition, and {server} that no name can break out of.
source "$(dirname "$0")/lib.sh"

# json_file PATH PYTHON-EXPR: writes the value of a Python expression as JSON (T, PROJ, HOME, PY, STDIO are bound).
json_file() {
  mkdir -p "$(dirname "$1")"
  T="$T" PROJ="$PROJ" STDIO="$STDIO_SERVER" "$PY" - "$1" "$2" <<'PYEOF'
import json, os, sys
T, PROJ, HOME, STDIO = os.environ["T"], os.environ["PROJ"], os.environ["HOME"], os.environ["STDIO"]
PY = sys.executable
def fixture(mode, *extra):
    return {"command": PY, "args": [STDIO, "--mode", mode, *extra]}
json.dump(eval(sys.argv[2]), open(sys.argv[1], "w"))
PYEOF
}

# no_approvals: the user has approved no project server (the harness approves them all by default).
no_approvals() { write_config "$HOME/.claude/settings.json" '{}'; }

# A definition whose start leaves a marker file: proof that it was (or was never) run.
marker_def() { printf '{"command":"/bin/sh","args":["-c","touch %s/ran-%s; exit 1"]}' "$T" "$1"; }

case_two_projects_keep_two_verdicts_and_alternating_costs_two_probes() {
  mkdir -p "$T/a" "$T/b"
  json_file "$T/a/.mcp.json" '{"mcpServers": {"dup": fixture("healthy", "--count-file", T + "/count")}}'
  json_file "$T/b/.mcp.json" '{"mcpServers": {"dup": fixture("crash", "--count-file", T + "/count", "--message", "b is broken")}}'
  local i
  for i in $(seq 1 10); do
    hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__dup__x\",\"cwd\":\"$T/a\"}" --output exit-code
    assert_eq "$RC" 0 "project a's dup is healthy (round $i)"
    hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__dup__x\",\"cwd\":\"$T/b\"}" --output exit-code
    assert_eq "$RC" 2 "project b's dup is down (round $i)"
  done
  assert_eq "$(line_count "$T/count")" 2 "probes for 20 alternating calls"
  assert_eq "$(json_get "$(STATE_ALL)" 'sorted(v["status"] for v in d["definitions"].values())')" '["healthy", "unhealthy"]'
  assert_eq "$(json_get "$(STATE_ALL)" 'sorted(v["project"] for v in d["definitions"].values())')" "[\"$T/a\", \"$T/b\"]"
}

case_unapproved_project_server_never_runs_and_the_user_server_is_probed() {
  no_approvals
  json_file "$HOME/.claude.json" '{"mcpServers": {"github": fixture("healthy", "--count-file", T + "/user-count")}}'
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"github\":$(marker_def github),\"extra\":$(marker_def extra)}}"
  hook "$(pre_payload github)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$(line_count "$T/user-count")" 1 "the user's own github was probed"
  assert_no_file "$T/ran-github"
  hook "$(pre_payload extra)"
  assert_eq "$OUT" ""
  assert_contains "$ERR" "extra is not checked: not approved"
  assert_no_file "$T/ran-extra"
  mcph probe --all --json
  assert_no_file "$T/ran-github"
  assert_no_file "$T/ran-extra"
  assert_eq "$(json_eval "$OUT" '[(s["name"], s["scope"]) for s in d["servers"]]')" '[["github", "user"]]'
}

# sourced_payload SERVER SOURCE: a PreToolUse as Claude Code 2.1.290 and later sends it, naming the definition.
sourced_payload() {
  printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__%s__echo","tool_input":{},"cwd":"%s","mcp_server":{"name":"%s","source":"%s"}}' \
    "$1" "$PROJ" "$1" "$2"
}

# The user's svc cannot start; the project's, still pending approval, is healthy, and `claude -p` runs it. The
# payload's mcp_server.source says which one a call goes to: the project's is probed, and the user's verdict blocks
# only the user's calls.
case_the_clients_source_picks_the_definition_it_runs() {
  no_approvals
  json_file "$HOME/.claude.json" '{"mcpServers": {"svc": fixture("crash", "--count-file", T + "/user-count")}}'
  json_file "$PROJ/.mcp.json" '{"mcpServers": {"svc": fixture("healthy", "--count-file", T + "/project-count")}}'
  hook "$(sourced_payload svc project)"
  assert_eq "$OUT" "" "the project's healthy svc is allowed"
  assert_eq "$(line_count "$T/project-count")" 1 "the project's svc was probed"
  assert_no_file "$T/user-count"
  assert_eq "$(entry_field svc source)" "$PROJ/.mcp.json"
  hook "$(sourced_payload svc user)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "the user's svc is down"
  assert_eq "$(line_count "$T/user-count")" 1
  # Both are cache hits now, each by its own binding.
  hook "$(sourced_payload svc project)" -v
  assert_eq "$OUT" ""
  assert_contains "$ERR" "bindings current; svc is definition"
  hook "$(sourced_payload svc user)" -v
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$ERR" "bindings current; svc is definition"
  assert_eq "$(line_count "$T/project-count")" 1
  assert_eq "$(line_count "$T/user-count")" 1
  # Without the client's word, today's rules: the project's svc is pending, so the call is the user's.
  hook "$(pre_payload svc echo)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
}

# A server the client was given itself (`--mcp-config`, the Agent SDK's mcpServers: source "dynamic") that
# mcphealth cannot see is not judged by the verdict of a definition of the same name it can see.
case_a_dynamic_server_is_not_judged_by_another_definitions_verdict() {
  json_file "$HOME/.claude.json" '{"mcpServers": {"svc": fixture("crash")}}'
  hook "$(pre_payload svc echo)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "the user's svc is down"
  hook "$(sourced_payload svc dynamic)"
  assert_eq "$OUT" "" "the dynamic svc is allowed"
  assert_contains "$ERR" "svc is not checked: the client runs it from its dynamic servers"
  # A word mcphealth does not know leaves today's rules.
  hook "$(sourced_payload svc claudeai)" -v
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$ERR" "a word mcphealth does not map here"
}

case_each_approval_key_approves() {
  no_approvals
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"p\":$(marker_def p)}}"
  hook "$(pre_payload p)"
  assert_no_file "$T/ran-p"
  # In the user's settings.
  write_config "$HOME/.claude/settings.json" '{"enableAllProjectMcpServers":true}'
  hook "$(pre_payload p)"
  assert_file_exists "$T/ran-p"
  rm -f "$T/ran-p"; forget_state
  # In ~/.claude.json's entry for the folder, by name.
  no_approvals
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"enabledMcpjsonServers\":[\"p\"]}}}"
  hook "$(pre_payload p)"
  assert_no_file "$T/ran-p" # Claude Code 2.1.332 takes this record only in a folder the user trusted
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"enabledMcpjsonServers\":[\"p\"],\"hasTrustDialogAccepted\":true}}}"
  hook "$(pre_payload p)"
  assert_file_exists "$T/ran-p"
  rm -f "$T/ran-p"; forget_state
  # In the project's own settings: only once the folder is trusted.
  write_config "$HOME/.claude.json" '{}'
  write_config "$PROJ/.claude/settings.local.json" '{"enabledMcpjsonServers":["p"]}'
  hook "$(pre_payload p)"
  assert_no_file "$T/ran-p"
  assert_contains "$ERR" "the folder is not trusted"
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"hasTrustDialogAccepted\":true}}}"
  hook "$(pre_payload p)"
  assert_file_exists "$T/ran-p"
  rm -f "$T/ran-p"; forget_state
  # A rejection wins over any approval.
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"hasTrustDialogAccepted\":true,\"disabledMcpjsonServers\":[\"p\"]}}}"
  hook "$(pre_payload p)"
  assert_no_file "$T/ran-p"
  assert_contains "$ERR" "rejected"
}

case_server_disabled_with_mcp_is_not_probed() {
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"disabledMcpServers\":[\"off\"]}},\"mcpServers\":{\"off\":$(marker_def off)}}"
  hook "$(pre_payload off)"
  assert_eq "$OUT" ""
  assert_contains "$ERR" "off is not checked: disabled with /mcp"
  assert_no_file "$T/ran-off"
  mcph explain-config off --json
  assert_eq "$(json_eval "$OUT" '[(s["name"], s["standing"]) for s in d["notChecked"]]')" '[["off", "disabled"]]'
}

# The plugin's layout: installed_plugins.json names its folder; plugin.json defines a server under ${CLAUDE_PLUGIN_ROOT}.
install_plugin() {
  local root="$T/plugins/mem"
  mkdir -p "$root/.claude-plugin"
  cp "$STDIO_SERVER" "$root/server.py"
  json_file "$HOME/.claude/plugins/installed_plugins.json" \
    '{"version": 2, "plugins": {"claude-mem@market": [{"scope": "user", "installPath": T + "/plugins/mem", "version": "1.0.0"}]}}'
  json_file "$root/.claude-plugin/plugin.json" \
    '{"name": "claude-mem", "mcpServers": {"mcp-search": {"command": PY, "args": ["${CLAUDE_PLUGIN_ROOT}/server.py", "--mode", "'"$1"'", "--count-file", T + "/plugin-count", "--message", "plugin down"]}}}'
}

case_plugin_server_is_probed_and_blocked_when_it_crashes() {
  install_plugin crash
  hook "$(pre_payload plugin_claude-mem_mcp-search search)"
  assert_contains "$ERR" "plugin_claude-mem_mcp-search is not checked: plugin claude-mem@market is installed but not enabled"
  assert_eq "$(line_count "$T/plugin-count")" 0
  write_config "$HOME/.claude/settings.json" '{"enableAllProjectMcpServers":true,"enabledPlugins":{"claude-mem@market":true}}'
  hook "$(pre_payload plugin_claude-mem_mcp-search search)" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "plugin_claude-mem_mcp-search is unavailable (plugin down)"
  assert_eq "$(line_count "$T/plugin-count")" 1
  assert_eq "$(json_get "$(STATE)" 'd["servers"]["plugin_claude-mem_mcp-search"]["scope"]')" plugin
}

case_plugin_server_healthy_is_allowed() {
  install_plugin healthy
  write_config "$HOME/.claude/settings.json" '{"enabledPlugins":{"claude-mem@market":true}}'
  hook "$(pre_payload plugin_claude-mem_mcp-search search)" --output exit-code
  assert_eq "$RC" 0
  assert_eq "$ERR" ""
  assert_eq "$(line_count "$T/plugin-count")" 1
}

case_dotted_and_spaced_names_match_their_tool_names() {
  json_file "$HOME/.claude.json" '{"mcpServers": {"my.svc": fixture("crash", "--message", "dotted down"), "claude.ai Gmail": fixture("crash", "--message", "spaced down")}}'
  hook "$(pre_payload my_svc)" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "(dotted down)"
  hook "$(pre_payload claude_ai_Gmail)" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "(spaced down)"
}

# Claude Code 2.1.197 starts a definition with an unset ${VAR} with the literal text (it only warns): so does the
# probe, and a failure then is "misconfigured", with the variable named.
case_unset_variable_is_started_literally_and_misconfigured_when_it_fails() {
  json_file "$HOME/.claude.json" '{"mcpServers": {"keyed": {"command": PY, "args": [STDIO, "--mode", "flag", "--flag-file", T + "/${API_KEY}", "--count-file", T + "/count"], "env": {"API_KEY": "${API_KEY}"}}}}'
  hook "$(pre_payload keyed)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$ERR" "keyed is misconfigured: \${API_KEY} is not set (fixture crashed"
  assert_contains "$(json_eval "$OUT" 'd["hookSpecificOutput"]["permissionDecisionReason"]')" "tell the user to set API_KEY"
  assert_eq "$(line_count "$T/count")" 1 "started, as Claude Code starts it"
  # From the cache, the model keeps the specific guidance (set the variable), not "has been down".
  hook "$(pre_payload keyed)"
  assert_contains "$(json_eval "$OUT" 'd["hookSpecificOutput"]["permissionDecisionReason"]')" "tell the user to set API_KEY"
  assert_eq "$(line_count "$T/count")" 1 "the cache decided"
  mcph probe keyed --json
  assert_eq "$RC" 1 "down for probe's exit code"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["status"]')" misconfigured
  mcph status --json
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" '[r["status"] for r in d["servers"]]')" '["misconfigured"]' "its own state in status"
  assert_contains "$(json_eval "$OUT" '[r["entry"]["lastError"] for r in d["servers"]]')" "misconfigured: \${API_KEY} is not set"
  # It does not come back by waiting: the table says when it is checked again, not when it is "retried".
  mcph status --wide
  assert_contains "$OUT" "recheck in "
  assert_contains "$OUT" ", fix first"
  assert_not_contains "$OUT" "retry in"
  mcph explain-config --json
  assert_eq "$(json_eval "$OUT" '[f["severity"] for f in d["findings"] if f["id"] == "unset-variable"]')" '["warning"]'
  # Set it (as the next session would): the stamp changes, the definition is probed, and it answers.
  export API_KEY=k
  touch "$T/k"
  hook "$(pre_payload keyed)"
  assert_eq "$OUT" ""
  assert_eq "$(line_count "$T/count")" 3
}

case_probe_all_from_home_covers_every_project() {
  mkdir -p "$T/a" "$T/b"
  json_file "$HOME/.claude.json" '{"projects": {T + "/a": {"mcpServers": {"dup": fixture("healthy")}}, T + "/b": {"mcpServers": {"dup": fixture("crash")}}}, "mcpServers": {"everywhere": fixture("healthy")}}'
  cd "$HOME"
  mcph probe --all --json
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" 'sorted((s["name"], s["project"] or "-", s["status"]) for s in d["servers"])')" \
    "[[\"dup\", \"$T/a\", \"healthy\"], [\"dup\", \"$T/b\", \"unhealthy\"], [\"everywhere\", \"-\", \"healthy\"]]"
  # The hooks in both projects now hit the cache: a second probe is not needed there.
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__dup__x\",\"cwd\":\"$T/a\"}" --output exit-code
  assert_eq "$RC" 0
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__dup__x\",\"cwd\":\"$T/b\"}" --output exit-code
  assert_eq "$RC" 2
  assert_contains "$ERR" "dup is marked unhealthy until"
  mcph probe --all --project "$T/a" --json
  assert_eq "$(json_eval "$OUT" 'sorted(s["name"] for s in d["servers"])')" '["dup", "everywhere"]'
  # status from $HOME never calls a definition that some project still has "gone".
  mcph status
  assert_not_contains "$ERR" "no longer defined"
}

# {server} in every quoting context, for names that try to break out; the name must arrive intact and run nothing.
# A name is a repository's choice (its .mcp.json): one that is not made of [A-Za-z0-9._-] never reaches a reconnect
# command, in any quoting, nor through a shell the command starts itself (`sh -c "echo {server}"` ran `a;touch PWN;b`).
case_server_placeholder_cannot_be_broken_out_of() {
  export ECC_MCP_HEALTH_TIMEOUT_MS=5000 # the crash fixture exits at once; a loaded machine must not see it "alive"
  local names=('a$(touch pwned1)b' 'a`touch pwned2`b' "a'b\"c" 'a b;touch pwned3' 'x"; touch pwned4; echo "' 'a;touch pwned5;b')
  local n i=0
  for n in "${names[@]}"; do
    i=$((i + 1))
    NAME="$n" json_file "$HOME/.claude.json" '{"mcpServers": {os.environ["NAME"]: fixture("crash")}}'
    local form
    for form in "printf '%s' {server} > $T/got" "printf '%s' \"{server}\" > $T/got" "printf '%s' '{server}' > $T/got" \
                "sh -c \"echo {server}\" > $T/got"; do
      rm -f "$T/got"
      export ECC_MCP_RECONNECT_COMMAND="$form"
      mcph probe "$n" --reconnect --no-update
      assert_no_file "$T/got"
      assert_contains "$OUT$ERR" "holds a character a shell reads" "name $i in: $form"
    done
  done
  local f
  for f in pwned1 pwned2 pwned3 pwned4 pwned5 PWN; do assert_no_file "$PROJ/$f"; assert_no_file "$HOME/$f"; done
  # A plain name reaches the command whole.
  json_file "$HOME/.claude.json" '{"mcpServers": {"svc.v2-a_b": fixture("crash")}}'
  export ECC_MCP_RECONNECT_COMMAND="sh -c \"echo {server}\" > $T/got"
  mcph probe svc.v2-a_b --reconnect --no-update
  assert_eq "$(cat "$T/got")" "svc.v2-a_b"
}

case_placeholder_is_safe_in_the_hook_too() {
  export ECC_MCP_HEALTH_TIMEOUT_MS=5000
  json_file "$HOME/.claude.json" '{"mcpServers": {"a`touch pwned`b": fixture("crash")}}'
  export ECC_MCP_RECONNECT_COMMAND="echo \"{server}\" > $T/got"
  hook "$(pre_payload 'a_touch_pwned_b')"
  assert_no_file "$T/got"
  assert_contains "$ERR" "holds a character a shell reads"
  assert_no_file "$PROJ/pwned"
}

# Waits (at most 10 s) for the refreshes a SessionStart started to end.
wait_for_refreshes() {
  for _ in $(seq 1 100); do
    pgrep -f -- "$MCPHEALTH_BIN refresh" >/dev/null || return 0
    sleep 0.1
  done
}

# Claude Code (2.1.197 and 2.1.332, `claude mcp list`) starts neither of these; nor may mcphealth, by any path.
case_a_parents_local_server_never_runs_in_a_clone_below_it() {
  mkdir -p "$T/work/clone/.git" "$T/work/sub"
  # The server writes down the folder it was started in.
  local where="{\"command\":\"/bin/sh\",\"args\":[\"-c\",\"pwd >> $T/ran-loc; exit 1\"]}"
  write_config "$HOME/.claude.json" "{\"projects\":{\"$T/work\":{\"hasTrustDialogAccepted\":true,\"mcpServers\":{\"loc\":$where}}}}"
  local folder
  for folder in "$T/work/clone" "$T/work/sub"; do
    hook "{\"hook_event_name\":\"SessionStart\",\"source\":\"startup\",\"cwd\":\"$folder\"}"
    hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__loc__x\",\"cwd\":\"$folder\"}"
    (cd "$folder" && mcph probe --all)
  done
  wait_for_refreshes
  # probe --all covers every folder Claude Code knows: loc ran, but only in the folder whose server it is.
  assert_eq "$(sort -u "$T/ran-loc")" "$T/work"
}

case_trust_on_an_ancestor_does_not_let_a_clone_approve_its_own_servers() {
  mkdir -p "$HOME/src/evil/.git"
  write_config "$HOME/.claude.json" "{\"projects\":{\"$HOME\":{\"hasTrustDialogAccepted\":true}}}"
  no_approvals
  write_config "$HOME/src/evil/.claude/settings.json" '{"enableAllProjectMcpServers":true}'
  write_config "$HOME/src/evil/.mcp.json" "{\"mcpServers\":{\"evil\":$(marker_def evil)}}"
  hook "{\"hook_event_name\":\"SessionStart\",\"source\":\"startup\",\"cwd\":\"$HOME/src/evil\"}"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__evil__x\",\"cwd\":\"$HOME/src/evil\"}"
  (cd "$HOME/src/evil" && mcph probe --all)
  (cd "$HOME" && mcph probe --all)
  wait_for_refreshes
  assert_no_file "$T/ran-evil"
}

main "$@"
