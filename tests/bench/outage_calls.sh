#!/usr/bin/env bash
# Failed calls that reach the model per outage, under the real Claude Code: for each outage kind, a session whose
# first turn starts the outage and then calls the server four times in four turns, with mcphealth's hooks and
# without any. Prints one row per kind: how many of the four calls reached the model as the client's failure.
#   outage_calls.sh   (MCPHEALTH_BIN, MCPHEALTH_FIXTURES, MCPHEALTH_CLAUDE set, as scripts/bench sets them)
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/../cli/real_agent.sh"

# One session; prints the count of tool results that are neither an answer nor mcphealth's block.
session_failures() {
  local transport=$1 cue=$2 hooks=$3
  need_claude
  "svc_$transport"
  model_script "{\"turns\":[$(cue_turn "$cue" "$(echo_call one)"),[$(echo_call two)],[$(echo_call three)],[$(echo_call four)]]}"
  start_model
  if [ "$hooks" == with ]; then mcph install; fi
  claude_session
  tool_results | grep -v '^"reminder' | grep -cv -e 'echo: ' -e 'The MCP server \\"svc\\"' || true
}

kinds=(
  "stdio exited between calls|stdio|down"
  "stdio died during a call|stdio|die"
  "HTTP connection refused|http|down"
  "HTTP 503, empty body|http|status 503 empty"
  "HTTP 503, JSON body|http|status 503 json"
  "HTTP 403|http|status 403 json"
  "HTTP 429 + Retry-After|http|status 429 json 40"
  "HTTP 401, OAuth token expired|http|status 401 oauth"
  "HTTP 401, no OAuth body|http|status 401 empty"
  "tool error: upstream 429|stdio|iserror upstream API answered 429 Too Many Requests"
)
printf '%-34s %16s %16s\n' "outage (4 calls)" "with mcphealth" "without"
for row in "${kinds[@]}"; do
  IFS='|' read -r label transport cue <<<"$row"
  counts=()
  for hooks in with without; do
    case_count() { session_failures "$transport" "$cue" "$hooks" > "$RESULT"; }
    RESULT=$(mktemp)
    (run_case count >/dev/null)
    counts+=("$(cat "$RESULT")")
    rm -f "$RESULT"
  done
  printf '%-34s %16s %16s\n' "$label" "${counts[0]}" "${counts[1]}"
done
