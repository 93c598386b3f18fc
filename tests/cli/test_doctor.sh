#!/usr/bin/env bash
# `mcphealth doctor`: one verdict per agent found, each problem with its fix, exit 0 only when every one is gated.
# Needs: GNU sed
source "$(dirname "$0")/lib.sh"

# Only the agents a case makes are found: none of the machine's programs on PATH.
plain_path() { export PATH="$(dirname "$MCPHEALTH_BIN"):/usr/bin:/bin"; }

check_of() { # JSON AGENT CHECK -> "verdict: found"
  json_eval "$1" "next(c['verdict'] + ': ' + c['found'] for a in d['agents'] if a['agent'] == '$2' for c in a['checks'] if c['check'] == '$3')"
}

case_no_agent_found_is_not_a_gate_that_is_on() {
  plain_path
  rm -rf "$HOME/.claude"
  mcph doctor
  assert_eq "$RC" 1
  assert_contains "$OUT" "no agent found on this machine"
}

case_an_agent_without_the_hook_is_not_gated_and_install_fixes_it() {
  plain_path
  mcph doctor
  assert_eq "$RC" 1
  assert_contains "$OUT" "Claude Code: NOT gated"
  assert_contains "$OUT" "✘ registered: no mcphealth hook is registered for MCP tools"
  assert_contains "$OUT" "fix: run \`mcphealth install --agent claude-code\`"
  assert_contains "$OUT" "not on this machine: Codex CLI"
  mcph install --agent claude-code
  mcph doctor --json
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" 'd["ok"]')" true
  assert_eq "$(json_eval "$OUT" '[a["agent"] for a in d["agents"] if a["installed"]]')" '["claude-code"]'
  assert_contains "$(check_of "$OUT" claude-code registered)" "ok: in $HOME/.claude/settings.json for PreToolUse, PostToolUseFailure"
  assert_contains "$(check_of "$OUT" claude-code starts)" "ok: $MCPHEALTH_BIN starts (mcphealth "
  assert_contains "$(check_of "$OUT" claude-code version)" "note: \`claude\` is not on PATH here"
  assert_contains "$(check_of "$OUT" claude-code seen)" "note: the hook has not been seen running yet"
  mcph doctor
  assert_contains "$OUT" "the gate is on for Claude Code"
}

case_a_registered_command_that_cannot_start_or_is_not_mcphealth_is_a_problem() {
  plain_path
  write_config "$HOME/.claude/settings.json" '{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"/nowhere/mcphealth hook --agent claude-code"}]}],"PostToolUseFailure":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"/nowhere/mcphealth hook --agent claude-code"}]}]}}'
  mcph doctor --json
  assert_eq "$RC" 1
  assert_contains "$(check_of "$OUT" claude-code starts)" "problem: \`/nowhere/mcphealth\` cannot be started (not an executable file)"
  mkdir -p "$T/bin"
  printf '#!/bin/sh\necho hello\n' > "$T/bin/mcphealth"
  chmod +x "$T/bin/mcphealth"
  sed -i "s|/nowhere/mcphealth|$T/bin/mcphealth|g" "$HOME/.claude/settings.json"
  mcph doctor --json
  assert_eq "$RC" 1
  assert_contains "$(check_of "$OUT" claude-code starts)" "problem: \`$T/bin/mcphealth --version\` did not answer as mcphealth (hello)"
}

# A front registered without the full binary beside it answers cache hits alone and allows every other call
# unchecked: doctor says which file is missing and where it must be (its words were cut, and its fix was wrong).
case_a_front_without_its_full_binary_is_a_problem_that_names_the_missing_file() {
  plain_path
  mkdir -p "$T/front/bin"
  cp "$MCPHEALTH_BIN" "$T/front/bin/mcphealth"
  write_config "$HOME/.claude/settings.json" '{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"'"$T"'/front/bin/mcphealth hook --agent claude-code"}]}],"PostToolUseFailure":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"'"$T"'/front/bin/mcphealth hook --agent claude-code"}]}]}}'
  mcph doctor --json
  assert_eq "$RC" 1
  local found; found=$(check_of "$OUT" claude-code starts)
  assert_contains "$found" "problem: $T/front/bin/mcphealth is mcphealth's front, but the rest of mcphealth is missing: $T/front/libexec/mcphealth/mcphealth-full is not there"
  assert_contains "$(json_eval "$OUT" "next(c['fix'] for a in d['agents'] if a['agent'] == 'claude-code' for c in a['checks'] if c['check'] == 'starts')")" "put mcphealth-full at $T/front/libexec/mcphealth/mcphealth-full"
  assert_not_contains "$found" "two files: )"
}

# A settings file that does not parse registers nothing the agent runs: doctor says so, and where, rather than
# "no hook is registered; run install" (which then refuses the file).
case_a_hook_file_that_does_not_parse_is_said_with_where_and_that_nothing_there_runs() {
  plain_path
  mcph install --agent claude-code
  printf '{\n  "hooks": {\n    "PreToolUse": [oops\n' >> "$HOME/.claude/settings.json.broken"
  mv "$HOME/.claude/settings.json.broken" "$HOME/.claude/settings.json"
  mcph doctor --json
  assert_eq "$RC" 1
  local found; found=$(check_of "$OUT" claude-code registered)
  assert_contains "$found" "problem: $HOME/.claude/settings.json does not parse (syntax error at line 3"
  assert_contains "$found" "reads no hook from it, so a hook registered there does not run"
  assert_not_contains "$OUT" "no mcphealth hook is registered"
}

case_the_hook_seen_running_is_told_with_its_event() {
  plain_path
  mcph install --agent claude-code
  hook '{"hook_event_name":"SessionStart","cwd":"'"$PROJ"'"}' --agent claude-code
  assert_eq "$RC" 0
  assert_eq "$(json_get "$(STATE)" 'd["agents"]["claude-code"]["path"]')" "$PATH"
  mcph doctor --json
  assert_contains "$(check_of "$OUT" claude-code seen)" "ok: the hook was last seen running "
  assert_contains "$(check_of "$OUT" claude-code seen)" "(SessionStart)"
}

case_a_config_that_does_not_read_and_a_state_that_cannot_be_kept_are_problems() {
  plain_path
  mcph install --agent claude-code
  printf '{"mcpServers": {' > "$PROJ/.mcp.json"
  mcph doctor --json
  assert_eq "$RC" 1
  assert_contains "$(check_of "$OUT" claude-code configs)" "problem: $PROJ/.mcp.json:1:"
  rm "$PROJ/.mcp.json"
  MCPHEALTH_STATE_PATH="$T/gone/state.json" mcph doctor --json
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" 'd["common"][0]["verdict"]')" problem
  assert_contains "$(json_eval "$OUT" 'd["common"][0]["found"]')" "its folder $T/gone does not exist"
  assert_eq "$(json_eval "$OUT" '[a["gated"] for a in d["agents"] if a["installed"]]')" "[true]"
}

# A hook file of mcphealth's events, every entry running COMMAND; EXTRA is more of the entry (`,"async":true`).
hook_file_json() {
  local e='{"type":"command","command":"'"$1"'"'"${2:-}"'}'
  printf '{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[%s]}],"PostToolUseFailure":[{"matcher":"mcp__.*","hooks":[%s]}]}}' "$e" "$e"
}

case_a_repositorys_hook_command_is_never_run_and_one_claiming_the_name_is_a_problem() {
  plain_path
  # A clone whose own settings register its own script as "mcphealth": the script answers as mcphealth would, and
  # leaves a mark when run.
  mkdir -p "$PROJ/tools"
  printf '#!/bin/sh
touch %s/ran
echo "mcphealth 0.1.0"
' "$T" > "$PROJ/tools/mcphealth"
  chmod +x "$PROJ/tools/mcphealth"
  write_config "$PROJ/.claude/settings.json" "$(hook_file_json "./tools/mcphealth hook --agent claude-code")"
  for agent_dir in .gemini .qwen; do
    write_config "$PROJ/$agent_dir/settings.json" '{"hooks":{}}'
  done
  mcph doctor --agent claude-code --json
  assert_eq "$RC" 1
  assert_no_file "$T/ran"
  assert_contains "$(check_of "$OUT" claude-code starts)" "problem: a project file registers another program as mcphealth: $PROJ/.claude/settings.json runs $PROJ/tools/mcphealth"
  # Gemini CLI's and Qwen Code's project files, and Codex's: the same rule, through the same registration reader.
  write_config "$PROJ/.gemini/settings.json" '{"hooks":{"BeforeTool":[{"matcher":".*","hooks":[{"type":"command","command":"./tools/mcphealth hook --agent gemini"}]}],"AfterTool":[{"matcher":".*","hooks":[{"type":"command","command":"./tools/mcphealth hook --agent gemini"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"./tools/mcphealth hook --agent gemini"}]}]}}'
  mcph doctor --agent gemini --json
  assert_no_file "$T/ran"
  assert_contains "$(check_of "$OUT" gemini starts)" "problem: a project file registers another program as mcphealth"
  # A copy of this mcphealth in the repository is identified by its bytes, without being run.
  copy_mcphealth "$PROJ/tools"
  mcph doctor --agent claude-code --json
  assert_contains "$(check_of "$OUT" claude-code starts)" "ok: $PROJ/tools/mcphealth is this mcphealth (the same program; not run"
  # The user's own file: started, as the agent would.
  rm -rf "$PROJ/.claude"
  printf '#!/bin/sh
touch %s/ran
echo "mcphealth 0.1.0"
' "$T" > "$T/mine"
  chmod +x "$T/mine"
  mkdir -p "$T/userbin"
  mv "$T/mine" "$T/userbin/mcphealth"
  write_config "$HOME/.claude/settings.json" "$(hook_file_json "$T/userbin/mcphealth hook --agent claude-code")"
  mcph doctor --agent claude-code --json
  assert_file_exists "$T/ran"
}

case_hooks_switched_off_or_not_waited_for_are_not_a_gate() {
  plain_path
  mcph install --agent claude-code
  local command
  command=$(json_get "$HOME/.claude/settings.json" 'd["hooks"]["PreToolUse"][0]["hooks"][0]["command"]')
  write_config "$HOME/.claude/settings.json" "$(hook_file_json "$command")"
  mcph doctor --agent claude-code --json
  assert_eq "$RC" 0
  # disableAllHooks: Claude Code runs no hook at all (checked in 2.1.332).
  write_config "$HOME/.claude/settings.json" "$(hook_file_json "$command" | sed 's/^{/{"disableAllHooks":true,/')"
  mcph doctor --agent claude-code --json
  assert_eq "$RC" 1
  assert_contains "$(check_of "$OUT" claude-code registered)" 'problem: '"$HOME"'/.claude/settings.json sets "disableAllHooks": true'
  mcph explain-config
  assert_contains "$OUT$ERR" 'runs no hook, mcphealth'"'"'s included'
  # An async entry: its deny does not stop the call. A once entry: it runs once a session.
  write_config "$HOME/.claude/settings.json" "$(hook_file_json "$command" ',"async":true')"
  mcph doctor --agent claude-code --json
  assert_eq "$RC" 1
  assert_contains "$(json_eval "$OUT" '[c["found"] for a in d["agents"] for c in a["checks"] if c["verdict"] == "problem"]')" 'is marked \"async\": true'
  write_config "$HOME/.claude/settings.json" "$(hook_file_json "$command" ',"once":true')"
  mcph doctor --agent claude-code --json
  assert_eq "$RC" 1
  assert_contains "$(json_eval "$OUT" '[c["found"] for a in d["agents"] for c in a["checks"] if c["verdict"] == "problem"]')" 'is marked \"once\": true'
}

case_a_named_agent_is_checked_even_when_not_found() {
  plain_path
  mcph doctor --agent gemini --json
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" '[a["agent"] for a in d["agents"]]')" '["gemini"]'
  assert_contains "$(check_of "$OUT" gemini registered)" "problem: no mcphealth hook is registered"
  mcph doctor --agent nobody
  assert_eq "$RC" 2
}

case_doctor_says_how_much_the_state_holds_and_its_bound() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  write_config "$HOME/.claude/settings.json" '{"enableAllProjectMcpServers":true}'
  hook "$(pre_payload svc)"
  seed_binding "$T/elsewhere (gemini)"
  mcph doctor
  assert_contains "$OUT" "state size: "
  assert_contains "$OUT" ": 1 verdicts, 2 folders bound, the history "
  assert_contains "$OUT" "verdicts and folders unused for 30 days are pruned, at most 16384 of each"
}

case_codex_trust_that_cannot_be_checked_is_its_own_verdict_and_not_the_gate_on() {
  # Codex CLI skips a hook it does not trust without a word; with `codex` not on PATH nobody can ask it.
  mkdir -p "$HOME/.codex" "$HOME/.claude"
  PATH=/usr/bin:/bin mcph install --agent all
  assert_eq "$RC" 1 "install: registered, but not known to run"
  assert_eq "$(printf '%s\n' "$OUT" | tail -n 1)" "Codex CLI: registered, trust unverified" "install's last line"
  PATH=/usr/bin:/bin mcph install --agent codex --json
  assert_eq "$RC" 1
  assert_eq "$(echo "$OUT" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["trust"]["verdict"])')" "registered, trust unverified"
  # Declining on purpose is not a failure.
  PATH=/usr/bin:/bin mcph install --agent codex --no-trust
  assert_eq "$RC" 0 "$ERR"
  PATH=/usr/bin:/bin mcph doctor
  assert_eq "$RC" 1 "doctor: not gated"
  assert_contains "$OUT" "Codex CLI: registered, trust unverified"
  assert_contains "$OUT" "whether Codex CLI trusts it could not be checked: codex is not on PATH"
  assert_contains "$OUT" "Claude Code: gated"
  assert_not_contains "$OUT" "the gate is on"
  PATH=/usr/bin:/bin mcph doctor --json
  assert_eq "$(echo "$OUT" | "$PY" -c 'import json,sys; print([a["verdict"] for a in json.load(sys.stdin)["agents"] if a["agent"] == "codex"][0])')" \
    "registered, trust unverified"
}

main "$@"
