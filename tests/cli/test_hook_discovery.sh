#!/usr/bin/env bash
# Where the hook finds server definitions: Claude Code's scopes (not the JS hook's files), and explicit paths.
# Needs: GNU timeout
source "$(dirname "$0")/lib.sh"

# crash_def LABEL: a definition that fails with "(from LABEL)", so a test sees which one was probed.
crash_def() { stdio_def crash "\"--message\",\"from $1\""; }

case_project_dir_from_claude_project_dir() {
  mkdir -p "$T/elsewhere"
  write_config "$T/elsewhere/.mcp.json" "{\"mcpServers\":{\"svc\":$(crash_def elsewhere)}}"
  export CLAUDE_PROJECT_DIR="$T/elsewhere"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$T/no-such-folder\"}"
  assert_contains "$ERR" "(from elsewhere)"
}

case_project_dir_from_payload_cwd() {
  mkdir -p "$T/p2"
  write_config "$T/p2/.mcp.json" "{\"mcpServers\":{\"svc\":$(crash_def p2)}}"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$T/p2\"}"
  assert_contains "$ERR" "(from p2)"
}

# Claude Code keys local scope by the repository's root, else the folder itself: nothing walks further up.
case_local_scope_is_the_repository_roots_and_never_a_parents() {
  mkdir -p "$PROJ/src/deep"
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"mcpServers\":{\"svc\":$(crash_def local)}},\"/other\":{\"mcpServers\":{\"svc\":$(crash_def other)}}},\"mcpServers\":{\"svc\":$(crash_def user)}}"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$PROJ/src/deep\"}"
  assert_contains "$ERR" "(from user)"
  mkdir "$PROJ/.git"
  forget_state
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$PROJ/src/deep\"}"
  assert_contains "$ERR" "(from local)"
  # A clone inside the repository is a repository of its own: the parent's local server is not its.
  mkdir -p "$PROJ/clone/.git"
  forget_state
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$PROJ/clone\"}"
  assert_contains "$ERR" "(from user)"
}

case_local_beats_project_beats_user() {
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"mcpServers\":{\"a\":$(crash_def local)}}},\"mcpServers\":{\"a\":$(crash_def user),\"b\":$(crash_def user),\"c\":$(crash_def user)}}"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"a\":$(crash_def project),\"b\":$(crash_def project)}}"
  hook "$(pre_payload a)"; assert_contains "$ERR" "(from local)"
  hook "$(pre_payload b)"; assert_contains "$ERR" "(from project)"
  hook "$(pre_payload c)"; assert_contains "$ERR" "(from user)"
}

case_ancestor_mcp_json_is_found() {
  mkdir -p "$PROJ/pkg/sub"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(crash_def ancestor)}}"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$PROJ/pkg/sub\"}"
  assert_contains "$ERR" "(from ancestor)"
}

# Two clones with the same .mcp.json line, `./srv.sh`: each runs its own program, so one's outage is not the other's.
case_a_projects_own_server_keeps_its_own_verdict() {
  local a="$T/a" b="$T/b"
  export ECC_MCP_HEALTH_TIMEOUT_MS=20000 # room for a busy machine: the healthy one must be seen healthy
  for dir in "$a" "$b"; do
    write_config "$dir/.mcp.json" '{"mcpServers":{"svc":{"command":"./srv.sh"}}}'
  done
  printf '#!/bin/sh\nexec %s %s --mode crash --message "from a"\n' "$PY" "$STDIO_SERVER" > "$a/srv.sh"
  printf '#!/bin/sh\nexec %s %s --mode healthy\n' "$PY" "$STDIO_SERVER" > "$b/srv.sh"
  chmod +x "$a/srv.sh" "$b/srv.sh"
  local in_a="{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$a\"}"
  local in_b="{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__x\",\"cwd\":\"$b\"}"
  hook "$in_a"
  assert_contains "$OUT" '"permissionDecision":"deny"' "a's broken server is blocked"
  assert_contains "$ERR" "(from a)"
  hook "$in_b"
  assert_eq "$RC" 0
  assert_not_contains "$OUT" "deny" "b's healthy server, defined by the same line, is allowed"
  hook "$in_a"
  assert_contains "$OUT" '"permissionDecision":"deny"' "a stays blocked after b's probe"
  assert_eq "$(json_get "$(STATE_ALL)" "sorted(v['status'] for v in d['definitions'].values())")" '["healthy", "unhealthy"]'
  # A user's server is one program wherever it is used: one verdict serves both folders.
  rm "$a/.mcp.json" "$b/.mcp.json"
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"u\":$(stdio_def healthy)}}"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__u__x\",\"cwd\":\"$a\"}"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__u__x\",\"cwd\":\"$b\"}"
  assert_eq "$RC" 0
  assert_not_contains "$OUT" "deny"
  assert_eq "$(json_get "$(STATE_ALL)" "len([v for v in d['definitions'].values() if v['server'] == 'u'])")" 1
}

case_claude_config_dir_moves_claude_json() {
  mkdir -p "$T/cfg"
  export CLAUDE_CONFIG_DIR="$T/cfg"
  write_config "$T/cfg/.claude.json" "{\"mcpServers\":{\"svc\":$(crash_def cfgdir)}}"
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":$(crash_def home)}}"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "(from cfgdir)"
}

# Claude Code reads no servers from <project>/.claude.json, <project>/.claude/settings.json or ~/.claude/settings.json
# (the JS hook did): a repository's file there must never get its command run.
case_js_hook_files_are_never_started() {
  write_config "$PROJ/.claude/settings.json" "{\"mcpServers\":{\"a\":$(crash_def settings)}}"
  write_config "$PROJ/.claude.json" "{\"mcpServers\":{\"b\":$(crash_def dotclaude)}}"
  write_config "$HOME/.claude/settings.json" "{\"enableAllProjectMcpServers\":true,\"mcpServers\":{\"c\":$(crash_def usersettings)}}"
  local s
  for s in a b c; do
    hook "$(pre_payload $s)"
    assert_eq "$OUT" "" "$s allowed"
    assert_contains "$ERR" "$s is not checked: Claude Code does not start servers defined in"
    assert_not_contains "$ERR" "(from "
  done
  # A real definition of the same name wins, whatever the JS hook's files say.
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"a\":$(crash_def project)}}"
  hook "$(pre_payload a)"
  assert_contains "$ERR" "(from project)"
}

case_mcp_servers_alias_is_read() {
  write_config "$PROJ/.mcp.json" "{\"mcp_servers\":{\"svc\":$(crash_def alias)}}"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "(from alias)"
}

case_config_path_variable_replaces_search() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(crash_def project)}}"
  write_config "$T/a.json" '{"mcpServers":{}}'
  write_config "$T/b.json" "{\"mcpServers\":{\"svc\":$(crash_def explicit)}}"
  export ECC_MCP_CONFIG_PATH="$T/a.json:$T/b.json"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "(from explicit)"
  forget_state
  export ECC_MCP_CONFIG_PATH="$T/a.json"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "No MCP config found for svc"
}

case_config_path_with_tilde_is_expanded_with_warning() {
  write_config "$HOME/cfg/mcp.json" "{\"mcpServers\":{\"svc\":$(crash_def tilde)}}"
  export ECC_MCP_CONFIG_PATH="~/cfg/mcp.json"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "(from tilde)"
  assert_contains "$ERR" "launchd"
}

case_config_flag_replaces_search() {
  write_config "$T/flag.json" "{\"mcpServers\":{\"svc\":$(crash_def flag)}}"
  set +e
  OUT=$(pre_payload svc | "$MCPHEALTH_BIN" --config "$T/flag.json" hook 2>"$T/err"); RC=$?
  set -e
  ERR=$(cat "$T/err")
  assert_contains "$ERR" "(from flag)"
}

case_variables_expand_with_defaults() {
  export FIXTURE_MSG="from variable"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"command\":\"\${PYTHON_BIN:-$PY}\",\"args\":[\"$STDIO_SERVER\",\"--mode\",\"crash\",\"--message\",\"\${FIXTURE_MSG}\"]}}}"
  hook "$(pre_payload svc)"
  assert_contains "$ERR" "svc is unavailable (from variable)"
}

case_explicit_target_only_for_non_mcp_names() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"real\":$(crash_def real),\"named\":$(crash_def named)}}"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__real__search\",\"tool_input\":{\"server\":\"named\"},\"cwd\":\"$PROJ\"}"
  assert_contains "$ERR" "real is unavailable (from real)"
  assert_not_contains "$ERR" "named"
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Task\",\"tool_input\":{\"connector\":{\"name\":\"named\"},\"tool\":\"lookup\"},\"cwd\":\"$PROJ\"}"
  assert_contains "$ERR" "named is unavailable (from named). Blocking lookup"
}

# Claude Code's --mcp-config is read from its own command line: the nearest `claude` above the hook, whatever
# wrappers fork between (a `timeout 30 mcphealth hook` registration lost it: the nearest non-shell was `timeout`).
case_mcp_config_is_found_behind_a_forking_wrapper() {
  sees_processes "read the client's arguments"
  write_config "$T/extra.json" "{\"mcpServers\":{\"svc\":$(crash_def command-line)}}"
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":$(crash_def user)}}"
  mkdir -p "$T/fakebin"
  # A stand-in for the client: a program named claude that runs the hook as Claude Code would, through a shell.
  printf '#!/bin/bash\n/bin/sh -c "timeout 30 %s hook"\n' "$MCPHEALTH_BIN" > "$T/fakebin/claude"
  chmod +x "$T/fakebin/claude"
  set +e
  OUT=$(cd "$PROJ" && pre_payload svc | CLAUDECODE=1 "$T/fakebin/claude" --mcp-config "$T/extra.json" 2>"$T/err")
  set -e
  ERR=$(cat "$T/err")
  assert_contains "$ERR" "(from command-line)"
}

main "$@"
