#!/usr/bin/env bash
# `mcphealth install` / `uninstall`: the hook merged into Claude Code's settings and taken out again, touching
# nothing else, idempotent, with a backup; --dry-run, --statusline, the JS hook, scopes; explain-config's check that
# the registered command would start.
# Needs: GNU sed, GNU stat
source "$(dirname "$0")/lib.sh"

SETTINGS() { echo "$HOME/.claude/settings.json"; }

# A settings file as Claude Code writes it (two-space JSON), with other hooks, other keys and the JS hook.
seed_settings() {
  "$PY" - "$(SETTINGS)" "${1:-}" <<'PY'
import json, sys
doc = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
    "enableAllProjectMcpServers": True,
}
if sys.argv[2] == "js":
    doc["hooks"]["PreToolUse"].append({"matcher": "mcp__.*", "hooks": [
        {"type": "command", "command": "node ~/.claude/hooks/mcp-health-check.js"}]})
open(sys.argv[1], "w").write(json.dumps(doc, indent=2) + "\n")
PY
}

# Each event names the hook exactly once, and the other hooks are still there.
check_registered() {
  local file=$1 command=${2:-$MCPHEALTH_BIN hook --agent claude-code} event
  for event in PreToolUse PostToolUseFailure PostToolUse SessionStart; do
    assert_eq "$(json_get "$file" "sum(1 for g in d['hooks']['$event'] for h in g['hooks'] if h['command'] == '$command')")" 1 "$event"
  done
  assert_eq "$(json_get "$file" "[g['matcher'] for g in d['hooks']['PreToolUse'] if any('mcphealth' in h['command'] for h in g['hooks'])]")" "[\"mcp__.*\"]"
  assert_eq "$(json_get "$file" "[g.get('matcher') for g in d['hooks']['SessionStart']]")" "[null]"
}

case_install_merges_keeps_everything_else_and_is_idempotent() {
  seed_settings
  local original; original=$(cat "$(SETTINGS)")
  mcph install
  assert_eq "$RC" 0
  assert_contains "$OUT" "installed in $(SETTINGS)"
  assert_contains "$OUT" "PreToolUse: added $MCPHEALTH_BIN hook --agent claude-code"
  check_registered "$(SETTINGS)"
  assert_eq "$(json_get "$(SETTINGS)" "d['hooks']['PreToolUse'][0]")" "{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"~/bin/audit.sh\"}]}"
  assert_eq "$(json_get "$(SETTINGS)" "[d['model'], d['permissions'], d['hooks']['Stop'], d['enableAllProjectMcpServers']]")" \
    '["opus", {"allow": ["Bash(ls:*)"], "deny": []}, [{"hooks": [{"type": "command", "command": "say done"}]}], true]'
  # A backup of the file as it was, byte for byte.
  local backup; backup=$(ls "$HOME/.claude/" | grep '^settings.json.bak-')
  assert_eq "$(cat "$HOME/.claude/$backup")" "$original"
  # A second run changes nothing: same bytes, no new backup.
  local after; after=$(cat "$(SETTINGS)")
  mcph install
  assert_eq "$RC" 0
  assert_contains "$OUT" "nothing to change (already installed)"
  assert_eq "$(cat "$(SETTINGS)")" "$after"
  assert_eq "$(ls "$HOME/.claude/" | grep -c '^settings.json.bak-')" 1
  # Uninstall gives back the original, byte for byte: nothing else was touched.
  mcph uninstall
  assert_eq "$RC" 0
  assert_eq "$(cat "$(SETTINGS)")" "$original"
  mcph uninstall
  assert_contains "$OUT" "nothing to change (mcphealth is not registered here)"
}

case_install_keeps_every_other_value_byte_for_byte() {
  mkdir -p "$HOME/.claude"
  # Values a JSON library would rewrite: a number past double range, a 30-digit integer, a lone surrogate escape,
  # an escaped slash, and the user's own layout.
  printf '{\n    "big": 1e400,\n    "long": 123456789012345678901234567890,\n    "odd": "\\ud800 and \\/",\n    "env": {"X": "y"}\n}\n' > "$(SETTINGS)"
  local original; original=$(cat "$(SETTINGS)")
  mcph install
  assert_eq "$RC" 0
  check_registered "$(SETTINGS)"
  local now; now=$(cat "$(SETTINGS)")
  assert_contains "$now" '"big": 1e400'
  assert_contains "$now" '"long": 123456789012345678901234567890'
  assert_contains "$now" '"odd": "\ud800 and \/"'
  assert_contains "$now" '    "env": {"X": "y"}'
  mcph uninstall
  assert_eq "$(cat "$(SETTINGS)")" "$original" "uninstall gives the original back"
}

case_the_users_own_hooks_keep_their_layout_through_install_and_uninstall() {
  mkdir -p "$HOME/.claude"
  # Four-space indents and groups on one line: not how a JSON library writes them.
  printf '{\n    "hooks": {\n        "PreToolUse": [\n            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}\n        ],\n        "Stop": [ {"hooks": [{"type": "command", "command": "say done"}]} ]\n    },\n    "model": "opus"\n}\n' > "$(SETTINGS)"
  local original; original=$(cat "$(SETTINGS)")
  mcph install --dry-run
  assert_eq "$RC" 0
  # The two lines of the user's that change gain a comma; nothing of theirs is rewritten, and the new entries are
  # indented by the file's own four spaces.
  assert_eq "$(printf '%s\n' "$OUT" | grep -c '^-[^-]')" 2 "lines of the user's the diff takes out"
  assert_contains "$OUT" '+        "Stop": [ {"hooks": [{"type": "command", "command": "say done"}]} ],'
  assert_contains "$OUT" $'+            {\n+                "matcher": "mcp__.*",'
  assert_contains "$OUT" $'+        "SessionStart": [\n+            {\n+                "hooks": ['
  assert_contains "$OUT" '-            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}'
  assert_contains "$OUT" '+            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]},'
  mcph install
  assert_eq "$RC" 0
  check_registered "$(SETTINGS)"
  assert_contains "$(cat "$(SETTINGS)")" '        "Stop": [ {"hooks": [{"type": "command", "command": "say done"}]} ]'
  mcph uninstall
  assert_eq "$RC" 0
  assert_eq "$(cat "$(SETTINGS)")" "$original" "uninstall gives back the bytes"
}

case_two_installs_in_one_second_keep_both_backups() {
  seed_settings
  local original; original=$(cat "$(SETTINGS)")
  mcph install
  mcph install --statusline
  local backups
  backups=$(ls "$HOME/.claude/" | grep -c '^settings.json.bak-')
  assert_eq "$backups" 2 "one backup per write, none overwritten"
  # The oldest holds the original (its name has no suffix, or the lowest one).
  local first; first=$(ls "$HOME/.claude/" | grep '^settings.json.bak-' | sort -V | head -1)
  assert_eq "$(cat "$HOME/.claude/$first")" "$original"
}

# install made the file; uninstall takes it away again rather than leave a `{}` behind.
case_uninstall_removes_a_file_it_leaves_empty() {
  rm -f "$(SETTINGS)"
  mcph install
  mcph uninstall
  assert_eq "$RC" 0
  assert_contains "$OUT" "the file is left empty: removed"
  assert_no_file "$(SETTINGS)"
}

# Installs and uninstalls do not pile backups up: the first (the file before mcphealth changed it) and the last
# four stay.
case_backups_are_kept_to_the_first_and_the_last_four() {
  seed_settings
  local original; original=$(cat "$(SETTINGS)")
  mkdir -p "$T/a" "$T/b"
  ln -s "$MCPHEALTH_BIN" "$T/a/mcphealth"
  ln -s "$MCPHEALTH_BIN" "$T/b/mcphealth"
  for where in a b a b a b a; do # each points the hooks elsewhere: a change, so a backup
    mcph install --binary "$T/$where/mcphealth"
  done
  assert_eq "$(ls "$HOME/.claude/" | grep -c '^settings.json.bak-')" 5
  local first; first=$(ls "$HOME/.claude/" | grep '^settings.json.bak-' | sort -V | head -1)
  assert_eq "$(cat "$HOME/.claude/$first")" "$original" "the oldest backup holds the file as it was"
  # An uninstall gives the file back as it was: of the backups, only its own stays.
  local before; before=$(cat "$(SETTINGS)")
  mcph uninstall
  assert_eq "$(cat "$(SETTINGS)")" "$original"
  assert_eq "$(ls "$HOME/.claude/" | grep -c '^settings.json.bak-')" 1
  assert_eq "$(cat "$HOME/.claude/$(ls "$HOME/.claude/" | grep '^settings.json.bak-')")" "$before"
}

# A backup's number within its second is one past the highest there, never a number pruning freed: otherwise a newer
# backup sorted before an older one and uninstall kept the wrong one (issue 53 item 7, seen under the sanitizers).
# The second's earlier backups are laid by hand (the first, and -4 as pruning leaves them), tried again should the
# clock turn a second between laying them and the install.
case_a_backup_made_in_a_second_after_pruning_sorts_after_that_seconds_others() {
  seed_settings
  mkdir -p "$T/a"
  ln -s "$MCPHEALTH_BIN" "$T/a/mcphealth"
  local stamp try made=""
  for try in 1 2 3 4 5; do
    rm -f "$HOME/.claude/"settings.json.bak-*
    stamp=$(date -u +%Y%m%d-%H%M%S)
    echo first > "$HOME/.claude/settings.json.bak-$stamp"
    echo fourth > "$HOME/.claude/settings.json.bak-$stamp-4"
    mcph install --binary "$T/a/mcphealth"
    assert_eq "$RC" 0
    [ -e "$HOME/.claude/settings.json.bak-$stamp-2" ] && fail "a freed number was taken again"
    if [ -e "$HOME/.claude/settings.json.bak-$stamp-5" ]; then made=yes; break; fi
    mcph uninstall # the install fell in the next second: undo it and try again
  done
  [ -n "$made" ] || fail "no backup made in the second its others were laid in, five tries: $(ls "$HOME/.claude/")"
}

case_install_into_a_missing_file_and_an_old_path_is_updated() {
  rm -f "$(SETTINGS)"
  copy_mcphealth "$T/opt/old"
  mcph install --binary "$T/opt/old/mcphealth"
  assert_eq "$RC" 0
  assert_eq "$(stat -c %a "$(SETTINGS)")" 644
  assert_eq "$(ls "$HOME/.claude/" | grep -c '^settings.json.bak-')" 0 "no file, no backup"
  # As an earlier version wrote it: without --agent. Installing again names the agent too.
  sed -i 's/ hook --agent claude-code"/ hook"/' "$(SETTINGS)"
  mcph install
  assert_contains "$OUT" "PreToolUse: now runs $MCPHEALTH_BIN hook --agent claude-code (was $T/opt/old/mcphealth hook)"
  check_registered "$(SETTINGS)"
}

case_dry_run_prints_the_diff_and_writes_nothing() {
  seed_settings
  local before; before=$(cat "$(SETTINGS)")
  mcph install --dry-run --statusline
  assert_eq "$RC" 0
  assert_contains "$OUT" "--- $(SETTINGS)"
  assert_contains "$OUT" "+++ $(SETTINGS) (after)"
  assert_contains "$OUT" "@@ -"
  assert_contains "$OUT" "+        \"matcher\": \"mcp__.*\","
  assert_contains "$OUT" "+  \"statusLine\": {"
  assert_eq "$(cat "$(SETTINGS)")" "$before"
  assert_eq "$(ls "$HOME/.claude/" | grep -c '^settings.json.bak-')" 0
  # Applying the diff gives what a real run writes.
  printf '%s\n' "$OUT" | sed '1,2d' > "$T/change.diff"
  cp "$(SETTINGS)" "$T/patched.json"
  patch -s "$T/patched.json" < "$T/change.diff" || fail "the diff does not apply"
  mcph install --statusline
  assert_eq "$(cat "$T/patched.json")" "$(cat "$(SETTINGS)")"
}

case_statusline_is_set_only_when_none_is() {
  rm -f "$(SETTINGS)"
  mcph install --statusline
  assert_eq "$(json_get "$(SETTINGS)" "d['statusLine']")" "{\"type\": \"command\", \"command\": \"$MCPHEALTH_BIN status --statusline\"}"
  write_config "$(SETTINGS)" '{"statusLine":{"type":"command","command":"~/my-line.sh"}}'
  mcph install --statusline
  assert_contains "$OUT" "statusLine: already set to ~/my-line.sh; left as it is"
  assert_eq "$(json_get "$(SETTINGS)" "d['statusLine']['command']")" "~/my-line.sh"
  mcph uninstall
  assert_eq "$(json_get "$(SETTINGS)" "d['statusLine']['command']")" "~/my-line.sh" "someone else's status line stays"
}

case_js_hook_is_named_and_removed_only_when_asked() {
  seed_settings js
  mcph install
  assert_contains "$ERR" "the JS hook is also registered"
  assert_contains "$ERR" "--disable-js-hook"
  assert_contains "$(cat "$(SETTINGS)")" "mcp-health-check.js"
  mcph install --disable-js-hook
  assert_eq "$RC" 0
  assert_contains "$OUT" "removed the JS hook from PreToolUse: node ~/.claude/hooks/mcp-health-check.js"
  assert_not_contains "$(cat "$(SETTINGS)")" "mcp-health-check"
  assert_contains "$(cat "$(SETTINGS)")" "~/bin/audit.sh"
  check_registered "$(SETTINGS)"
}

case_scopes_pick_the_file() {
  PATH="$(dirname "$MCPHEALTH_BIN"):$PATH" mcph install --scope project
  assert_eq "$RC" 0
  check_registered "$PROJ/.claude/settings.json" "mcphealth hook --agent claude-code"
  mcph install --scope local --events PreToolUse,PostToolUseFailure
  assert_eq "$(json_get "$PROJ/.claude/settings.local.json" "sorted(d['hooks'])")" "[\"PostToolUseFailure\", \"PreToolUse\"]"
  mcph install --scope global
  assert_eq "$RC" 2
  mcph install --events PreToolUse,Nope
  assert_eq "$RC" 2
}

case_a_project_file_names_mcphealth_by_path_lookup_and_keeps_its_backups_out_of_the_repository() {
  # Shared with the repository: a bare `mcphealth`, not this machine's absolute path.
  write_config "$PROJ/.claude/settings.json" '{"theme":"dark"}'
  PATH="/usr/bin:/bin" mcph install --scope project
  assert_eq "$RC" 0 "$ERR"
  check_registered "$PROJ/.claude/settings.json" "mcphealth hook --agent claude-code"
  assert_contains "$ERR" "\`mcphealth\` is not on PATH here"
  # The backup is outside the repository.
  [ -z "$(find "$PROJ" -name '*.bak-*')" ] || fail "a backup inside the repository: $(find "$PROJ" -name '*.bak-*')"
  assert_contains "$OUT" "(backup: $HOME/.local/state/mcphealth/backups/"
  local backup
  backup=$(find "$HOME/.local/state/mcphealth/backups" -name '*.bak-*' | head -1)
  assert_eq "$(cat "$backup")" '{"theme":"dark"}'
  # A bare --binary stays a PATH lookup; a path that is not an executable file is refused.
  mcph install --scope local --binary mcphealth
  check_registered "$PROJ/.claude/settings.local.json" "mcphealth hook --agent claude-code"
  mcph install --binary "$T/nothing-here"
  assert_eq "$RC" 2
  assert_contains "$ERR" "--binary: $T/nothing-here is not an executable file"
  mcph install --binary "$PROJ"
  assert_eq "$RC" 2
  # Where a hook that cannot start blocks every call (Gemini CLI), a name not on PATH is refused.
  PATH="/usr/bin:/bin" mcph install --agent gemini --scope project
  assert_eq "$RC" 2
  assert_contains "$ERR" "Gemini CLI blocks every MCP call when its hook cannot start"
  assert_no_file "$PROJ/.gemini/settings.json"
}

case_agent_all_installs_for_every_agent_found_here_and_uninstalls_the_same() {
  # Claude Code (the harness made ~/.claude) and Gemini CLI are here; Codex CLI is not.
  mkdir -p "$HOME/.gemini"
  printf '{"theme":"dark"}\n' > "$HOME/.gemini/settings.json"
  cp "$HOME/.gemini/settings.json" "$T/gemini.before"
  mcph install --agent all
  assert_eq "$RC" 0 "$ERR"
  check_registered "$(SETTINGS)"
  assert_contains "$(cat "$HOME/.gemini/settings.json")" "hook --agent gemini"
  [ ! -e "$HOME/.codex" ] || fail "install --agent all made ~/.codex"
  mcph install --agent all --scope local
  assert_contains "$OUT" "Gemini CLI: no local-scope settings file; passed over"
  mcph install --agent all --events PreToolUse
  assert_eq "$RC" 2
  assert_contains "$ERR" "does not go with --agent all"
  mcph uninstall --agent all --json
  assert_eq "$(json_eval "$OUT" '[a["agent"] for a in d]')" '["claude-code", "gemini"]'
  assert_eq "$(cat "$HOME/.gemini/settings.json")" "$(cat "$T/gemini.before")" "uninstall gave back other bytes"
}

case_a_file_that_does_not_parse_is_left_alone() {
  printf '{"hooks": {' > "$(SETTINGS)"
  mcph install
  assert_eq "$RC" 2
  assert_contains "$ERR" "does not parse"
  assert_contains "$ERR" "line 1"
  assert_eq "$(cat "$(SETTINGS)")" '{"hooks": {'
  write_config "$(SETTINGS)" '{"hooks": []}'
  mcph install
  assert_eq "$RC" 2
  assert_contains "$ERR" '"hooks" is not an object'
}

case_a_binary_path_with_a_space_is_quoted() {
  copy_mcphealth "$T/my tools"
  mcph install --binary "$T/my tools/mcphealth" --events PreToolUse
  local command; command=$(json_get "$(SETTINGS)" "d['hooks']['PreToolUse'][0]['hooks'][0]['command']")
  assert_eq "$command" "'$T/my tools/mcphealth' hook --agent claude-code"
  # Claude Code runs it with the shell: it must start.
  echo '{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}' | sh -c "$command" || fail "the command does not run: $command"
}

case_explain_config_checks_the_registered_command_starts() {
  write_config "$(SETTINGS)" '{"enableAllProjectMcpServers":true,"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"mcphealth hook"}]}],"PostToolUseFailure":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"mcphealth hook"}]}]}}'
  PATH=/usr/bin:/bin mcph explain-config --json
  assert_contains "$(json_eval "$OUT" '[f["message"] for f in d["findings"] if f["id"] == "hook-not-startable"]')" "registered, but \`mcphealth\` is not on PATH"
  mkdir -p "$T/bin" && ln -s "$MCPHEALTH_BIN" "$T/bin/mcphealth"
  PATH="$T/bin:/usr/bin:/bin" mcph explain-config --json
  assert_eq "$(json_eval "$OUT" '[f for f in d["findings"] if f["id"] == "hook-not-startable"]')" "[]"
  mcph install
  PATH=/usr/bin:/bin mcph explain-config --json
  assert_eq "$(json_eval "$OUT" '[f for f in d["findings"] if f["id"] in ("hook-not-startable", "hook-not-registered")]')" "[]"
}

# Installed the usual way, a link on PATH into a versioned folder (Homebrew's Cellar, nix, a release folder): the hook
# names the link, which the next upgrade moves, never the versioned file, which it deletes.
case_install_registers_the_path_the_user_ran_not_its_versioned_target() {
  mkdir -p "$T/bin"
  copy_mcphealth "$T/Cellar/mcphealth/1.4.2/bin"
  ln -s "$T/Cellar/mcphealth/1.4.2/bin/mcphealth" "$T/bin/mcphealth"
  local command errf
  for how in "$T/bin/mcphealth" "mcphealth"; do
    rm -f "$(SETTINGS)"
    PATH="$T/bin:$PATH" "$how" install --events PreToolUse >/dev/null 2>&1 || fail "install by $how failed"
    command=$(json_get "$(SETTINGS)" "d['hooks']['PreToolUse'][0]['hooks'][0]['command']")
    assert_eq "$command" "$T/bin/mcphealth hook --agent claude-code" "the command registered when run as $how"
  done
  # Registered by hand at the versioned file: explain-config warns before the upgrade that breaks it.
  write_config "$(SETTINGS)" "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"mcp__.*\",\"hooks\":[{\"type\":\"command\",\"command\":\"$T/Cellar/mcphealth/1.4.2/bin/mcphealth hook\"}]}]}}"
  mcph explain-config --json
  assert_contains "$(json_eval "$OUT" '[f["message"] for f in d["findings"] if f["id"] == "hook-versioned-path"]')" "inside a Homebrew Cellar"
  rm -f "$(SETTINGS)"
  "$T/bin/mcphealth" install --events PreToolUse >/dev/null 2>&1
  mcph explain-config --json
  assert_eq "$(json_eval "$OUT" '[f for f in d["findings"] if f["id"] == "hook-versioned-path"]')" "[]"
}

# Installing into nothing is not a success: a setup script must not go on believing the gate is on.
case_agent_all_with_no_agent_found_is_an_error() {
  rm -rf "$HOME/.claude"
  mcph install --agent all
  assert_eq "$RC" 2
  assert_contains "$ERR" "no agent found here to install into (none of their folders exists: ~/.claude, ~/.codex"
  mcph uninstall --agent all
  assert_eq "$RC" 0
  [ ! -e "$HOME/.claude" ] || fail "install created ~/.claude"
  # One agent named outright is installed, and the user is told it is not there yet.
  PATH="$(dirname "$MCPHEALTH_BIN"):$PATH" mcph install --agent gemini
  assert_eq "$RC" 0
  assert_contains "$ERR" "Gemini CLI does not seem to be on this machine (no $HOME/.gemini)"
  mcph install --agent gemini
  assert_not_contains "$ERR" "does not seem to be on this machine"
}

# opencode's hook is a plugin file of mcphealth's own: written whole, found by explain-config, removed by uninstall;
# a file of that name that is not mcphealth's is never overwritten or removed.
case_opencode_gets_a_plugin_file_of_its_own() {
  local plugin="$HOME/.config/opencode/plugins/mcphealth.js"
  mkdir -p "$HOME/.config/opencode"
  mcph install --agent opencode
  assert_eq "$RC" 0
  assert_not_contains "$ERR" "does not seem to be on this machine"
  assert_eq "$(head -1 "$plugin")" "// mcphealth-hook: $MCPHEALTH_BIN hook --agent opencode"
  mcph install --agent opencode
  assert_contains "$OUT" "plugin: already installed"
  mcph explain-config --agent opencode --json
  assert_eq "$(json_eval "$OUT" 'd["hooks"]["preToolUse"]')" true
  mcph uninstall --agent opencode
  assert_eq "$RC" 0
  assert_no_file "$plugin"
  printf 'export const Mine = async () => ({});\n' > "$plugin"
  mcph install --agent opencode
  assert_eq "$RC" 2
  assert_contains "$ERR" "is not mcphealth's plugin"
  mcph uninstall --agent opencode
  assert_eq "$RC" 2
  assert_eq "$(cat "$plugin")" "export const Mine = async () => ({});"
}

# The plugin is one comment line and code that parses whatever the binary's path holds: `@ARGV@` is text, and a
# line break (which would end the comment and make the rest code) is refused. Before, the first gave a plugin that
# did not parse and the second wrote the path's tail as JavaScript.
case_opencode_plugin_text_holds_any_path_and_refuses_a_line_break() {
  command -v node >/dev/null || skip "needs node to parse the plugin"
  local plugin="$HOME/.config/opencode/plugins/mcphealth.js" dir="$T/odd @ARGV@ dir/bin"
  mkdir -p "$HOME/.config/opencode" "$dir"
  copy_mcphealth "$dir"
  mcph install --agent opencode --binary "$dir/mcphealth"
  assert_eq "$RC" 0 "install: $ERR"
  cp "$plugin" "$T/plugin.mjs"
  node --check "$T/plugin.mjs" || fail "the plugin does not parse"
  assert_contains "$(cat "$plugin")" "const HOOK = [\"$dir/mcphealth\",\"hook\",\"--agent\",\"opencode\"];"
  mcph uninstall --agent opencode
  local broken="$T/two
lines/bin"
  mkdir -p "$broken"
  copy_mcphealth "$broken"
  mcph install --agent opencode --binary "$broken/mcphealth"
  assert_eq "$RC" 2
  assert_contains "$ERR" "holds a line break"
  assert_no_file "$plugin"
}

# A settings file that is a symlink is refused, and the refusal leaves nothing behind: no backup of a file that was
# never changed (before, a .bak-* was written first and kept).
case_a_refused_symlinked_settings_file_leaves_no_backup() {
  mkdir -p "$T/elsewhere" "$HOME/.claude"
  printf '{}\n' > "$T/elsewhere/settings.json"
  rm -f "$HOME/.claude/settings.json"
  ln -s "$T/elsewhere/settings.json" "$HOME/.claude/settings.json"
  mcph install
  assert_eq "$RC" 2
  assert_contains "$ERR" "is a symlink; refusing to write through it"
  assert_eq "$(find "$HOME/.claude" "$T/elsewhere" -name '*.bak-*' | wc -l)" 0
  assert_eq "$(cat "$T/elsewhere/settings.json")" "{}"
}

case_uninstall_shows_the_file_going_keeps_one_backup_and_says_what_stays() {
  # Installs that change Codex CLI's hook file over time, each leaving a backup; and a state the hook made.
  local n file="$HOME/.codex/hooks.json"
  mkdir -p "$HOME/.codex"
  mkdir -p "$T/a" "$T/b"
  ln -s "$MCPHEALTH_BIN" "$T/a/mcphealth"
  ln -s "$MCPHEALTH_BIN" "$T/b/mcphealth"
  for where in a b a b; do # each points the hooks elsewhere: a change, so a backup
    mcph install --agent codex --no-trust --binary "$T/$where/mcphealth"
    assert_eq "$RC" 0 "$ERR"
  done
  n=$(ls "$HOME/.codex/" | grep -c 'hooks.json.bak-')
  [ "$n" -ge 3 ] || fail "expected backups from the installs, found $n"
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  hook "$(pre_payload svc)"
  # The dry run shows what the run does: the file goes (it is left empty), it does not become {}.
  mcph uninstall --agent codex --dry-run
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "+++ /dev/null (the file is removed)"
  assert_contains "$OUT" "$file would be left empty: removed"
  assert_not_contains "$OUT" "+{}"
  assert_file_exists "$file"
  mcph uninstall --agent codex
  assert_eq "$RC" 0 "$ERR"
  assert_no_file "$file"
  assert_eq "$(ls "$HOME/.codex/" | grep -c 'hooks.json.bak-')" 1 "one backup left: the file as it was before the uninstall"
  assert_contains "$OUT" "mcphealth's own files stay: $HOME/.claude/mcp-health-cache.json, $HOME/.claude/mcp-health-cache.json.d"
  assert_contains "$OUT" "to remove them too: rm -r '$HOME/.claude/mcp-health-cache.json'"
}

# An uninstall gives back the settings file that was there before install, `{}` included; only a file install made
# is removed (issue 53 item 7). An earlier install and uninstall of the same file does not confuse the two.
case_uninstall_gives_back_an_empty_settings_file_that_was_there_and_removes_one_install_made() {
  rm -f "$(SETTINGS)"
  mcph install
  mcph uninstall
  assert_contains "$OUT" "the file is left empty: removed"
  assert_no_file "$(SETTINGS)"
  echo '{}' > "$(SETTINGS)"
  mcph install
  mcph uninstall
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "the file is given back as it was before install"
  assert_eq "$(cat "$(SETTINGS)")" "{}"
}

main "$@"
