#!/usr/bin/env bash
# What runs without the user (cron's `probe --all`, the service's `watch --probe`) lives in another environment than
# the agent: it judges with the agent's environment or records nothing and says why (issue 53 item 1). The
# variables file (~/.config/mcphealth/env) gives what cron and the service lack.
source "$(dirname "$0")/lib.sh"

ENVFILE() { echo "$HOME/.config/mcphealth/env"; }

# `wiki`: a user server whose definition takes a token from the environment (it answers with any token), bound by
# a hook that ran with the agent's token.
wiki_bound_by_the_agent() {
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"wiki\":{\"command\":\"$PY\",\"args\":[\"$STDIO_SERVER\",\"--mode\",\"healthy\"],\"env\":{\"WIKI_TOKEN\":\"\${WIKI_TOKEN}\"}}}}"
  WIKI_TOKEN=agents-token hook "$(pre_payload wiki)"
  assert_eq "$RC" 0
  assert_eq "$(json_eval "$(cat "$(STATE)")" 'd["servers"]["wiki"]["status"]')" healthy
}

# cron's environment: no token, a short PATH.
cron() { env -i HOME="$HOME" PATH=/usr/bin:/bin "$@"; }

case_cron_without_the_token_records_nothing_and_says_where_the_token_goes() {
  wiki_bound_by_the_agent
  local before; before=$(cat "$(STATE)")
  OUT=$(cron "$MCPHEALTH_BIN" probe --all --json 2>"$T/err") && RC=0 || RC=$?
  assert_eq "$RC" 0 "not probed is not down: $(cat "$T/err")"
  assert_eq "$(json_eval "$OUT" '[s["kind"] for s in d["servers"]]')" '["not-probed"]'
  assert_contains "$OUT" "not probed: WIKI_TOKEN is not set in this environment; put it in $(ENVFILE)"
  assert_eq "$(json_eval "$(cat "$(STATE)")" 'd["servers"]["wiki"]["status"]')" healthy "no misconfigured verdict"
  # In the user's shell, where the token is set, nothing is red.
  WIKI_TOKEN=agents-token mcph status
  assert_eq "$RC" 0 "$OUT"
  assert_not_contains "$OUT" misconfigured
}

case_the_variables_file_gives_cron_the_agents_token() {
  wiki_bound_by_the_agent
  mkdir -p "$(dirname "$(ENVFILE)")"
  printf '# the service and cron read this\nWIKI_TOKEN=agents-token\n' > "$(ENVFILE)"
  edit_entries 'e["expiresAt"] = e["checkedAt"] = 1' # an old verdict, which a probe from cron renews
  OUT=$(cron "$MCPHEALTH_BIN" probe --all --json 2>"$T/err") && RC=0 || RC=$?
  assert_eq "$RC" 0 "$(cat "$T/err")"
  assert_eq "$(json_eval "$OUT" '[s["kind"] for s in d["servers"]]')" '["answered"]'
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["notRecorded"]')" null
  assert_eq "$(json_eval "$(cat "$(STATE)")" 'd["servers"]["wiki"]["checkedAt"] > 1')" true "recorded"
}

case_another_token_in_the_variables_file_records_nothing_and_leaves_one_row() {
  wiki_bound_by_the_agent
  mkdir -p "$(dirname "$(ENVFILE)")"
  printf "WIKI_TOKEN='an old token'\n" > "$(ENVFILE)"
  OUT=$(cron "$MCPHEALTH_BIN" probe --all 2>"$T/err") && RC=0 || RC=$?
  assert_contains "$OUT" "wiki: not recorded: wiki is built from WIKI_TOKEN, and no agent's hook has used the definition this environment builds"
  WIKI_TOKEN=agents-token mcph status --superseded --json
  assert_eq "$(json_eval "$OUT" 'len(d["servers"])')" 1 "no second row for the other token"
  # The same from watch, as the service runs it.
  OUT=$(cron "$MCPHEALTH_BIN" watch --probe --once 2>"$T/err") && RC=0 || RC=$?
  WIKI_TOKEN=agents-token mcph status --superseded --json
  assert_eq "$(json_eval "$OUT" 'len(d["servers"])')" 1 "watch wrote no second row either: $(cat "$T/err")"
}

# The first cron run, before any session: a command only the agent's PATH has is not called dead, and the hint
# says how to make it known (it said "install libcurl").
case_the_first_cron_run_says_to_start_a_session_or_give_the_absolute_command() {
  write_config "$HOME/.claude.json" '{"mcpServers":{"notes":{"command":"notes-mcp","args":[]}}}'
  OUT=$(cron "$MCPHEALTH_BIN" probe --all 2>&1) && RC=0 || RC=$?
  assert_eq "$RC" 0 "$OUT"
  assert_contains "$OUT" "hint: notes: start a session of Claude Code first (its hook records the PATH it starts servers with), or give the command's absolute path"
  assert_not_contains "$OUT" "libcurl"
  assert_no_file "$(STATE).d/verdicts" # nothing recorded
  wiki_bound_by_the_agent
  OUT=$(cron "$MCPHEALTH_BIN" probe wiki 2>&1) && RC=0 || RC=$?
  assert_contains "$OUT" "hint: wiki: put the variable in ~/.config/mcphealth/env"
}

# wiki's token rotated: a session in proj-a ran with the old one (refused: its verdict is down, and proj-a stays
# bound to that definition), then one in proj-b with the new one, which answers. WIKI_TOKEN is the new one after.
wiki_rotated_between_two_folders() {
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"wiki\":{\"command\":\"$PY\",\"args\":[\"$STDIO_SERVER\",\"--mode\",\"flag\",\"--flag-file\",\"$T/\${WIKI_TOKEN}\",\"--message\",\"401 Unauthorized\"],\"env\":{\"WIKI_TOKEN\":\"\${WIKI_TOKEN}\"}}}}"
  touch "$T/new"
  local main=$PROJ
  mkdir -p "$T/proj-a" "$T/proj-b"
  PROJ=$T/proj-a
  WIKI_TOKEN=old hook "$(pre_payload wiki)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "the old token is refused"
  export WIKI_TOKEN=new # rotated, in the shell and the agent
  PROJ=$T/proj-b
  hook "$(pre_payload wiki)"
  assert_eq "$RC" 0
  assert_not_contains "$OUT" "deny"
  PROJ=$main
}

# Old verdicts retire (issue 53 item 4): after a token rotation the old definition's verdict stayed, bound by the
# folders whose sessions ran before: two rows, status and report exit 1 for good, and reset --stale found nothing.
case_a_rotated_token_retires_the_old_definitions_verdict() {
  wiki_rotated_between_two_folders
  mcph status
  assert_eq "$RC" 0 "the old verdict counted: $OUT"
  assert_eq "$(grep -c '^wiki' <<<"$OUT")" 1
  mcph status --superseded
  assert_contains "$OUT" "wiki (retired: args changed, env WIKI_TOKEN changed)"
  mcph report
  assert_eq "$RC" 0 "report counted the old outage as still down: $OUT"
  assert_contains "$OUT" "retired (args changed, env WIKI_TOKEN changed)"
  mcph reset --stale
  assert_contains "$OUT" "reset wiki (superseded definition "
  mcph status --superseded --json
  assert_eq "$(json_eval "$OUT" '[r["status"] for r in d["servers"]]')" '["healthy"]'
}

# A status (or a long-running watch) in an environment with another token than the agent's shows no phantom
# "never checked" row for the definition it builds, and calls the agent's verdict in use (issue 53 item 7).
case_another_environments_definition_is_no_phantom_never_checked_row() {
  wiki_bound_by_the_agent
  WIKI_TOKEN=another-token mcph status --json
  assert_eq "$RC" 0 "$OUT"
  assert_eq "$(json_eval "$OUT" '[(r["name"], r["status"]) for r in d["servers"]]')" '[["wiki", "healthy"]]'
  assert_eq "$(json_eval "$OUT" 'd["warnings"]')" '[]'
  OUT=$(cron "$MCPHEALTH_BIN" status 2>&1) && RC=0 || RC=$?
  assert_not_contains "$OUT" "never checked"
}

# What no agent uses any more goes once its TTL has run out, without a reset (issue 53 item 4): a retired verdict,
# and the mirror entry of a name no config defines (the main state file otherwise grows with every name seen once).
# A fresh entry of such a name stays: the hook blocks that name while it lasts.
case_the_prober_forgets_retired_verdicts_and_unused_names_after_their_ttl() {
  wiki_rotated_between_two_folders
  # Two names no config defines, as failed calls leave them: one long past its TTL, one fresh.
  hook "$(post_failure_payload ghost "$CLIENT_CLOSED")"
  hook "$(post_failure_payload recent "$CLIENT_CLOSED")"
  local long_ago=$(($(now_ms) - 86400000))
  edit_entries "
if e.get('toolName', e.get('server')) in ('ghost',) or (e.get('status') == 'unhealthy' and 'definition' in e and e.get('toolName') == 'wiki'):
    e['checkedAt'] = e['expiresAt'] = $long_ago
    if 'nextRetryAt' in e: e['nextRetryAt'] = $long_ago + 1000
"
  python3 - "$(STATE)" "$long_ago" <<'PY'
import json, sys
p, t = sys.argv[1], int(sys.argv[2])
d = json.load(open(p))
g = d["servers"]["ghost"]
g["checkedAt"] = g["expiresAt"] = t
g["nextRetryAt"] = t + 1000
json.dump(d, open(p, "w"))
PY
  mcph status --superseded --json
  assert_eq "$(json_eval "$OUT" 'sorted(r["status"] for r in d["servers"] if r["name"] == "wiki")')" '["healthy", "unhealthy"]'
  mcph watch --probe --once
  mcph status --superseded --json
  assert_eq "$(json_eval "$OUT" 'sorted(r["status"] for r in d["servers"] if r["name"] == "wiki")')" '["healthy"]' "the retired verdict went"
  assert_eq "$(json_get "$(STATE)" '"ghost" in d["servers"]')" false "the old name's entry went"
  assert_eq "$(json_get "$(STATE)" '"recent" in d["servers"]')" true "a fresh one stays"
}

# A project folder moved (issue 53 item 4): its server's verdict in the old folder was down, the moved folder's answers;
# the old row is retired and says where the folder went.
case_a_moved_folders_old_verdict_retires_and_says_where_it_went() {
  local old=$T/work/old new=$T/work/new
  mkdir -p "$old"
  write_config "$old/.mcp.json" "{\"mcpServers\":{\"srv\":$(stdio_def flag '"--flag-file","up"')}}"
  PROJ=$old
  hook "$(pre_payload srv)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "the old folder's server is down"
  mv "$old" "$new"
  touch "$new/up"
  PROJ=$new
  cd "$new"
  hook "$(pre_payload srv)"
  assert_not_contains "$OUT" "deny"
  mcph status --superseded
  assert_contains "$OUT" "srv (retired: folder moved to $new)"
  mcph status
  assert_eq "$RC" 0 "the old folder's verdict counted: $OUT"
}

main "$@"
