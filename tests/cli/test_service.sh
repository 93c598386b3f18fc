#!/usr/bin/env bash
# `install --service` and `uninstall --service`: the background prober as a systemd user unit or a launchd agent,
# checked as the service managers would read it (systemd-analyze verify; the plist parsed, its shell run), with
# absolute paths, the agent's PATH, the servers' variables named and never copied, and no fail-open setting; and
# `doctor`'s check of the file in place.
# Needs: GNU sed
source "$(dirname "$0")/lib.sh"

UNIT() { echo "$HOME/.config/systemd/user/mcphealth-watch.service"; }
PLIST() { echo "$HOME/Library/LaunchAgents/com.mcphealth.watch.plist"; }

# A user server whose definition references a secret, and a hook run under a PATH of the agent's own, which the
# state records for probes outside a session.
agent_setup() {
  mkdir -p "$HOME/.claude" "$T/agent-bin"
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"gh\":{\"command\":\"$PY\",\"args\":[\"$STDIO_SERVER\",\"--mode\",\"crash\"],\"env\":{\"GITHUB_TOKEN\":\"\${GITHUB_TOKEN}\",\"REGION\":\"\${REGION:-eu}\"}}}}"
  PATH="$T/agent-bin:$PATH" GITHUB_TOKEN=ghp_secretvalue123 hook "$(pre_payload gh)"
}

case_the_systemd_unit_verifies_and_names_the_agents_path_and_the_variables_never_their_values() {
  agent_setup
  GITHUB_TOKEN=ghp_secretvalue123 ECC_MCP_HEALTH_FAIL_OPEN=1 mcph install --service --manager systemd
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "wrote $(UNIT)"
  assert_contains "$OUT" "load it with: systemctl --user daemon-reload && systemctl --user enable --now mcphealth-watch.service"
  assert_contains "$OUT" "your servers reference GITHUB_TOKEN, REGION: set each in $HOME/.config/mcphealth/env"
  local unit
  unit=$(cat "$(UNIT)")
  assert_contains "$unit" "ExecStart=$MCPHEALTH_BIN watch --probe --events --interval 60"
  assert_contains "$unit" "Environment=PATH=$T/agent-bin:" "the PATH the agent's hook ran with"
  assert_contains "$unit" "EnvironmentFile=-$HOME/.config/mcphealth/env"
  assert_contains "$unit" "reference GITHUB_TOKEN, REGION"
  assert_not_contains "$unit" "ghp_secretvalue123" "a variable's value"
  assert_not_contains "$unit" "FAIL_OPEN" "the caller's fail-open setting"
  assert_not_contains "$unit" "~"
  command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
  systemd-analyze verify --man=no "$(UNIT)" || fail "systemd-analyze verify rejects the unit"
  # A second run changes nothing.
  mcph install --service --manager systemd
  assert_contains "$OUT" "already in place: $(UNIT)"
}

case_the_launchd_plist_parses_and_its_shell_reads_the_variables_file() {
  agent_setup
  mcph install --service --manager launchd
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "load it with: launchctl bootstrap gui/\$(id -u) '$(PLIST)'"
  "$PY" - "$(PLIST)" "$MCPHEALTH_BIN" "$HOME" "$T/agent-bin" > "$T/args" <<'PY' || fail "the plist: $(cat "$T/args")"
import plistlib, sys
p = plistlib.load(open(sys.argv[1], "rb"))
assert p["Label"] == "com.mcphealth.watch", p["Label"]
args = p["ProgramArguments"]
assert args[5:] == [sys.argv[2], "watch", "--probe", "--events", "--interval", "60"], args
assert p["EnvironmentVariables"]["HOME"] == sys.argv[3]
assert p["EnvironmentVariables"]["PATH"].startswith(sys.argv[4] + ":")
assert p["RunAtLoad"] and p["KeepAlive"]
for path in [p["StandardOutPath"], p["StandardErrorPath"]] + args[4:6]:
    assert path.startswith("/"), path
print("\n".join(args[:5]))
PY
  # launchd's view of it: the shell, then what it becomes (here `env`, to show what the prober would get).
  local shell_args=()
  mapfile -t shell_args < "$T/args"
  mkdir -p "$HOME/.config/mcphealth"
  printf 'GITHUB_TOKEN=from-the-file\nREGION=us\n' > "$HOME/.config/mcphealth/env"
  local got
  got=$(env -i PATH=/usr/bin:/bin "${shell_args[@]}" /usr/bin/env)
  assert_contains "$got" "GITHUB_TOKEN=from-the-file"
  assert_contains "$got" "REGION=us"
  rm "$HOME/.config/mcphealth/env"
  got=$(env -i PATH=/usr/bin:/bin "${shell_args[@]}" /bin/echo started) || fail "the shell fails without the variables file"
  assert_eq "$got" "started"
  assert_not_contains "$(cat "$(PLIST)")" "<string>~"
}

case_a_dry_run_writes_nothing_and_uninstall_removes_only_a_file_it_wrote() {
  agent_setup
  mcph install --service --manager systemd --dry-run
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "$(UNIT) (not written: --dry-run):"
  assert_contains "$OUT" "[Service]"
  assert_no_file "$(UNIT)"
  mcph install --service --manager systemd --json
  assert_eq "$(echo "$OUT" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["changed"], d["variables"], d["manager"])')" \
    "True ['GITHUB_TOKEN', 'REGION'] systemd"
  mcph uninstall --service --manager systemd
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "removed $(UNIT)"
  assert_contains "$OUT" "stop what is running with: systemctl --user disable --now mcphealth-watch.service"
  assert_no_file "$(UNIT)"
  mcph uninstall --service --manager systemd
  assert_eq "$RC" 0 "nothing to remove is not an error"
  assert_contains "$OUT" "nothing to remove"
  # A unit someone wrote by hand is theirs.
  write_config "$(UNIT)" "[Service]
ExecStart=/usr/local/bin/mcphealth watch --probe"
  mcph uninstall --service --manager systemd
  assert_eq "$RC" 2
  assert_contains "$ERR" "was not written by mcphealth install --service"
  assert_file_exists "$(UNIT)"
}

case_the_state_file_given_goes_with_the_service_and_hook_options_do_not() {
  agent_setup
  mcph --state "$T/elsewhere.json" install --service --manager systemd
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$(cat "$(UNIT)")" "ExecStart=$MCPHEALTH_BIN --state $T/elsewhere.json watch --probe"
  mcph install --service --agent codex
  assert_eq "$RC" 2
  assert_contains "$ERR" "excludes"
  mcph install --manager launchd
  assert_eq "$RC" 2 "--manager without --service"
  mcph install --service --binary mcphealth
  assert_eq "$RC" 2
  assert_contains "$ERR" "a service needs the path of an executable file"
}

case_doctor_checks_the_service_file_in_place() {
  agent_setup
  mcph install --service --manager systemd
  mcph doctor
  assert_contains "$OUT" "service: ~/.config/systemd/user/mcphealth-watch.service: systemd runs watch --probe"
  # The traps of a hand-edited one: a bare program name, a fail-open setting left in, no PATH.
  sed -i 's|^ExecStart=.*|ExecStart=mcphealth watch --probe|; /^Environment=/d' "$(UNIT)"
  echo 'Environment=ECC_MCP_HEALTH_FAIL_OPEN=1' >> "$(UNIT)"
  mcph doctor
  assert_contains "$OUT" "it starts \`mcphealth\`, not an absolute path"
  assert_contains "$OUT" "it sets a fail-open variable"
  assert_contains "$OUT" "it sets no PATH"
  assert_contains "$OUT" "fix: write it again: mcphealth install --service"
  # A plist whose paths begin with ~ (launchd does not expand it).
  mcph install --service --manager launchd
  sed -i "s|<string>$HOME/Library/Logs|<string>~/Library/Logs|" "$(PLIST)"
  mcph doctor
  assert_contains "$OUT" "com.mcphealth.watch.plist: it names a path with ~, which launchd does not expand"
}

main "$@"
