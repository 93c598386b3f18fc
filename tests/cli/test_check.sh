#!/usr/bin/env bash
# The check a user declares for a server in the policy file (issue 52 item 1): a command, a GET or a tool call that
# a look runs after the server's own probe; a failed call confirmed by it at once; never from a project's files;
# shown by policy, explain-config and doctor, run by none of them.
source "$(dirname "$0")/lib.sh"

SESSION_SERVER="$MCPHEALTH_FIXTURES/session_server.py"
POLICY() { echo "$HOME/.config/mcphealth/policy.json"; }
policy() { write_config "$(POLICY)" "$1"; }
entry() { json_get "$(STATE)" "d[\"servers\"][\"${2:-svc}\"]$1"; }

# session_svc: `svc` is the session fixture over stdio, failing its calls as $T/cue says; its tool calls are kept
# in $T/calls.
session_svc() {
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"command\":\"$PY\",\"args\":[\"$SESSION_SERVER\",\"stdio\",\"--cue-file\",\"$T/cue\",\"--calls-file\",\"$T/calls\"]}}}"
}

# backend_check: svc's declared check, a command that passes while $T/backend exists (as pg_isready would).
backend_check() { policy "{\"servers\":{\"svc\":{\"check\":{\"command\":[\"test\",\"-e\",\"$T/backend\"]}}}}"; }

case_a_command_check_fails_the_probe_of_a_server_that_answers_and_passes_with_it() {
  session_svc
  backend_check
  mcph probe svc --json
  assert_eq "$RC" 1 "its handshake passes, its check fails: down"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["kind"]')" check-failed
  assert_contains "$(json_eval "$OUT" 'd["servers"][0]["reason"]')" "its check (command test -e $T/backend) failed: exited 1"
  assert_eq "$(entry '["status"]')" unhealthy
  assert_eq "$(entry '["probe"]["check"]')" failed
  touch "$T/backend"
  mcph probe svc --json
  assert_eq "$RC" 0 "$OUT"
  assert_eq "$(entry '["status"]')" healthy
  assert_eq "$(entry '["probe"]["check"]')" passed
}

# A check that cannot start here (its program not on this PATH: cron's short one, a typo) is this machine's fault,
# never the server's verdict: nothing is recorded, and the server is not marked down.
case_a_check_that_cannot_start_here_records_nothing() {
  session_svc
  policy '{"servers":{"svc":{"check":{"command":["no-such-health-program-here"]}}}}'
  mcph probe svc --json
  assert_contains "$(json_eval "$OUT" 'd["servers"][0]["reason"]')" "could not run here"
  assert_eq "$(json_get "$(STATE)" 'd.get("servers", {}).get("svc", {}).get("status")')" null "no verdict recorded"
}

case_a_failed_call_is_confirmed_by_the_check_at_once() {
  session_svc
  printf 'iserror connect ECONNREFUSED 127.0.0.1:5432' > "$T/cue"
  # Without a check, one upstream failure proves nothing (issue 52 item 4): noted, not blocked.
  hook "$(post_failure_payload svc 'connect ECONNREFUSED 127.0.0.1:5432')"
  hook "$(pre_payload svc)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"' "no check: the first upstream failure blocks nothing"
  mcph reset svc
  backend_check
  hook "$(post_failure_payload svc 'connect ECONNREFUSED 127.0.0.1:5432')"
  assert_eq "$(entry '["status"]')" unhealthy "the check failed right after the call: marked at once"
  assert_eq "$(entry '["probe"]["kind"]')" check-failed
  hook "$(pre_payload svc)"
  assert_contains "$OUT" '"permissionDecision":"deny"' "the next call is blocked"
  assert_contains "$OUT" "its check (command test -e"
  # The backend back: the next look (a probe here) passes, and the call goes.
  touch "$T/backend"
  rm -f "$T/cue"
  mcph probe svc
  assert_eq "$RC" 0 "$OUT"
  hook "$(pre_payload svc)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"'
}

case_a_failed_call_the_check_passes_is_read_as_without_one() {
  session_svc
  touch "$T/backend"
  backend_check
  hook "$(post_failure_payload svc 'the file you asked for is not there')"
  assert_contains "$ERR" "answered a probe right after (answered, and its check passed); not marking it unhealthy"
  hook "$(pre_payload svc)"
  assert_not_contains "$OUT" '"permissionDecision":"deny"'
  # The client's own proof that the server died is marked as without a check; two in a row are a crash loop.
  hook "$(post_failure_payload svc "$CLIENT_CLOSED")"
  assert_eq "$(entry '["status"]')" unhealthy "the client's proof marks it, its check passing or not"
}

case_a_tool_check_calls_the_tool_after_the_handshake_and_keeps_none_of_its_text() {
  session_svc
  policy '{"servers":{"svc":{"check":{"tool":"echo","arguments":{"text":"health"}}}}}'
  printf 'iserror SECRET-ish words from a third party' > "$T/cue"
  mcph probe svc --json
  assert_eq "$RC" 1 "$OUT"
  assert_eq "$(json_eval "$OUT" 'd["servers"][0]["kind"]')" check-failed
  assert_contains "$OUT" "its check (tool echo {\\\"text\\\":\\\"health\\\"}) failed: the tool answered with isError"
  assert_not_contains "$OUT" "third party" "the tool's text is never shown"
  assert_not_contains "$(cat "$(STATE)")" "third party" "nor kept"
  assert_eq "$(cat "$T/calls")" '{"text": "health"}' "the declared arguments, once"
  rm "$T/cue"
  mcph probe svc
  assert_eq "$RC" 0 "$OUT"
  assert_eq "$(entry '["probe"]["check"]')" passed
}

case_a_url_check_sends_the_definitions_headers_only_to_its_own_origin() {
  start_mcp_http --health /health --log-file "$T/mcp.log"
  local own=$HTTP_PORT
  start_http --status 503 --log-file "$T/other.log"
  local other=$HTTP_PORT
  write_config "$PROJ/.mcp.json" "{\"mcpServers\":{\"svc\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:$own/mcp\",\"headers\":{\"Authorization\":\"Bearer s3cr3t-t0ken-value\"}}}}"
  policy "{\"servers\":{\"svc\":{\"check\":{\"url\":\"http://127.0.0.1:$own/health\",\"headers\":true}}}}"
  mcph probe svc
  assert_eq "$RC" 0 "$OUT"
  assert_contains "$(grep '"/health"' "$T/mcp.log")" "Bearer s3cr3t-t0ken-value" "its own origin, asked for: the headers go"
  policy "{\"servers\":{\"svc\":{\"check\":{\"url\":\"http://127.0.0.1:$other/health\",\"headers\":true}}}}"
  mcph probe svc --json
  assert_eq "$RC" 1 "a 503 from the health endpoint is down"
  assert_contains "$OUT" "failed: HTTP 503"
  assert_contains "$(cat "$T/other.log")" "/health"
  assert_not_contains "$(cat "$T/other.log")" "s3cr3t" "another origin never gets the definition's credentials"
  : > "$T/mcp.log"
  policy "{\"servers\":{\"svc\":{\"check\":{\"url\":\"http://127.0.0.1:$own/health\"}}}}"
  mcph probe svc
  assert_eq "$RC" 0
  assert_not_contains "$(grep '"/health"' "$T/mcp.log")" "s3cr3t" "not asked for: no headers"
  mcph policy svc
  assert_not_contains "$OUT$ERR" "s3cr3t"
}

case_a_check_from_a_file_a_project_controls_never_runs() {
  session_svc
  touch "$T/backend"
  # The project's settings point the hook's policy at a file (outside it: another clone's, say) whose check would
  # run a program; Claude Code passes its settings' env to the hooks it runs.
  local pwn="{\"servers\":{\"svc\":{\"check\":{\"command\":[\"touch\",\"$T/pwned\"]}}}}"
  write_config "$T/elsewhere/policy.json" "$pwn"
  write_config "$PROJ/.claude/settings.json" "{\"env\":{\"MCPHEALTH_POLICY\":\"$T/elsewhere/policy.json\"}}"
  export MCPHEALTH_POLICY="$T/elsewhere/policy.json"
  hook "$(pre_payload svc)" -v
  assert_not_contains "$OUT" '"permissionDecision":"deny"'
  assert_contains "$ERR" "its checks do not run: MCPHEALTH_POLICY is set by $PROJ/.claude/settings.json (its \`env\`), a project's file"
  mcph probe svc
  assert_eq "$RC" 0 "$OUT"
  assert_no_file "$T/pwned"
  mcph explain-config
  assert_contains "$OUT" "has a declared check in $T/elsewhere/policy.json, which does not run: MCPHEALTH_POLICY is set by"
  mcph doctor
  assert_contains "$OUT" "which do not run here"
  # A policy file inside the project folder is the project's, whoever named it.
  rm "$PROJ/.claude/settings.json"
  write_config "$PROJ/policy.json" "$pwn"
  export MCPHEALTH_POLICY="$PROJ/policy.json"
  mcph probe svc
  assert_eq "$RC" 0 "$OUT"
  assert_no_file "$T/pwned"
  mcph policy svc
  assert_contains "$OUT" "not run: the policy file is inside $PROJ"
}

case_status_doctor_explain_and_policy_show_a_check_and_run_none() {
  session_svc
  policy "{\"servers\":{\"svc\":{\"check\":{\"command\":[\"touch\",\"$T/ran\"]}}}}"
  mcph policy svc
  assert_contains "$OUT" "command touch $T/ran"
  mcph policy svc --json
  assert_contains "$OUT" "command touch $T/ran"
  mcph explain-config
  assert_contains "$OUT" "command touch $T/ran"
  mcph doctor
  assert_contains "$OUT" "declared checks (run by looks and \`probe\`, never by doctor): servers.svc: command touch $T/ran"
  mcph status
  assert_no_file "$T/ran"
  mcph probe svc
  assert_file_exists "$T/ran"
}

main "$@"
