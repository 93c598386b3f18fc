#!/usr/bin/env bash
# The agents no real program runs here for, by contract: the real binary fed payloads built from Cursor's and
# Windsurf's hook documentation (and Copilot CLI's camelCase dialect, as captured from 1.0.102), against fixture
# servers on this machine. Each case checks the agent's answer format and exit code, and the state file.
source "$(dirname "$0")/lib.sh"

# cursor_payload EVENT COMMANDLINE: a Cursor MCP event for the server started by COMMANDLINE.
cursor_payload() {
  printf '{"conversation_id":"c1","generation_id":"g1","hook_event_name":"%s","workspace_roots":["%s"],"tool_name":"echo","tool_input":{},"command":"%s"}' \
    "$1" "$PROJ" "$2"
}

case_cursor_blocks_a_dead_server_it_names_by_command() {
  write_config "$HOME/.cursor/mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(cursor_payload beforeMCPExecution "$PY $STDIO_SERVER --mode crash")" --agent cursor
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" 'd["permission"]')" deny
  assert_contains "$(json_eval "$OUT" 'd["agent_message"]')" 'The MCP server "svc"'
  assert_eq "$(entry_field svc status)" unhealthy
  # Told from the payload alone, and from the cache the second time.
  hook "$(cursor_payload beforeMCPExecution "$PY $STDIO_SERVER --mode crash")"
  assert_eq "$(json_eval "$OUT" 'd["permission"]')" deny
  assert_contains "$(json_eval "$OUT" 'd["agent_message"]')" 'has been down'
}

case_cursor_allows_a_healthy_server_and_says_nothing() {
  write_config "$HOME/.cursor/mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  hook "$(cursor_payload beforeMCPExecution "$PY $STDIO_SERVER --mode healthy")" --agent cursor
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$(entry_field svc status)" healthy
  # A server no definition starts is not checked.
  hook "$(cursor_payload beforeMCPExecution "/usr/bin/elsewhere")" --agent cursor
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
}

# windsurf_payload SERVER: Windsurf's pre_mcp_tool_use for SERVER's echo.
windsurf_payload() {
  printf '{"agent_action_name":"pre_mcp_tool_use","trajectory_id":"t1","execution_id":"e1","timestamp":"2026-12-01T10:00:00Z","tool_info":{"mcp_server_name":"%s","mcp_tool_name":"echo","mcp_tool_arguments":{}}}' "$1"
}

case_windsurf_blocks_with_exit_2_and_the_reason_on_stderr() {
  write_config "$HOME/.codeium/windsurf/mcp_config.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash),\"up\":$(stdio_def healthy)}}"
  hook "$(windsurf_payload svc)"
  assert_eq "$RC" 2 "a block is exit 2 under Windsurf"
  assert_eq "$OUT" ""
  assert_contains "$ERR" 'The MCP server "svc"'
  hook "$(windsurf_payload up)" --agent windsurf
  assert_eq "$RC" 0
}

case_copilot_camel_case_payload_is_gated_and_answered_in_both_dialects() {
  write_config "$HOME/.copilot/mcp-config.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "{\"sessionId\":\"s1\",\"timestamp\":1796154724778,\"cwd\":\"$PROJ\",\"toolName\":\"svc-echo\",\"toolArgs\":{}}"
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" 'd["permissionDecision"]')" deny
  assert_eq "$(json_eval "$OUT" 'd["hookSpecificOutput"]["permissionDecision"]')" deny
  # A built-in tool (no configured server before its dash) is not an MCP call.
  hook "{\"sessionId\":\"s1\",\"cwd\":\"$PROJ\",\"toolName\":\"bash\",\"toolArgs\":{}}" --agent copilot
  assert_eq "$OUT" ""
}

case_install_and_uninstall_round_trip_for_every_agent() {
  local id file
  copy_mcphealth "$T/bin"
  # --no-trust: codex is not here to ask (that verdict, registered but trust unverified, is test_doctor.sh's).
  local ids; ids=$(agent_ids)
  [ "$(wc -l <<<"$ids")" -ge 8 ] || fail "the agent table as the binary lists it: $ids"
  for id in $ids; do
    mcph install --agent "$id" --binary "$T/bin/mcphealth" --no-trust --json
    assert_eq "$RC" 0 "install --agent $id: $ERR"
    file=$(json_eval "$OUT" 'd["file"]')
    assert_contains "$(cat "$file")" "$T/bin/mcphealth hook"
    mcph explain-config --agent "$id" --json
    assert_eq "$(json_eval "$OUT" 'all(d["hooks"]["events"].values())')" true "$id: explain-config reads what install wrote"
    mcph uninstall --agent "$id"
    assert_eq "$RC" 0
    assert_not_contains "$(cat "$file")" "mcphealth hook" "$id: uninstall"
  done
  # No file of that scope for that agent: said, nothing written.
  mcph install --agent copilot --scope project --binary "$T/bin/mcphealth"
  assert_eq "$RC" 2
  assert_contains "$ERR" "Copilot CLI has no project-scope settings file"
}

case_probe_all_covers_every_agent_and_a_shared_definition_once() {
  # The same definition for Claude Code and Gemini CLI, and one server of Gemini CLI's own.
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"shared\":$(stdio_def healthy)}}"
  write_config "$HOME/.gemini/settings.json" "{\"mcpServers\":{\"shared\":$(stdio_def healthy),\"gem\":$(stdio_def crash)}}"
  write_config "$HOME/.gemini/trustedFolders.json" "{\"$PROJ\":\"TRUST_FOLDER\"}"
  mcph probe --all --json
  assert_eq "$RC" 1 "gem is down"
  assert_eq "$(json_eval "$OUT" 'sorted(s["name"] for s in d["servers"])')" '["gem", "shared"]'
  mcph probe --all --agent claude-code --json
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" '[s["name"] for s in d["servers"]]')" '["shared"]'
  # status says which agents start each definition.
  mcph status --json
  assert_eq "$(json_eval "$OUT" '{s["name"]: s["agents"] for s in d["servers"]}')" '{"gem": ["gemini"], "shared": ["claude-code", "gemini"]}'
  mcph status --wide
  assert_contains "$OUT" "[claude-code, gemini]"
  mcph status --agent claude-code --json
  assert_eq "$(json_eval "$OUT" '[s["name"] for s in d["servers"]]')" '["shared"]'
  assert_eq "$RC" 0 "gem, which Claude Code does not start, is down"
  mcph status --agent codex
  assert_eq "$OUT" "Codex CLI starts no server here"
  # watch --probe keeps Gemini CLI's own server fresh too.
  mcph reset --all
  mcph watch --probe --once --events
  assert_contains "$OUT" '"server":"gem"'
  assert_eq "$(entry_field gem status)" unhealthy
  # --agent keeps one agent's servers: Claude Code's does not reach gem.
  mcph reset --all
  mcph watch --probe --once --agent claude-code --events
  assert_contains "$OUT" '"server":"shared"'
  assert_not_contains "$OUT" '"server":"gem"'
  mcph watch --probe --once --agent claude-code
  assert_eq "$RC" 0 "gem, which Claude Code does not start, counted"
  mcph reset --all
  mcph watch --probe --once --events
  mcph probe --all --json
  # The hook under Gemini CLI finds its folder bound by the probe: a cache hit.
  assert_eq "$(json_get "$(BINDINGS)" "'$PROJ (gemini)' in d")" true
}

case_a_folder_where_an_agents_hook_ran_is_probed_and_swept_as_status_counts_it() {
  # Gemini CLI's own server in a project elsewhere, where its hook has run (the folder's binding): no other record
  # names that folder. status counts it in use; probe --all and watch's sweep must reach it too (one rule of which
  # folders are in use: agent::folders_in_use).
  local other="$T/other"
  write_config "$other/.gemini/settings.json" "{\"mcpServers\":{\"far\":$(stdio_def crash)}}"
  write_config "$HOME/.gemini/trustedFolders.json" "{\"$other\":\"TRUST_FOLDER\"}"
  seed_binding "$other (gemini)"
  mcph status --json
  assert_eq "$(json_eval "$OUT" '[s["name"] for s in d["servers"]]')" '["far"]'
  mcph watch --probe --once --events
  assert_contains "$OUT" '"server":"far"'
  assert_eq "$(entry_field far status)" unhealthy
  mcph reset --all
  mcph probe --all --json
  assert_eq "$RC" 1 "far is down"
  assert_eq "$(json_eval "$OUT" '[s["name"] for s in d["servers"]]')" '["far"]'
  # A folder that is gone runs no session: nothing to probe there.
  rm -rf "$other"
  mcph probe --all --json
  assert_eq "$RC" 2
  assert_contains "$ERR" "no MCP servers that the agents would start were found"
}

case_a_session_start_refreshes_the_agents_own_servers_in_the_background() {
  # Codex CLI's server, stale: the detached refresh SessionStart starts must read Codex CLI's config, not Claude
  # Code's (where no `svc` is).
  write_config "$HOME/.codex/config.toml" "[mcp_servers.svc]
command = \"$PY\"
args = [\"$STDIO_SERVER\", \"--mode\", \"crash\"]"
  hook "{\"session_id\":\"s\",\"transcript_path\":\"$HOME/.codex/sessions/r.jsonl\",\"cwd\":\"$PROJ\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" --agent codex
  assert_eq "$RC" 0
  for _ in $(seq 1 100); do
    [ -f "$(STATE)" ] && [ "$(json_get "$(STATE)" "d['servers'].get('svc', {}).get('status')")" = unhealthy ] && break
    sleep 0.1
  done
  assert_eq "$(entry_field svc status)" unhealthy "the background refresh did not probe Codex CLI's server"
  assert_eq "$(entry_field svc updatedBy)" refresh
}

case_stdio_servers_start_where_and_with_what_their_agent_gives_them() {
  # Claude Code starts a project's server in the project: a probe run from elsewhere (cron runs in $HOME) must too,
  # or a server with relative paths is recorded down and its calls blocked.
  cp "$STDIO_SERVER" "$PROJ/srv.py"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"rel\":{\"command\":\"$PY\",\"args\":[\"./srv.py\",\"--mode\",\"healthy\"]}}}"
  write_config "$HOME/.claude.json" "{\"projects\":{\"$PROJ\":{\"hasTrustDialogAccepted\":true}}}"
  mkdir -p "$T/elsewhere"
  (cd "$T/elsewhere" && mcph probe --all --agent claude-code --json && printf '%s\n' "$RC" "$OUT" > "$T/from-elsewhere")
  assert_eq "$(head -1 "$T/from-elsewhere")" 0 "$(cat "$T/from-elsewhere")"
  assert_eq "$(json_eval "$(tail -n +2 "$T/from-elsewhere")" '[s["status"] for s in d["servers"] if s["name"] == "rel"]')" '["healthy"]'
  # Codex CLI starts one in the `cwd` it names (from the session's folder), with a few of its variables and the
  # ones `env_vars` lists; a `cwd` that is not there fails it.
  mkdir -p "$PROJ/sub"
  export LISTED=1 NOT_PASSED=1
  write_config "$HOME/.codex/config.toml" "[mcp_servers.cx]
command = \"/bin/sh\"
args = [\"-c\", '[ \"\$(pwd)\" = \"$PROJ/sub\" ] && [ -z \"\${NOT_PASSED:-}\" ] && [ \"\$LISTED\" = 1 ] && exec \"$PY\" \"$STDIO_SERVER\" --mode healthy; echo \"wrong start: \$(pwd) \${NOT_PASSED:-}\" >&2; exit 3']
cwd = \"sub\"
env_vars = [\"LISTED\"]

[mcp_servers.gone]
command = \"$PY\"
args = [\"$STDIO_SERVER\", \"--mode\", \"healthy\"]
cwd = \"/nonexistent/folder\"

[mcp_servers.afile]
command = \"$PY\"
args = [\"$STDIO_SERVER\", \"--mode\", \"healthy\"]
cwd = \"$STDIO_SERVER\""
  mcph probe --all --agent codex --json
  assert_eq "$RC" 1 "gone is down: $OUT"
  assert_eq "$(json_eval "$OUT" '{s["name"]: s["status"] for s in d["servers"]}')" \
    '{"afile": "unhealthy", "cx": "healthy", "gone": "unhealthy"}'
  assert_contains "$(json_eval "$OUT" '[s["reason"] for s in d["servers"] if s["name"] == "gone"][0]')" \
    "its folder /nonexistent/folder is not there (cwd)"
  assert_contains "$(json_eval "$OUT" '[s["reason"] for s in d["servers"] if s["name"] == "afile"][0]')" \
    "its folder $STDIO_SERVER cannot be used (ENOTDIR) (cwd)"
  mcph explain-config --agent codex --json
  assert_eq "$(json_eval "$OUT" '{s["name"]: s["startsIn"] for s in d["servers"] if s["name"] != "afile"}')" \
    "{\"cx\": \"$PROJ/sub\", \"gone\": \"/nonexistent/folder\"}"
}

case_a_known_folder_that_is_gone_starts_nothing() {
  # ~/.claude.json keeps folders long deleted (old clones, temp dirs). No session runs there, so their servers are
  # not probed: in a folder that is not there one would fail, and cron would mail every night.
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"shared\":$(stdio_def healthy)},\"projects\":{\"$T/deleted\":{\"mcpServers\":{\"old\":$(stdio_def healthy)}},\"$PROJ\":{}}}"
  mkdir -p "$T/elsewhere"
  (cd "$T/elsewhere" && mcph probe --all --agent claude-code --json && printf '%s\n' "$RC" "$OUT" > "$T/result")
  assert_eq "$(head -1 "$T/result")" 0 "$(cat "$T/result")"
  assert_eq "$(json_eval "$(tail -n +2 "$T/result")" 'sorted(s["name"] for s in d["servers"])')" '["shared"]'
}

main "$@"
