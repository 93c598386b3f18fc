#!/usr/bin/env bash
# mcphealth is two files (docs/developing.md, "Two binaries"): the front, bin/mcphealth, answers a call that needs only
# reading; everything else it hands on, payload and all, to libexec/mcphealth/mcphealth-full.
source "$(dirname "$0")/lib.sh"

# lone_front: a copy of the front with no full binary beside it, as a `cp build/cmd/mcphealth ~/bin` leaves it.
lone_front() {
  mkdir -p "$T/lone/bin"
  cp "$MCPHEALTH_BIN" "$T/lone/bin/mcphealth"
  LONE=$T/lone/bin/mcphealth
}

# lone PAYLOAD [ARGS...]: runs the lone front's hook; sets OUT, ERR, RC.
lone() { HOOK_BIN=$LONE hook "$@"; }

# Without the full binary, the front still answers what needs only reading, so nothing it answers can come from
# the full binary; and what it cannot answer is allowed, saying why, never a crash into the agent's session.
case_the_front_alone_answers_a_cache_hit_a_non_mcp_call_and_the_status_line() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy),\"other\":$(stdio_def healthy)}}"
  hook "$(pre_payload svc)" # the full binary probes and records: svc is healthy, the folder bound
  assert_eq "$RC" 0
  assert_eq "$(entry_field svc status)" healthy
  lone_front
  local before; before=$(cat "$(STATE)")
  lone "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_eq "$ERR" "" "a cache hit is answered by the front alone, in silence"
  lone "$(pre_payload svc)" --agent claude-code
  assert_eq "$ERR" "" "install's form too"
  lone "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Read\",\"tool_input\":{},\"cwd\":\"$PROJ\"}"
  assert_eq "$ERR" "" "a tool that is not MCP's"
  assert_eq "$(cat "$(STATE)")" "$before" "nothing written"
  # The status line runs on every prompt: the front answers its plain form too.
  local line; line=$(cd "$PROJ" && "$LONE" status --statusline 2>&1) || fail "the lone front's status line: $line"
  assert_eq "$line" "$(cd "$PROJ" && "$MCPHEALTH_BIN" status --statusline)"
  assert_eq "$line" "mcp 1✔"
  # `other` has no mark: it needs a probe, which only the full binary makes.
  lone "$(pre_payload other)"
  assert_eq "$RC" 0
  assert_eq "$OUT" ""
  assert_contains "$ERR" "[MCPHealthCheck] cannot start the rest of mcphealth ("
  assert_contains "$ERR" "libexec/mcphealth/mcphealth-full"
  assert_contains "$ERR" "allowing the call"
  assert_eq "$(cat "$(STATE)")" "$before" "the front wrote nothing before handing on"
  # With root options before it, the hook is still the hook: allowed, in its own exit code.
  set +e
  OUT=$(pre_payload other | "$LONE" --state "$(STATE)" hook --output exit-code 2>&1)
  RC=$?
  set -e
  assert_eq "$RC" 0
  assert_contains "$OUT" "cannot start the rest of mcphealth"
  # Passthrough's allow is the payload echoed.
  lone "$(pre_payload other)" --output passthrough
  assert_eq "$RC" 0
  assert_eq "$OUT" "$(pre_payload other)"
  # Any other command: a clear error and 127.
  set +e
  OUT=$("$LONE" status 2>&1)
  RC=$?
  set -e
  assert_eq "$RC" 127
  assert_contains "$OUT" "mcphealth: cannot start the rest of mcphealth ("
  assert_contains "$OUT" "cmake --install"
}

# On a cache hit the front's cost is mostly page faults, one per 64 KiB block of its code touched first
# (cmd/CMakeLists.txt): the functions the calls it answers alone run (cmd/front.order) are laid out together. Linked
# in the linker's own order they spread over 38 blocks; ordered, over 8. A front.order gone stale (most of its names
# renamed away) is said here too.
case_the_front_lays_out_the_code_of_its_common_path_together() {
  if [ "${MCPHEALTH_STATIC_FRONT:-OFF}" != ON ]; then
    echo "skip: this build links the front dynamically (MCPHEALTH_STATIC_FRONT=OFF): its code is not laid out"
    exit 77
  fi
  readelf -p .comment "$MCPHEALTH_BIN" | grep -q LLD || skip "the front was not linked by lld (no ld.lld at configure time)"
  OUT=$("$PY" - "$MCPHEALTH_SOURCE_DIR/cmd/front.order" "$MCPHEALTH_BIN" <<'PY'
import subprocess, sys
order = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
where = {}
for line in subprocess.run(["nm", "--defined-only", sys.argv[2]], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        where.setdefault(parts[2], int(parts[0], 16))
found = [where[name] for name in order if name in where]
print(len(order), len(found), len({a >> 16 for a in found}))
PY
)
  local listed found blocks
  read -r listed found blocks <<<"$OUT"
  [ $((found * 10)) -ge $((listed * 9)) ] ||
    fail "cmd/front.order names $listed functions, the front has $found of them: run scripts/front-order"
  [ "$blocks" -le 12 ] || fail "the common path's functions spread over $blocks blocks of 64 KiB (at most 12)"
}

# The payload the full binary reads is the one the agent sent, however long: past a pipe's 64 KiB, and cut when it
# was cut, said once.
case_a_call_handed_on_arrives_whole() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  local blob; blob=$(head -c 200000 /dev/zero | tr '\0' x)
  hook "{\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"mcp__svc__do_thing\",\"tool_input\":{\"blob\":\"$blob\"},\"cwd\":\"$PROJ\",\"error\":\"MCP error -32000: Connection closed\"}"
  assert_eq "$RC" 0
  assert_eq "$(entry_field svc status)" unhealthy "the failure at the payload's end was read"
  assert_contains "$(entry_field svc lastError)" "MCP error -32000: Connection closed"
  # Cut: the front reads 64 bytes and hands on; the full binary finds it cut too, and says so once.
  export ECC_HOOK_INPUT_MAX_BYTES=64
  hook "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"mcp__svc__big_tool\",\"tool_input\":{\"blob\":\"$blob\"}}" --agent claude-code
  assert_contains "$OUT" '"permissionDecision":"deny"'
  assert_eq "$(grep -o 'Hook input exceeded 64 bytes' <<< "$ERR$OUT" | wc -l | tr -d ' ')" 1 "said once: $ERR"
}

# The full binary is told which front started it, to name the front in hooks; nothing it starts inherits that, and
# it takes the word only from the front that lies beside it.
case_the_full_binary_names_its_front_and_no_child_inherits_it() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  export ECC_MCP_RECONNECT_COMMAND="env > $T/reconnect.env"
  hook "$(pre_payload svc)"
  assert_file_exists "$T/reconnect.env"
  assert_not_contains "$(cat "$T/reconnect.env")" "MCPHEALTH_FRONT_BINARY"
  mcph install --events PreToolUse --json
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$(cat "$HOME/.claude/settings.json")" "\"$MCPHEALTH_BIN hook --agent claude-code\""
  # The full binary run by hand, with a forged word: it names itself.
  local full; full=$(cd "$(dirname "$MCPHEALTH_BIN")/../libexec/mcphealth" && pwd)/mcphealth-full
  rm -f "$HOME/.claude/settings.json"
  MCPHEALTH_FRONT_BINARY=$T/evil "$full" install --events PreToolUse >/dev/null 2>&1 || fail "install by the full binary"
  assert_contains "$(cat "$HOME/.claude/settings.json")" "\"$full hook --agent claude-code\""
  assert_not_contains "$(cat "$HOME/.claude/settings.json")" "evil"
}

main "$@"
