#!/usr/bin/env bash
# The man page and the shell completions: they render, they are installed, they cover what --help lists, and the
# completions offer what they should.
source "$(dirname "$0")/lib.sh"

: "${MCPHEALTH_SOURCE_DIR:?}"
MAN="$MCPHEALTH_SOURCE_DIR/man/mcphealth.1"
# Every command --help lists: one added is covered without touching this file.
COMMANDS=$("$MCPHEALTH_BIN" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}' | tr '\n' ' ')

case_man_page_renders_without_warnings() {
  local err device
  # A UTF-8 terminal, an ASCII one (✔ and ✘ have stand-ins there), and groff's own default device.
  for device in -Tutf8 -Tascii -Tps; do
    err=$(groff -man "$device" -ww -z "$MAN" 2>&1 >/dev/null)
    assert_eq "$err" "" "groff $device exits 0 on warnings, so any stderr fails"
  done
}

case_the_man_pages_examples_begin_with_install_and_show_status_and_watch() {
  local examples
  examples=$(sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$MAN")
  assert_eq "$(grep -m1 '^mcphealth ' <<<"$examples")" "mcphealth install \\-\\-dry\\-run"
  assert_contains "$examples" "mcphealth status"
  assert_contains "$examples" "mcphealth watch"
}

# The README's cron line names mcphealth by an absolute path (cron's PATH is /usr/bin:/bin); the service files are
# install --service's alone (the hand-made ones contrib/ once shipped are gone: install refuses to overwrite one).
case_the_cron_line_names_an_absolute_binary_and_no_service_file_is_shipped_to_copy() {
  local src=$MCPHEALTH_SOURCE_DIR cron
  cron=$(grep -E '^\*/[0-9]+ \* \* \* \* ' "$src/README.md" | awk '{print $6}')
  case $cron in /*) ;; *) fail "the cron line's mcphealth is not an absolute path: [$cron] (cron's PATH is /usr/bin:/bin)" ;; esac
  assert_no_file "$src/contrib/mcphealth-watch.service"
  assert_no_file "$src/contrib/com.mcphealth.watch.plist"
  assert_contains "$(cat "$src/README.md")" "mcphealth install --service"
}

case_man_page_documents_every_option_help_lists() {
  local text opt cmd missing=""
  text=$(groff -man -Tascii "$MAN" 2>/dev/null | col -b)
  for cmd in "" $COMMANDS; do
    for opt in $("$MCPHEALTH_BIN" $cmd --help | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u); do
      grep -qE -- "(^|[^a-zA-Z-])$opt([^a-zA-Z-]|\$)" <<<"$text" || missing+=" ${cmd:-mcphealth}:$opt"
    done
  done
  assert_eq "$missing" "" "options in --help but not in the man page"
  for cmd in $COMMANDS; do assert_contains "$text" "mcphealth $cmd"; done
}

# Every list of the agents in the man page (an option's ids, the AGENTS section's) names every agent of the binary's
# table: a new agent missing from one fails here, not in a reader's hands.
case_the_man_page_types_no_list_of_agents_and_describes_each_agent_of_the_table() {
  local ids; ids=$(agent_ids | tr '\n' ' ')
  OUT=$("$PY" - "$MCPHEALTH_SOURCE_DIR/man/mcphealth.1" $ids <<'PY'
import re, sys
text = open(sys.argv[1]).read()
ids = sys.argv[2:]
word = lambda i: "\\fB" + i.replace("-", "\\-") + "\\fR"
# A list typed by hand goes stale with the next agent: an option names "an agent's id (see AGENTS)" instead.
flat = text.replace("\n", " ")
for m in re.finditer(r"(?:\\fB[a-z\\-]+\\fR(?: \([^()]*(?:\([^()]*\)[^()]*)*\))?(?:, | or | and |,? or )){3,}\\fB[a-z\\-]+\\fR", flat):
    named = [i for i in ids if word(i) in m.group(0)]
    if len(named) >= 3:
        print("a list of agents: %s" % m.group(0)[:160])
# Each agent of the table has its paragraph in AGENTS (one paragraph may describe two).
agents = text.split(".SH AGENTS", 1)[1].split("\n.SH ", 1)[0]
starts = [p.lstrip() for p in re.split(r"^\.PP$", agents, flags=re.M)]
for i in ids:
    if not any(p.startswith(word(i)) or p.split(":", 1)[0].count(word(i)) for p in starts):
        print("no paragraph in AGENTS: %s" % i)
print("agents %d" % len(ids))
PY
)
  assert_not_contains "$OUT" "a list of agents"
  assert_not_contains "$OUT" "no paragraph"
  [ "$(sed -n 's/^agents //p' <<<"$OUT")" -ge 8 ] || fail "the table's agents were not read: $OUT"
}

case_man_page_documents_every_variable_in_both_spellings() {
  local text var
  text=$(groff -man -Tascii "$MAN" 2>/dev/null | col -b)
  for var in ECC_MCP_HEALTH_STATE_PATH ECC_MCP_CONFIG_PATH ECC_MCP_HEALTH_TTL_MS ECC_MCP_HEALTH_TIMEOUT_MS \
             ECC_MCP_HEALTH_BACKOFF_MS ECC_MCP_HEALTH_MAX_BACKOFF_MS ECC_MCP_HEALTH_FAIL_OPEN ECC_MCP_RECONNECT_COMMAND \
             ECC_MCP_RECONNECT_TIMEOUT_MS ECC_HOOK_INPUT_MAX_BYTES ECC_HOOK_INPUT_TRUNCATED; do
    assert_contains "$text" "$var"
    local ours=${var/ECC_MCP_HEALTH_/MCPHEALTH_}
    ours=${ours/ECC_MCP_/MCPHEALTH_}
    ours=${ours/ECC_HOOK_/MCPHEALTH_}
    assert_contains "$text" "$ours"
  done
  assert_contains "$text" "EXIT STATUS"
  assert_contains "$text" "*/5 * * * * /usr/local/bin/mcphealth probe"
}

case_install_puts_man_page_and_completions_in_place() {
  local build; build=$(dirname "$(dirname "$MCPHEALTH_BIN")")
  cmake --install "$build" --prefix "$T/prefix" >/dev/null
  assert_file_exists "$T/prefix/bin/mcphealth"
  assert_file_exists "$T/prefix/libexec/mcphealth/mcphealth-full"
  # Installed, the two files find each other: a command the front hands on, and a hook that registers the front.
  assert_eq "$("$T/prefix/bin/mcphealth" --version)" "$("$MCPHEALTH_BIN" --version)"
  "$T/prefix/bin/mcphealth" install --events PreToolUse >/dev/null 2>&1 || fail "the installed mcphealth cannot install"
  assert_contains "$(cat "$HOME/.claude/settings.json")" "\"$T/prefix/bin/mcphealth hook --agent claude-code\""
  assert_file_exists "$T/prefix/share/man/man1/mcphealth.1"
  assert_file_exists "$T/prefix/share/bash-completion/completions/mcphealth"
  assert_file_exists "$T/prefix/share/zsh/site-functions/_mcphealth"
  assert_file_exists "$T/prefix/share/fish/vendor_completions.d/mcphealth.fish"
}

# complete_bash WORDS...: runs the bash completion for the words (the last is the one being completed).
complete_bash() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _mcphealth; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$MCPHEALTH_SOURCE_DIR/completions/mcphealth.bash" "$@"
}

case_bash_completes_commands_options_and_cached_names() {
  seed_state '{"version":1,"servers":{"agentmemory":{"status":"unhealthy"},"github":{"status":"healthy"}}}'
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" re | sort | tr '\n' ' ')" "refresh report reset "
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" res)" "reset"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" reset "" | sort | tr '\n' ' ')" "agentmemory github "
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" reset ag)" "agentmemory"
  assert_contains "$(complete_bash "$MCPHEALTH_BIN" probe --de)" "--depth"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" probe --depth h)" "handshake"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" hook --output p)" "passthrough"
  # A --state typed before the command is used for the names too.
  mkdir -p "$T/other"
  echo '{"version":1,"servers":{"elsewhere":{"status":"healthy"}}}' > "$T/other/s.json"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" --state "$T/other/s.json" reset "")" "elsewhere"
}

case_bash_completes_configured_names_for_probe() {
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"notes":{"command":"true"},"search":{"command":"true"}}}'
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" probe "" | sort | tr '\n' ' ')" "notes search "
}

case_every_completion_offers_every_option_help_lists() {
  "$PY" "$MCPHEALTH_SOURCE_DIR/tests/cli/completions_cover_help.py" "$MCPHEALTH_BIN" "$MCPHEALTH_SOURCE_DIR" || fail "a completion misses options"
}

case_bash_completes_event_lists_and_help_topics() {
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" install --events PreToolUse,PostToolUseF)" "PreToolUse,PostToolUseFailure"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" install --agent gemini --events B)" "BeforeTool"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" help sta)" "status"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" install --agent al)" "all"
}

case_completions_take_agents_and_events_from_the_binarys_table() {
  # The ids and events come from `install --list-agents` and `--list-events`: a completion never types the table.
  assert_eq "$("$MCPHEALTH_BIN" install --list-agents | tr '\n' ' ')" "$("$MCPHEALTH_BIN" hook --help | sed -n 's/.*--agent ID.*(\([^)]*\)).*/\1/p' | tr -d ',') "
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" probe --agent cod)" "codex"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" hook --agent cursor --event before)" "beforeMCPExecution"
  assert_eq "$(complete_bash "$MCPHEALTH_BIN" install --agent windsurf --events pre_mcp_tool_use,post)" "pre_mcp_tool_use,post_mcp_tool_use"
  if command -v zsh >/dev/null; then
    local out
    out=$(zsh -c 'source "$1"; _describe() { print -l -- ${(P)4}; }; _mcphealth_bin=$2; typeset -A opt_args;
                  opt_args=(--agent gemini); _mcphealth_agents all; _mcphealth_events' \
      _ "$MCPHEALTH_SOURCE_DIR/completions/_mcphealth" "$MCPHEALTH_BIN" 2>/dev/null | tr '\n' ' ')
    assert_contains "$out" "$("$MCPHEALTH_BIN" install --list-agents | tr '\n' ' ')all "
    assert_contains "$out" "BeforeTool AfterTool SessionStart"
  fi
  for f in mcphealth.bash _mcphealth mcphealth.fish; do
    if grep -q 'claude-code codex' "$MCPHEALTH_SOURCE_DIR/completions/$f"; then fail "$f types the agent table"; fi
  done
  local rc=0
  "$MCPHEALTH_BIN" install --agent all --list-events 2>"$T/err" || rc=$?
  assert_eq "$rc" 2
  assert_contains "$(cat "$T/err")" "does not go with --agent all"
}

case_zsh_asks_the_mcphealth_being_completed_for_server_names() {
  command -v zsh >/dev/null || skip "zsh is not installed"
  seed_state '{"version":1,"servers":{"agentmemory":{"status":"unhealthy"}}}'
  # The helper as _arguments calls it inside a subcommand, where words[1] is the subcommand, not the program.
  local out
  out=$(zsh -c 'source "$1"; _describe() { print -l -- ${(P)4}; }; _mcphealth_bin=$2; words=(status ag); _mcphealth_servers' \
    _ "$MCPHEALTH_SOURCE_DIR/completions/_mcphealth" "$MCPHEALTH_BIN" 2>/dev/null)
  assert_contains "$out" "agentmemory"
}

case_zsh_and_fish_completions_parse() {
  command -v zsh >/dev/null && command -v fish >/dev/null || skip "zsh and fish are not installed"
  zsh -n "$MCPHEALTH_SOURCE_DIR/completions/_mcphealth" || fail "zsh completion does not parse"
  fish -n "$MCPHEALTH_SOURCE_DIR/completions/mcphealth.fish" || fail "fish completion does not parse"
}

case_fish_completes_cached_names() {
  command -v fish >/dev/null || skip "fish is not installed"
  seed_state '{"version":1,"servers":{"agentmemory":{"status":"unhealthy"}}}'
  mkdir -p "$T/bin"
  ln -s "$MCPHEALTH_BIN" "$T/bin/mcphealth"
  local out
  out=$(PATH="$T/bin:$PATH" fish -c "source $MCPHEALTH_SOURCE_DIR/completions/mcphealth.fish; complete -C 'mcphealth reset '")
  assert_contains "$out" "agentmemory"
  out=$(PATH="$T/bin:$PATH" fish -c "source $MCPHEALTH_SOURCE_DIR/completions/mcphealth.fish; complete -C 'mcphealth re'")
  assert_contains "$out" "reset"
  out=$(PATH="$T/bin:$PATH" fish -c "source $MCPHEALTH_SOURCE_DIR/completions/mcphealth.fish; complete -C 'mcphealth policy '")
  assert_contains "$out" "agentmemory"
}

case_the_readme_is_a_front_door_and_every_link_of_the_docs_resolves() {
  local src=$MCPHEALTH_SOURCE_DIR
  [ "$(wc -l < "$src/README.md")" -lt 250 ] || fail "README.md is $(wc -l < "$src/README.md") lines; the reference goes in docs/"
  assert_contains "$(cat "$src/README.md")" "## Contents"
  for cmd in doctor report; do assert_contains "$(cat "$src/README.md")" "mcphealth $cmd"; done
  # Every relative link (a file, and its #anchor as GitHub makes it from a heading) names something that is there.
  "$PY" - "$src" <<'PYEOF' || fail "a link in the README or docs/ names nothing"
import os, re, sys
src = sys.argv[1]
def anchors(path):
    found = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^#{1,6} (.*)", line)
        if m:
            found.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return found
bad = []
files = ["README.md"] + ["docs/" + f for f in sorted(os.listdir(os.path.join(src, "docs"))) if f.endswith(".md")]
for f in files:
    text = open(os.path.join(src, f), encoding="utf-8").read()
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        link = m.group(1)
        if re.match(r"^[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = os.path.normpath(os.path.join(src, os.path.dirname(f), path)) if path else os.path.join(src, f)
        if not os.path.exists(target) or (anchor and target.endswith(".md") and anchor not in anchors(target)):
            bad.append(f + ": " + link)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PYEOF
}

# The GitHub workflow never runs here (README, "Platforms"): it is held to GitHub's schema, and to building on macOS
# what the cross-build builds and running the suites there.
case_the_github_workflow_is_valid_and_builds_and_tests_on_macos() {
  local validator=${MCPHEALTH_ACTION_VALIDATOR:-} wf="$MCPHEALTH_SOURCE_DIR/.github/workflows/ci.yml"
  [ -x "$validator" ] || skip "needs @action-validator/cli (scripts/test installs it)"
  OUT=$("$validator" "$wf" 2>&1) || fail "action-validator refuses $wf: $OUT"
  assert_contains "$(cat "$wf")" "macos-latest"
  assert_contains "$(cat "$wf")" "--target mcphealth mcphealth_full mcphealth_unit"
  assert_contains "$(cat "$wf")" "./build/tests/mcphealth_unit"
  # The CLI suite is not left to Linux: its GNU tools are put on PATH on macOS.
  assert_not_contains "$(grep -B2 'CLI suite' "$wf")" "runner.os == 'Linux'"
  assert_contains "$(cat "$wf")" "gnubin"
  # A workflow with a mistake in it is refused: the check can fail.
  sed 's/runs-on:/runs-onn:/' "$wf" > "$T/broken.yml"
  if "$validator" "$T/broken.yml" >/dev/null 2>&1; then fail "action-validator accepted a broken workflow"; fi
}

# The CLI scripts run on macOS too (the workflow): each one that uses a GNU-only option or Linux's /proc says so in
# its "# Needs:" line, and docs/developing.md lists them as the lint finds them.
case_test_scripts_that_need_gnu_tools_say_so() {
  OUT=$("$PY" "$MCPHEALTH_SOURCE_DIR/tests/cli/gnu_lint.py") || fail "the GNU lint: $OUT"
  local listed
  listed=$(sed -n '/^<!-- gnu-lint -->$/,/^<!-- \/gnu-lint -->$/p' "$MCPHEALTH_SOURCE_DIR/docs/developing.md" | grep '^- ')
  assert_eq "$listed" "$("$PY" "$MCPHEALTH_SOURCE_DIR/tests/cli/gnu_lint.py" --list)" "docs/developing.md's list"
  # A script that uses one without saying so is flagged.
  mkdir -p "$T/lint"
  cp "$MCPHEALTH_SOURCE_DIR/tests/cli/gnu_lint.py" "$T/lint/"
  printf '#!/usr/bin/env bash\n%s -c %%s x\n' stat > "$T/lint/test_x.sh"
  OUT=$("$PY" "$T/lint/gnu_lint.py") && fail "an undeclared GNU option passed the lint"
  assert_contains "$OUT" "test_x.sh uses GNU stat"
}

main "$@"
