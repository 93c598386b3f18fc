#!/usr/bin/env bash
# Usage errors and help: the `mcphealth:` prefix, "did you mean", `help [COMMAND]`, conflicting options, exit 2.
source "$(dirname "$0")/lib.sh"

case_unknown_option_suggests_the_close_one() {
  mcph status --jsn
  assert_eq "$RC" 2
  assert_contains "$ERR" "mcphealth: "
  assert_contains "$ERR" "--jsn"
  assert_contains "$ERR" "did you mean --json?"
  assert_contains "$ERR" "mcphealth help status"
  assert_eq "$OUT" ""
  mcph probe --all --timout-ms 300
  assert_eq "$RC" 2
  assert_contains "$ERR" "did you mean --timeout-ms?"
  mcph status --frobnicate
  assert_eq "$RC" 2
  assert_not_contains "$ERR" "did you mean"
}

case_unknown_command_suggests_the_close_one() {
  mcph stauts
  assert_eq "$RC" 2
  assert_contains "$ERR" "mcphealth: unknown command 'stauts' (did you mean status?)"
  mcph explain
  assert_contains "$ERR" "did you mean explain-config?"
  mcph zzz
  assert_eq "$RC" 2
  assert_not_contains "$ERR" "did you mean"
}

case_help_command_is_the_help_flag() {
  mcph help status
  assert_eq "$RC" 0
  assert_contains "$OUT" "Usage: mcphealth status"
  assert_contains "$OUT" "--unhealthy"
  mcph help
  assert_eq "$RC" 0
  assert_contains "$OUT" "Usage: mcphealth"
  mcph help reset
  assert_contains "$OUT" "--strict"
  mcph help nosuch
  assert_eq "$RC" 2
}

case_conflicting_options_are_rejected_not_resolved() {
  mcph status --json --statusline
  assert_eq "$RC" 2
  assert_contains "$ERR" "mcphealth: "
  assert_contains "$ERR" "excludes"
  mcph status -o json --wide
  assert_eq "$RC" 2
  mcph probe --all -o nosuch
  assert_eq "$RC" 2
  assert_contains "$ERR" "nosuch"
}

case_global_options_are_taken_after_the_command_too() {
  mcph status -v --state "$T/elsewhere.json"
  assert_eq "$RC" 0 "status -v --state: $ERR"
  assert_not_contains "$ERR" "not expected"
}

case_an_unknown_option_is_named_in_our_words_whatever_follows_it() {
  mcph watch --intervl 5
  assert_eq "$RC" 2
  assert_contains "$ERR" "mcphealth: unknown option --intervl (did you mean --interval?)"
  assert_not_contains "$ERR" "not expected"
  mcph status svc extra --bogus
  assert_contains "$ERR" "unknown option --bogus"
}

case_an_unknown_server_name_gets_the_close_one_and_the_known_names_once_in_order() {
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"zeta\":$(stdio_def healthy),\"svc\":$(stdio_def healthy),\"alpha\":$(stdio_def healthy)}}"
  mcph probe --all
  # Rows in name order, as documented.
  assert_eq "$(sed -n '2,4p' <<<"$OUT" | awk '{print $1}' | tr '\n' ' ')" "alpha svc zeta "
  mcph reset --list
  assert_eq "$(tr '\n' ' ' <<<"$OUT")" "alpha svc zeta "
  local cmd
  for cmd in status probe explain-config policy; do
    mcph $cmd svcc
    assert_eq "$RC" 2 "$cmd svcc"
    assert_contains "$ERR" "unknown server 'svcc' (did you mean svc?); known: alpha, svc, zeta" "$cmd"
  done
  mcph reset svcc
  assert_contains "$ERR" "(did you mean svc?)"
}

case_help_shows_no_cli11_internals() {
  local sub
  for sub in hook probe status reset explain-config policy refresh watch install uninstall; do
    mcph "$sub" --help
    assert_not_contains "$OUT" "DIR:DIR" "$sub --help"
    assert_not_contains "$OUT" ":INT in [" "$sub --help"
    assert_not_contains "$OUT" "FAILED" "$sub --help"
    assert_not_contains "$OUT" "->" "$sub --help"
  done
}

case_bad_paths_and_counts_are_refused() {
  mcph status --cwd "$T/no-such-folder"
  assert_eq "$RC" 2
  assert_contains "$ERR" "--cwd: no folder $T/no-such-folder"
  mcph --state "$T/no-such-folder/dir/x.json" status
  assert_eq "$RC" 2
  assert_contains "$ERR" "--state: no folder $T/no-such-folder/dir to keep $T/no-such-folder/dir/x.json in"
  mcph status --policy /missing.json
  assert_eq "$RC" 2
  assert_contains "$ERR" "--policy: no file /missing.json"
  # The hook never fails the call for its own command line: it allows, and says why.
  hook "$(pre_payload svc)" --policy /missing.json
  assert_eq "$RC" 0
  assert_contains "$ERR" "no file /missing.json"
  mcph probe --all --parallel -1
  assert_eq "$RC" 2
  assert_contains "$ERR" "--parallel: -1 is not a whole number from 0 to 4096"
}

# Without a command, the commands are named (it said only "A subcommand is required").
case_no_command_names_the_commands() {
  mcph
  assert_eq "$RC" 2
  assert_contains "$ERR" "a command is required (commands: hook, probe, status"
  mcph -v
  assert_eq "$RC" 2
  assert_contains "$ERR" "a command is required (commands:"
}

# A list of words is said once in --help, in the option's text: not again after its type name (`ID:one of …`).
case_help_lists_an_options_words_once() {
  local c
  for c in hook probe status install watch; do
    mcph "$c" --help
    assert_eq "$RC" 0
    assert_not_contains "$OUT" ":one of" "$c --help"
  done
  mcph probe --agent nobody --all
  assert_eq "$RC" 2
  assert_contains "$ERR" "nobody is not one of claude-code, codex"
  assert_not_contains "$ERR" "did you mean" "nothing close to nobody"
  # A word close to one (the agent's short name) is named, as a mistyped command or server is.
  mcph status --agent claude
  assert_eq "$RC" 2
  assert_contains "$ERR" "claude is not one of claude-code, codex"
  assert_contains "$ERR" "(did you mean claude-code?)"
  mcph install --agent gemni --dry-run
  assert_contains "$ERR" "(did you mean gemini?)"
}

case_help_says_what_the_tool_is_for_every_agent_it_serves() {
  mcph --help
  assert_eq "$RC" 0
  local first; first=$(head -1 <<<"$OUT")
  assert_not_contains "$first" "Claude Code's MCP servers"
  for name in "Claude Code" "Codex CLI" "Gemini CLI" "Copilot CLI" "Qwen Code" "opencode" "Cursor" "Windsurf"; do
    assert_contains "$first" "$name"
  done
  assert_contains "$(sed -n '/^\.SH NAME/,/^\.SH/p' "$MCPHEALTH_SOURCE_DIR/man/mcphealth.1")" "keep coding agents from choking"
  # Two agents not gated: the sentence agrees with its subject.
  mkdir -p "$HOME/.codex" "$HOME/.gemini"
  rm -f "$HOME/.claude/settings.json"
  mcph doctor
  assert_contains "$OUT" "need the fixes above"
}

main "$@"
