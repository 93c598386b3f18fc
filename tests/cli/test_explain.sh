#!/usr/bin/env bash
# `mcphealth explain-config`: files, servers, settings, findings with severities, exit codes, and no secret values.
source "$(dirname "$0")/lib.sh"

# register_hooks: a ~/.claude/settings.json that runs mcphealth on both events, so that finding is out of the way;
# the project's servers stay approved.
register_hooks() {
  "$MCPHEALTH_BIN" explain-config --hook-snippet |
    "$PY" -c 'import json,sys; d=json.load(sys.stdin); d["enableAllProjectMcpServers"]=True; print(json.dumps(d))' \
      >"$HOME/.claude/settings.json"
}
finding() { json_eval "$OUT" "[f['severity'] for f in d['findings'] if f['id'] == '$1']"; }

case_clean_setup_exits_0() {
  register_hooks
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"tools":{"command":"true"}}}'
  mcph explain-config --json
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" 'd["findings"]')" "[]"
  assert_eq "$(json_eval "$OUT" 'd["hooks"]["preToolUse"] and d["hooks"]["postToolUseFailure"]')" true
  mcph explain-config
  assert_contains "$OUT" "none: all clear"
}

case_advice_names_the_agent_asked_about() {
  # explain-config --agent gemini in a folder with no servers speaks of Gemini CLI, not Claude Code's commands.
  mcph explain-config --agent gemini
  assert_contains "$OUT$ERR" "Gemini CLI would start no MCP server in this folder"
  assert_not_contains "$OUT$ERR" "claude mcp add"
  mcph explain-config
  assert_contains "$OUT$ERR" "Claude Code would start no MCP server in this folder"
  assert_contains "$OUT$ERR" "claude mcp add"
}

case_files_are_listed_in_search_order_with_status() {
  register_hooks
  write_config "$PROJ/.mcp.json" $'{\n  "mcpServers": {\n    "a": {"command": "true"},,\n  }\n}'
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"mcpServers\":{\"b\":{\"command\":\"true\"}}}}}"
  mcph explain-config --json
  assert_eq "$RC" 1 "a parse error is an error finding"
  assert_eq "$(json_eval "$OUT" '[f["scope"] for f in d["files"]]')" '["local", "project", "user"]'
  assert_eq "$(json_eval "$OUT" 'd["files"][0]["servers"]')" '["b"]'
  assert_eq "$(json_eval "$OUT" 'd["files"][0]["projectKey"]')" "$PROJ"
  assert_contains "$(json_eval "$OUT" 'd["files"][1]["status"]')" "parse error at line 3"
  assert_eq "$(json_eval "$OUT" 'd["files"][1]["line"]')" 3
  assert_eq "$(json_eval "$OUT" 'd["files"][2]["servers"]')" '[]' "user scope: the same file, nothing at the top level"
  assert_eq "$(finding parse-error)" '["error"]'
}

case_server_details_never_show_values() {
  register_hooks
  export SET_ONE=visible-value-123
  write_config "$PROJ/.mcp.json" '{"mcpServers":{
    "local":{"command":"sh","args":["-c","x"],"env":{"API_KEY":"sk-secret-456","OTHER":"${SET_ONE}","MISSING":"${NOT_SET_HERE}"}},
    "remote":{"type":"http","url":"https://mcp.example/mcp","headers":{"Authorization":"Bearer tok-secret-789"}}}}'
  export ECC_MCP_RECONNECT_LOCAL="pm2 restart {server}"
  mcph explain-config --json
  local q='{s["name"]: s for s in d["servers"]}'
  assert_eq "$(json_eval "$OUT" "($q)['local']['kind']")" stdio
  assert_eq "$(json_eval "$OUT" "($q)['local']['envNames']")" '["API_KEY", "OTHER", "MISSING"]'
  assert_eq "$(json_eval "$OUT" "($q)['local']['unsetVariables']")" '["NOT_SET_HERE"]'
  assert_eq "$(json_eval "$OUT" "($q)['local']['resolvedCommand']")" "$(command -v sh)"
  assert_eq "$(json_eval "$OUT" "($q)['local']['reconnectVariable']")" ECC_MCP_RECONNECT_LOCAL
  assert_eq "$(json_eval "$OUT" "($q)['remote']['kind']")" http
  assert_eq "$(json_eval "$OUT" "($q)['remote']['headerNames']")" '["Authorization"]'
  assert_eq "$(finding unset-variable)" '["warning"]' "an unset variable: Claude Code starts the server with the literal text"
  assert_eq "$RC" 0 "a warning is not an error"
  mcph explain-config
  for secret in sk-secret-456 tok-secret-789 visible-value-123; do
    assert_not_contains "$OUT" "$secret" "a value was printed"
  done
  mcph explain-config --json
  for secret in sk-secret-456 tok-secret-789 visible-value-123; do
    assert_not_contains "$OUT" "$secret" "a value was printed in JSON"
  done
}

case_shadowed_definition_is_a_warning() {
  register_hooks
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"dup":{"command":"true"}}}'
  write_config "$HOME/.claude.json" '{"mcpServers":{"dup":{"command":"/opt/old server/run","args":["--port","8 1"]}}}'
  mcph explain-config dup --json
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["scope"]')" "project"
  assert_eq "$(json_eval "$OUT" '[s["scope"] for s in d["servers"][0]["shadowed"]]')" '["user"]'
  assert_eq "$(finding shadowed)" '["warning"]'
  # What the shadowed one would run, shell-quoted: which of two "dup"s is which is plain to see.
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["shadowed"][0]["target"]')" "'/opt/old server/run' '--port' '8 1'"
  mcph explain-config dup
  assert_contains "$OUT" "shadowed: $HOME/.claude.json (user), which would run '/opt/old server/run' '--port' '8 1'"
}

case_command_not_on_path_is_a_warning() {
  register_hooks
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"ghost":{"command":"no-such-mcp-binary"}}}'
  mcph explain-config --json
  assert_eq "$(finding command-not-found)" '["warning"]'
  assert_eq "$RC" 0
}

case_missing_config_path_file_is_an_error() {
  register_hooks
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"a":{"command":"true"}}}'
  export ECC_MCP_CONFIG_PATH="$T/typo.json"
  mcph explain-config --json
  assert_eq "$RC" 1
  assert_eq "$(finding config-path-missing)" '["error"]'
  assert_contains "$(json_eval "$OUT" '[f["message"] for f in d["findings"]]')" "ECC_MCP_CONFIG_PATH names $T/typo.json"
}

case_tilde_in_config_path_is_a_warning() {
  register_hooks
  write_config "$HOME/mcp.json" '{"mcpServers":{"a":{"command":"true"}}}'
  export ECC_MCP_CONFIG_PATH="~/mcp.json"
  mcph explain-config --json
  assert_eq "$(finding config-path-home)" '["warning"]'
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["name"]')" a
}

case_fail_open_is_an_error() {
  register_hooks
  export ECC_MCP_HEALTH_FAIL_OPEN=true
  mcph explain-config --json
  assert_eq "$RC" 1
  assert_eq "$(finding fail-open)" '["error"]'
}

case_unregistered_hook_is_an_error() {
  write_config "$HOME/.claude/settings.json" '{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"mcphealth hook"}]}],"PostToolUseFailure":[{"matcher":"Bash","hooks":[{"type":"command","command":"mcphealth hook"}]}]}}'
  mcph explain-config --json
  assert_eq "$RC" 1
  assert_eq "$(finding hook-not-registered)" '["error"]'
  assert_contains "$(json_eval "$OUT" '[f["message"] for f in d["findings"]]')" "on PostToolUseFailure for MCP tools"
}

case_js_hook_still_running_is_an_error() {
  write_config "$HOME/.claude/settings.json" '{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"mcphealth hook"},{"type":"command","command":"node ~/.claude/hooks/mcp-health-check.js"}]}],"PostToolUseFailure":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"mcphealth hook"}]}]}}'
  mcph explain-config --json
  assert_eq "$RC" 1
  assert_eq "$(finding js-hook)" '["error"]'
  write_config "$HOME/.claude/settings.json" "$("$MCPHEALTH_BIN" explain-config --hook-snippet | "$PY" -c 'import json,sys; d=json.load(sys.stdin); d["enabledPlugins"]={"everything-claude-code@marketplace": True}; print(json.dumps(d))')"
  mcph explain-config --json
  assert_eq "$(finding js-hook)" '["error"]'
}

case_settings_show_their_origin() {
  register_hooks
  unset ECC_MCP_HEALTH_TIMEOUT_MS
  export MCPHEALTH_TTL_MS=5000 ECC_MCP_HEALTH_STATE_PATH="$T/s.json"
  mcph --config "$T/c.json" explain-config --json
  local q='{s["name"]: s for s in d["settings"]}'
  assert_eq "$(json_eval "$OUT" "($q)['TTL']['value']")" "5000 ms"
  assert_eq "$(json_eval "$OUT" "($q)['TTL']['origin']")" "variable MCPHEALTH_TTL_MS"
  assert_eq "$(json_eval "$OUT" "($q)['state file']['value']")" "$T/s.json"
  assert_eq "$(json_eval "$OUT" "($q)['config files']['origin']")" "flag --config"
  assert_eq "$(json_eval "$OUT" "($q)['probe timeout']['origin']")" default
  # What each path waits: the hook its 5 s; probe, watch and refresh the client's own start-up timeout.
  assert_eq "$(json_eval "$OUT" "($q)['probe timeout']['value']")" "5000 ms (in a call's hook)"
  assert_eq "$(json_eval "$OUT" "($q)['probe timeout, no call waiting']['value']")" "30000 ms (probe, watch, refresh)"
  assert_eq "$(json_eval "$OUT" "($q)['probe timeout, no call waiting']['origin']")" "default (Claude Code's start-up timeout; no agent waits)"
  MCP_TIMEOUT=45000 mcph --config "$T/c.json" explain-config --json
  assert_eq "$(json_eval "$OUT" "($q)['probe timeout, no call waiting']['value']")" "45000 ms (probe, watch, refresh)"
  assert_contains "$(json_eval "$OUT" "($q)['probe timeout, no call waiting']['origin']")" "variable MCP_TIMEOUT"
  export MCPHEALTH_TIMEOUT_MS=7000
  mcph --config "$T/c.json" explain-config --json
  assert_eq "$(json_eval "$OUT" "($q)['probe timeout, no call waiting']['value']")" "7000 ms (probe, watch, refresh)"
  unset MCPHEALTH_TIMEOUT_MS
  for name in "backoff base" "backoff cap" "probe depth" "input limit" "output mode" "fail-open"; do
    assert_eq "$(json_eval "$OUT" "'$name' in ($q)")" true "$name listed"
  done
}

case_hook_snippet_is_valid_settings_json() {
  mcph explain-config --hook-snippet
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" 'sorted(d["hooks"])')" '["PostToolUse", "PostToolUseFailure", "PreToolUse", "SessionStart"]'
  assert_eq "$(json_eval "$OUT" '"matcher" in d["hooks"]["SessionStart"][0]')" false "SessionStart has no tool to match"
  assert_eq "$(json_eval "$OUT" 'd["hooks"]["PreToolUse"][0]["matcher"]')" 'mcp__.*'
  # The absolute path, as install writes it: the hook starts whatever PATH Claude Code has.
  assert_eq "$(json_eval "$OUT" 'd["hooks"]["PreToolUse"][0]["hooks"][0]["command"]')" "$MCPHEALTH_BIN hook --agent claude-code"
}

case_unknown_server_is_a_usage_error() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"a":{"command":"true"}}}'
  mcph explain-config zzz
  assert_eq "$RC" 2
  assert_contains "$ERR" "unknown server 'zzz'; known: a"
  mcph explain-config --no-such-flag
  assert_eq "$RC" 2
}

case_cwd_and_claude_project_dir_choose_the_project() {
  register_hooks
  mkdir -p "$T/p1" "$T/p2"
  write_config "$T/p1/.mcp.json" '{"mcpServers":{"one":{"command":"true"}}}'
  write_config "$T/p2/.mcp.json" '{"mcpServers":{"two":{"command":"true"}}}'
  export CLAUDE_PROJECT_DIR="$T/p1"
  mcph explain-config --json
  assert_eq "$(json_eval "$OUT" '[s["name"] for s in d["servers"]]')" '["one"]'
  mcph explain-config --json --cwd "$T/p2"
  assert_eq "$(json_eval "$OUT" '[s["name"] for s in d["servers"]]')" '["two"]'
}

case_trust_is_unknown_when_the_file_that_records_it_does_not_read() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{}}'
  printf '{"projects": {' > "$HOME/.claude.json"
  mcph explain-config
  assert_contains "$OUT" "trusted: unknown: ~/.claude.json does not read"
  assert_not_contains "$OUT" "trusted: no"
  rm "$HOME/.claude.json"
  mcph explain-config
  assert_contains "$OUT" "trusted: no"
}

case_a_gemini_server_in_an_untrusted_folder_is_fixed_by_trusting_the_folder() {
  mkdir -p "$HOME/.gemini"
  write_config "$PROJ/.gemini/settings.json" "{\"mcpServers\":{\"gem\":$(stdio_def healthy)}}"
  mcph explain-config --agent gemini
  assert_contains "$OUT" "does not trust"
  assert_contains "$OUT" "trust the folder: start \`gemini\` in it and accept the trust prompt, or add \"$PROJ\": \"TRUST_FOLDER\" to $HOME/.gemini/trustedFolders.json"
  assert_not_contains "$OUT" "move it to where"
  # The fix, as said, works.
  write_config "$HOME/.gemini/trustedFolders.json" "{\"$PROJ\":\"TRUST_FOLDER\"}"
  mcph explain-config --agent gemini
  assert_not_contains "$OUT" "does not trust"
}

case_an_opencode_entry_without_a_type_is_said_to_stop_the_whole_file() {
  # opencode 1.18.33 refuses such a file whole: "Configuration is invalid ... mcp.x".
  write_config "$PROJ/opencode.json" "{\"mcp\":{\"x\":{\"command\":[\"/bin/cat\"]}}}"
  mcph explain-config --agent opencode
  assert_contains "$OUT" "x in $PROJ/opencode.json (project) is not checked: it has no \"type\", so opencode refuses $PROJ/opencode.json whole"
  assert_contains "$OUT" "hint: give it \"type\": \"local\" with a \"command\" list, or \"type\": \"remote\" with a \"url\""
  assert_not_contains "$OUT" "move it to where"
}

case_a_config_that_does_not_parse_is_fixed_before_one_is_added() {
  printf '{"mcpServers": {"x": ' > "$T/broken.json"
  mcph --config "$T/broken.json" explain-config
  assert_contains "$OUT" "hint: fix $T/broken.json first: the servers it defines are not read while it does not parse"
  assert_not_contains "$OUT" "claude mcp add"
}

main "$@"
