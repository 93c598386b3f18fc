#!/usr/bin/env bash
# `mcphealth report`: the history of outages and blocked calls, kept beside the state file, and what it shows.
# Needs: GNU date, GNU stat
source "$(dirname "$0")/lib.sh"

HISTORY() { echo "$(STATE).history.jsonl"; }

# A server that crashes until the flag file exists: down in the hook, blocked twice, back by a probe.
outage_and_recovery() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\",\"--message\",\"Error: NOTES_TOKEN is not set\"")}}"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  touch "$T/up"
  mcph probe svc
  assert_eq "$RC" 0
}

case_an_outage_is_told_with_its_blocked_calls_and_what_the_model_read() {
  outage_and_recovery
  mcph report
  assert_eq "$RC" 0
  assert_contains "$OUT" "svc: down "
  assert_contains "$OUT" "(hook), back "
  assert_contains "$OUT" "(probe)"
  assert_contains "$OUT" "2 calls blocked (claude-code)"
  assert_contains "$OUT" "why: "
  assert_contains "$OUT" "NOTES_TOKEN is not set"
  assert_contains "$OUT" "1 outage, 0 failed calls reached the model, 2 calls blocked; nothing is down now"
  # What the model read is long: it is for -v and --json.
  assert_not_contains "$OUT" "the model was told: "
  mcph report -v
  assert_contains "$OUT" "the model was told: "
  assert_contains "$OUT" 'The MCP server "svc"'
  mcph report --json
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["server"]')" svc
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["blockedCalls"]')" 2
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["outages"][0]["downBy"]')" hook
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["outages"][0]["upBy"]')" probe
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["outages"][0]["stillDown"]')" false
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["outages"][0]["agents"]')" '["claude-code"]'
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["outages"][0]["lengthMs"] >= 0')" true
  # A window that starts after it tells nothing; one server named tells only of that one.
  mcph report --since "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
  assert_eq "$RC" 0
  assert_contains "$OUT" "nothing went down, and no call was blocked"
  mcph report other --json
  assert_eq "$(json_eval "$OUT" 'd["servers"]')" "[]"
}

case_an_open_outage_exits_1_and_says_still_down() {
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  mcph report
  assert_eq "$RC" 1
  assert_contains "$OUT" "still down"
  assert_contains "$OUT" "why: $CLIENT_CLOSED"
  # reset ends it, and says so
  mcph reset svc
  mcph report --json
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["outages"][0]["forgotten"]')" true
}

# Two projects, each with a `db` of its own: proj-b's is down, and proj-a's answering is no recovery of it. Before,
# the history followed the `servers` mirror the two share, so proj-a's first healthy call ended proj-b's outage
# in the report (exit 0, "nothing is down now") while proj-b's calls were still blocked.
case_two_servers_of_one_name_are_two_lines_and_one_answering_ends_no_outage_of_the_other() {
  two_dbs
  PROJ=$B hook "$(PROJ=$B pre_payload db)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "proj-b's db is still blocked"
  mcph report
  assert_eq "$RC" 1 "proj-b's outage is still open: $OUT"
  assert_contains "$OUT" "db (proj-b): down "
  assert_contains "$OUT" "still down: db (proj-b)"
  assert_not_contains "$OUT" "back "
  mcph report --json
  assert_eq "$(json_eval "$OUT" '" / ".join(s["name"] for s in d["stillDown"])')" "db (proj-b)"
  assert_eq "$(json_eval "$OUT" 'sum(s["blockedCalls"] for s in d["servers"] if s["name"] == "db (proj-b)")')" 2
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["project"]')" "$B"
}

case_a_bad_since_is_a_usage_error() {
  mcph report --since yesterday
  assert_eq "$RC" 2
  assert_contains "$ERR" "--since yesterday: give a length"
  mcph report --since 12x
  assert_eq "$RC" 2
}

case_the_history_is_rotated_once_and_never_grows_without_bound() {
  mkdir -p "$HOME/.claude"
  # 600 KB of old lines: past the rotation size.
  "$PY" - "$(HISTORY)" "$(now_ms)" <<'PYEOF'
import json, sys
with open(sys.argv[1], "w") as f:
    line = json.dumps({"at": int(sys.argv[2]) - 3600000, "kind": "blocked", "server": "old", "by": "claude-code", "text": "x" * 500})
    while f.tell() < 600 * 1024:
        f.write(line + "\n")
PYEOF
  local old_size; old_size=$(stat -c %s "$(HISTORY)")
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_eq "$(stat -c %s "$(STATE).history.1.jsonl")" "$old_size" "the full file moved aside whole"
  assert_eq "$(line_count "$(HISTORY)")" 2 "the new file holds the new lines alone (the mark, the failed call)"
  assert_contains "$(cat "$(HISTORY)")" '"kind":"down"'
  # Both are read: the old blocked calls are told from the rotated file.
  mcph report --since 2d --json
  assert_eq "$(json_eval "$OUT" '[s["server"] for s in d["servers"]]')" '["old", "svc"]'
  # A second rotation replaces the first: two files at most.
  "$PY" -c "import sys; open(sys.argv[1], 'a').write(open(sys.argv[2]).read())" "$(HISTORY)" "$(STATE).history.1.jsonl"
  mcph reset svc
  assert_eq "$(ls "$HOME/.claude" | grep -c history)" 2
  assert_eq "$(line_count "$(HISTORY)")" 1
}

case_a_cache_hit_writes_no_history_and_a_cut_line_is_passed_over() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def healthy)}}"
  hook "$(pre_payload svc)"
  assert_eq "$RC" 0
  assert_no_file "$(HISTORY)" # healthy from nothing is no transition
  assert_eq "$(json_get "$(STATE)" 'd["agents"]["claude-code"]["event"]')" PreToolUse
  local before; before=$(stat -c %Y.%s "$(STATE)")
  hook "$(pre_payload svc)"
  assert_eq "$(stat -c %Y.%s "$(STATE)")" "$before"
  assert_no_file "$(HISTORY)"
  printf '{"at":1,"kind":"do' > "$(HISTORY)"
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  mcph report --since 2d --json
  assert_eq "$(json_eval "$OUT" 'd["unreadableLines"]')" 1
  assert_contains "$ERR" "did not read as history"
}

# An outage that began before the window and is still open is in it: `--since 1h` the morning after a server
# died at 2 a.m. shows it, exits 1, and ends with what is still down and the latest diagnosis. Before, it printed
# "nothing went down" and exited 0.
case_an_outage_still_open_from_before_the_window_is_shown_and_exits_1() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":$(stdio_def crash "\"--message\",\"Error: NOTES_TOKEN is not set\"")}}"
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"'
  # Two hours ago, as the history tells it.
  "$PY" -c 'import json,sys; p=sys.argv[1]; lines=[json.loads(l) for l in open(p)]
for l in lines:
    for k in ("at", "ts", "time"):
        if isinstance(l.get(k), int): l[k] -= 2 * 3600 * 1000
open(p, "w").write("".join(json.dumps(l) + "\n" for l in lines))' "$(HISTORY)"
  mcph report --since 1h
  assert_eq "$RC" 1 "an outage is still open"
  assert_contains "$OUT" "1 outage, 0 failed calls reached the model, 0 calls blocked; 1 still down"
  assert_contains "$OUT" "svc: down "
  assert_contains "$OUT" "still down: svc: Error: NOTES_TOKEN is not set"
  mcph report --since 1h --json
  assert_eq "$RC" 1
  assert_eq "$(json_eval "$OUT" 'd["stillDown"][0]["server"]')" svc
  assert_eq "$(json_eval "$OUT" 'd["outages"]')" 1
}

# --since takes the clock time the report prints (local), its last occurrence; what is not a time is refused.
case_since_takes_a_local_clock_time() {
  export TZ=UTC0
  mcph report --since "$("$PY" -c 'import time; print(time.strftime("%H:%M", time.gmtime(time.time() - 3600)))')" --json
  assert_eq "$RC" 0 "$ERR"
  local since_ms
  since_ms=$(json_eval "$OUT" 'int(__import__("datetime").datetime.fromisoformat(d["since"].replace("Z", "+00:00")).timestamp() * 1000)')
  local now_ms_; now_ms_=$(now_ms)
  [ $((now_ms_ - since_ms)) -ge 3540000 ] && [ $((now_ms_ - since_ms)) -le 3660000 ] || fail "since is not an hour ago: $since_ms vs $now_ms_"
  mcph report --since 25:00
  assert_eq "$RC" 2
  assert_contains "$ERR" "a local clock time (22:00, 06:30:15)"
}

main "$@"
