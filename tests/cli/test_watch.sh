#!/usr/bin/env bash
# `mcphealth watch`: transition events whoever writes them, the background prober (down, still-down, recovered
# within one backoff step), --exec, --once, --prometheus, a clean exit on SIGTERM, and the terminal view.
# Needs: Linux's /proc
source "$(dirname "$0")/lib.sh"

# wait_for_line FILE TEXT: waits (at most 20 s) for a line of FILE containing TEXT.
wait_for_line() {
  local i
  for i in $(seq 1 200); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no line with [$2] in $1: $(cat "$1" 2>/dev/null)"
}

# start_watch ARGS...: `mcphealth watch ARGS` in the background, events into $T/events; WATCH_PID.
start_watch() {
  "$MCPHEALTH_BIN" watch "$@" >"$T/events" 2>"$T/watch.err" &
  WATCH_PID=$!
  FIXTURE_PIDS+=("$WATCH_PID")
  sleep 0.3
}

stop_watch() {
  kill -TERM "$WATCH_PID"
  set +e
  wait "$WATCH_PID"; RC=$?
  set -e
  assert_eq "$RC" 0 "watch exits 0 on SIGTERM"
}

case_events_from_other_processes() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  start_watch --events
  hook "$(pre_payload svc)"
  wait_for_line "$T/events" '"event":"down"'
  assert_contains "$(grep '"event":"down"' "$T/events")" '"by":"hook"'
  assert_contains "$(grep '"event":"down"' "$T/events")" '"server":"svc"'
  mcph reset svc
  wait_for_line "$T/events" '"event":"reset"'
  stop_watch
  # Every line is one JSON object with the documented fields.
  "$PY" - "$T/events" <<'PYEOF' || fail "an event line is not the documented JSON"
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    assert set(e) >= {"ts", "server", "event", "from", "to", "failureCount", "reason", "by", "definition", "project"}, e
PYEOF
}

case_prober_sees_down_still_down_and_recovered() {
  export ECC_MCP_HEALTH_BACKOFF_MS=300 ECC_MCP_HEALTH_MAX_BACKOFF_MS=600 ECC_MCP_HEALTH_TIMEOUT_MS=3000
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\",\"--count-file\",\"$T/count\"")}}"
  start_watch --probe --events
  wait_for_line "$T/events" '"event":"down"'
  wait_for_line "$T/events" '"event":"still-down"'
  assert_contains "$(grep '"event":"still-down"' "$T/events" | head -1)" '"by":"watch"'
  touch "$T/up"
  wait_for_line "$T/events" '"event":"recovered"'
  stop_watch
  "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$(STATE)" || fail "the state file is not valid JSON"
  local pid
  while read -r pid; do is_running "$pid" && fail "probed server $pid left running"; done <"$T/count"
  true
}

case_sigterm_mid_probe_leaves_no_child_and_records_nothing() {
  export ECC_MCP_HEALTH_TIMEOUT_MS=60000
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang "\"--count-file\",\"$T/count\"")}}"
  start_watch --probe --events
  local i
  for i in $(seq 1 100); do [ -s "$T/count" ] && break; sleep 0.05; done
  local pid; pid=$(head -1 "$T/count")
  stop_watch
  for i in $(seq 1 50); do is_running "$pid" || break; sleep 0.05; done
  if is_running "$pid"; then fail "the probed server $pid outlived watch"; fi
  assert_no_file "$(STATE)" # the cut-short probe said nothing about the server
}

case_once_exits_with_status_code() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\"")}}"
  mcph watch --probe --once --events
  assert_eq "$RC" 1
  assert_contains "$OUT" '"event":"down"'
  touch "$T/up"
  mcph reset svc
  mcph watch --probe --once
  assert_eq "$RC" 0
}

case_a_sweep_that_cannot_be_recorded_says_so() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  printf 'x' > "$T/not-a-folder"
  export MCPHEALTH_STATE_PATH="$T/not-a-folder/state.json"
  mcph watch --probe --once
  assert_contains "$ERR" "this sweep's verdicts were not recorded: "
  assert_contains "$ERR" "not-a-folder exists and is not a folder"
}

case_exec_gets_each_event_on_stdin() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  start_watch --events --exec "cat >> $T/exec.log"
  hook "$(pre_payload svc)"
  wait_for_line "$T/exec.log" '"event":"down"'
  stop_watch
}

case_the_readmes_exec_example_works_as_written_and_a_failing_one_says_why() {
  command -v jq >/dev/null || skip "needs jq (scripts/setup installs it)"
  # The README's line, word for word, with a notify-send that writes down what it was given.
  local line exec_arg
  line=$(grep -F "mcphealth watch --probe --exec '" "$MCPHEALTH_SOURCE_DIR/README.md" | head -1)
  [ -n "$line" ] || fail "no --exec example in the README"
  exec_arg=$(sed -E "s/^mcphealth watch --probe --exec '(.*)'\$/\1/" <<<"$line")
  mkdir -p "$T/bin"
  printf '#!/bin/sh\nprintf "%%s|" "$@" >> "%s/notified"\necho >> "%s/notified"\n' "$T" "$T" > "$T/bin/notify-send"
  chmod +x "$T/bin/notify-send"
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  PATH="$T/bin:$PATH" start_watch --events --exec "$exec_arg"
  hook "$(pre_payload svc)"
  wait_for_line "$T/notified" "MCP|svc down|"
  assert_contains "$(cat "$T/watch.err")" "mcphealth: watching " "the start-up line a journal shows"
  stop_watch
  # A command that fails: its last words are in the warning.
  start_watch --events --exec 'echo "first line" >&2; echo "jq: error: bad filter" >&2; exit 3'
  mcph reset svc
  wait_for_line "$T/watch.err" "jq: error: bad filter"
  assert_contains "$(cat "$T/watch.err")" "exited with 3: first line | jq: error: bad filter"
  stop_watch
}

case_prometheus_is_rewritten_after_sweeps() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  mcph watch --probe --once --prometheus "$T/mcp.prom"
  assert_eq "$RC" 0
  assert_contains "$(cat "$T/mcp.prom")" 'mcphealth_up{server="svc",definition="'
}

# fewest_fds PID: the fewest open files PID has over 40 samples in 2 s. A probe in flight holds pipes for a moment;
# the floor between probes is what a leak would raise.
fewest_fds() {
  local i n min=100000
  for i in $(seq 1 40); do
    n=$(ls "/proc/$1/fd" | wc -l)
    [ "$n" -lt "$min" ] && min=$n
    sleep 0.05
  done
  echo "$min"
}

# The long-run check, short: many sweeps over a few servers re-probed every second leave the watcher's floor of
# open files where it was. A leak of one fd per probe would raise it by 30 over 30 probes; two probes in flight
# hold fewer than 10, so a loaded machine that catches one in every sample cannot fail it. scripts/bench runs 32
# servers longer.
case_sweeps_leak_no_file_descriptors() {
  export ECC_MCP_HEALTH_TTL_MS=1000
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"a\":$(stdio_def healthy "\"--count-file\",\"$T/count\""),\"b\":$(stdio_def healthy "\"--count-file\",\"$T/count\""),\"c\":$(stdio_def crash)}}"
  start_watch --probe --events
  local i
  for i in $(seq 1 100); do [ "$(line_count "$T/count")" -ge 4 ] && break; sleep 0.1; done
  local fds_before; fds_before=$(fewest_fds "$WATCH_PID")
  local probes_before; probes_before=$(line_count "$T/count")
  for i in $(seq 1 400); do [ "$(line_count "$T/count")" -ge $((probes_before + 30)) ] && break; sleep 0.1; done
  [ "$(line_count "$T/count")" -ge $((probes_before + 30)) ] || fail "the watcher did not keep probing"
  local fds_after; fds_after=$(fewest_fds "$WATCH_PID")
  [ "$fds_after" -lt $((fds_before + 10)) ] || fail "the watcher's floor of open files grew from $fds_before to $fds_after"
  stop_watch
}

# pane_fits SESSION WIDTH HEIGHT: the pane's text, checked to fit: no more lines than HEIGHT, none wider than WIDTH.
pane_fits() {
  local screen
  screen=$(tm capture-pane -p -t "$1")
  "$PY" - "$2" "$3" "$screen" <<'PYEOF' || fail "the view does not fit $2x$3"
import sys
w, h, screen = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lines = screen.rstrip("\n").split("\n")
wide = [l for l in lines if len(l) > w]
if len(lines) > h or wide:
    print("lines: %d (of %d); too wide: %r" % (len(lines), h, wide[:2]), file=sys.stderr)
    sys.exit(1)
PYEOF
  printf '%s\n' "$screen"
}

case_terminal_view_fits_the_window_at_every_size() {
  command -v tmux >/dev/null || skip "needs tmux (scripts/setup installs it)"
  # Twenty servers of a project with a long folder under the home folder; a third of them fail with a traceback.
  local dir="$HOME/src/a-project-with-a-rather-long-folder-name/and/some/levels/below" defs="" i
  mkdir -p "$dir"
  for i in $(seq -w 1 20); do
    defs+="${defs:+,}\"s$i\":$(stdio_def "$([ $((10#$i % 3)) -eq 0 ] && echo import-missing || echo healthy)")"
  done
  write_config "$HOME/.claude.json" "{\"projects\":{\"$dir\":{\"mcpServers\":{$defs}}}}"
  (cd "$dir" && "$MCPHEALTH_BIN" probe --all >/dev/null 2>&1) || true
  # A problem of the state file's own, which belongs in the header.
  printf 'x' > "$(STATE).corrupt-20261201-000000"
  local session="" size w h screen
  cleanup_add "tmux -S '$T/tmux' kill-server"
  for size in 150x40 150x20 100x30 80x24; do
    w=${size%x*} h=${size#*x}
    # The next size's session opens before the last one closes: a server left with no session exits.
    tm new-session -d -s "at-$size" -x "$w" -y "$h" "cd '$dir' && HOME='$HOME' '$MCPHEALTH_BIN' watch; sleep 30"
    [ -z "$session" ] || tm kill-session -t "$session"
    session="at-$size"
    for i in $(seq 1 100); do [[ $(tm capture-pane -p -t "$session") == *"q: quit"* ]] && break; sleep 0.1; done
    (cd "$dir" && "$MCPHEALTH_BIN" reset s03 s06 >/dev/null)
    for i in $(seq 1 100); do [[ $(tm capture-pane -p -t "$session") == *"s06 (below)  reset"* ]] && break; sleep 0.1; done
    (cd "$dir" && "$MCPHEALTH_BIN" probe s03 s06 >/dev/null 2>&1) || true
    for i in $(seq 1 100); do [[ $(tm capture-pane -p -t "$session") == *"s06 (below)  down"* ]] && break; sleep 0.1; done
    screen=$(pane_fits "$session" "$w" "$h")
    assert_contains "$(head -1 <<<"$screen")" "mcphealth watch — ~/.claude/mcp-health-cache.json" "$size: the title"
    assert_contains "$screen" "SERVER" "$size: the table's header"
    assert_contains "$(sed -n '2p' <<<"$screen")" "! a corrupt state file was moved aside" "$size: the state file's problem in the header"
    assert_contains "$screen" "s06 (below)  down (none -> unhealthy, by probe): " "$size: the transition"
    assert_not_contains "$screen" "Traceback" "$size: a whole traceback"
    assert_not_contains "$screen" 'File "' "$size: a whole traceback"
    if [ "$w" -ge 150 ]; then
      assert_contains "$screen" "by probe): ModuleNotFoundError: No module named" "$size: one line per transition"
      assert_contains "$screen" "local ~/src/a-project-with" "$size: the home folder as ~"
    fi
  done
  # A resized window is drawn again to its new size.
  tm resize-window -t "$session" -x 90 -y 15
  for i in $(seq 1 50); do
    [ "$(tm capture-pane -p -t "$session" | wc -l)" -le 15 ] && break
    sleep 0.1
  done
  pane_fits "$session" 90 15 >/dev/null
}

case_once_prints_the_table_it_saw() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  mcph watch --probe --once
  assert_eq "$RC" 0
  assert_contains "$OUT" "SERVER"
  assert_contains "$OUT" "svc"
  assert_contains "$OUT" "✔ healthy"
  assert_not_contains "$OUT" '"event"'
}

case_terminal_view_redraws_and_q_restores() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  local session="mcphealth-test-$$"
  tm_session "$session" 160 40 "HOME='$HOME' '$MCPHEALTH_BIN' watch; echo watch-ended-\$?; sleep 30"
  local screen=""
  await_screen "$session" "mcphealth watch"
  assert_contains "$screen" "q: quit"
  (cd "$PROJ" && hook "$(pre_payload svc)")
  await_screen "$session" "svc (proj)  down"
  assert_contains "$screen" "✘ unhealthy" "the table shows the new state"
  assert_contains "$screen" "svc (proj)  down (none -> unhealthy, by hook)" "the log pane shows the transition (and which project's svc)"
  tm send-keys -t "$session" q
  await_screen "$session" "watch-ended-0"
  tm kill-session -t "$session" 2>/dev/null || true
  assert_contains "$screen" "watch-ended-0" "q ends watch with 0 and gives the terminal back"
}

case_once_probes_every_server_as_probe_all_does() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy "\"--count-file\",\"$T/count\"")}}"
  mcph watch --probe --once
  assert_eq "$RC" 0
  assert_eq "$(line_count "$T/count")" 1
  # Its mark is fresh now; one sweep probes it again all the same.
  mcph watch --probe --once
  assert_eq "$(line_count "$T/count")" 2
}

case_the_header_says_whether_and_how_often_it_probes() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy "\"--count-file\",\"$T/count\"")}}"
  start_watch --events
  for i in $(seq 1 50); do [ -s "$T/watch.err" ] && break; sleep 0.1; done
  assert_contains "$(cat "$T/watch.err")" "(not probing: shows what hooks and probes record; --probe keeps it fresh)"
  stop_watch
  start_watch --probe --every 1 --events
  for i in $(seq 1 50); do [ -s "$T/watch.err" ] && break; sleep 0.1; done
  assert_contains "$(cat "$T/watch.err")" "(probing: each healthy server every ~1s, a down one at its retry)"
  assert_not_contains "$(cat "$T/watch.err")" "starting servers with the PATH"
  # With a two-minute TTL a healthy server is probed again within seconds, not after ~108 s.
  for i in $(seq 1 100); do [ "$(line_count "$T/count")" -ge 3 ] && break; sleep 0.1; done
  [ "$(line_count "$T/count")" -ge 3 ] || fail "--every 1 did not re-probe a healthy server"
  stop_watch
}

case_a_service_starts_servers_with_the_agents_path() {
  mkdir -p "$T/agentbin"
  printf '#!/bin/sh\nexec %s %s --mode healthy\n' "$PY" "$STDIO_SERVER" > "$T/agentbin/notes-mcp"
  chmod +x "$T/agentbin/notes-mcp"
  write_config "$PROJ/.mcp.json" '{"mcpServers":{"notes":{"command":"notes-mcp","args":[]}}}'
  PATH="$T/agentbin:$PATH" hook '{"hook_event_name":"SessionStart","cwd":"'"$PROJ"'"}'
  PATH=/usr/bin:/bin mcph watch --probe --once --events
  assert_eq "$RC" 0
  assert_eq "$(entry_field notes status)" healthy
  PATH=/usr/bin:/bin start_watch --probe --events
  for i in $(seq 1 50); do [ -s "$T/watch.err" ] && break; sleep 0.1; done
  assert_contains "$(cat "$T/watch.err")" "starting servers with the PATH Claude Code's hook ran with"
  stop_watch
}

# A server down all night is re-checked at every backoff step: each check is an event on the stream, but --exec runs
# for the change only (the README's notify-send example notified at every retry).
case_exec_runs_for_changes_not_for_each_failed_check() {
  export ECC_MCP_HEALTH_BACKOFF_MS=200 ECC_MCP_HEALTH_MAX_BACKOFF_MS=300 ECC_MCP_HEALTH_TIMEOUT_MS=3000
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash)}}"
  start_watch --probe --events --exec "cat >> $T/exec.log"
  wait_for_line "$T/events" '"event":"still-down"'
  local i
  for i in $(seq 1 100); do [ "$(grep -c '"event":"still-down"' "$T/events")" -ge 3 ] && break; sleep 0.1; done
  stop_watch
  [ "$(grep -c '"event":"still-down"' "$T/events")" -ge 3 ] || fail "fewer than three re-checks were seen"
  assert_eq "$(grep -c '"event":"down"' "$T/exec.log")" 1
  assert_eq "$(grep -c '"event":"still-down"' "$T/exec.log")" 0
}

# While a sweep waits for a hung server (60 s here), the view stays live: it is drawn again every second, saying how
# far the sweep has come and for how long. (It froze until the probe ended.)
case_the_view_stays_live_while_a_sweep_waits_for_a_hung_server() {
  local marker="hung-live-$$-$RANDOM" session="mcphealth-live-$$" screen="" later=""
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang "\"--message\",\"$marker\"")}}"
  tm_session "$session" 160 40 \
    "cd '$PROJ' && HOME='$HOME' MCPHEALTH_TIMEOUT_MS=60000 '$MCPHEALTH_BIN' watch --probe; sleep 30"
  await_screen "$session" "probing: 0 of 1 done, "
  assert_contains "$screen" "probing: 0 of 1 done, " "the view is drawn while the probe waits"
  pgrep -f "$marker" >/dev/null || fail "the hung server is not the one being probed"
  # Two seconds on, still within the probe's wait: drawn again, the seconds moved on.
  sleep 2.2
  later=$(tm capture-pane -p -t "$session")
  assert_contains "$later" "probing: 0 of 1 done, "
  [ "$(grep -o 'done, [0-9]*s' <<<"$later")" != "$(grep -o 'done, [0-9]*s' <<<"$screen")" ] ||
    fail "the view did not move on in 2 s: $(grep -o 'done, [0-9]*s' <<<"$later")"
  tm send-keys -t "$session" q
}

case_q_is_heard_while_a_sweep_waits_for_a_hung_server() {
  local marker="hung-for-q-$$-$RANDOM" session="mcphealth-q-$$" i
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def hang "\"--message\",\"$marker\"")}}"
  # The probe would wait 60 s for the hung server: q must not wait with it.
  tm_session "$session" 160 40 \
    "cd '$PROJ' && HOME='$HOME' MCPHEALTH_TIMEOUT_MS=60000 '$MCPHEALTH_BIN' watch --probe; echo watch-ended-\$? > '$T/ended'; sleep 30"
  for i in $(seq 1 100); do pgrep -f "$marker" >/dev/null && break; sleep 0.1; done
  pgrep -f "$marker" >/dev/null || fail "the hung server was never started"
  tm send-keys -t "$session" q
  # Heard within the probe's wait, not after it: 20 s is a third of it.
  for i in $(seq 1 200); do [ -s "$T/ended" ] && break; sleep 0.1; done
  assert_eq "$(cat "$T/ended" 2>/dev/null)" "watch-ended-0" "q ends the watch while the probe waits"
  for i in $(seq 1 50); do pgrep -f "$marker" >/dev/null || break; sleep 0.1; done
  ! pgrep -f "$marker" >/dev/null || fail "the hung server outlived the watch"
}

main "$@"
