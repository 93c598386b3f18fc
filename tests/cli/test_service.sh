#!/usr/bin/env bash
# `install --service` and `uninstall --service`: the background prober as a systemd user unit or a launchd agent,
# checked as the service managers would read it (systemd-analyze verify; the plist parsed, its shell run), with
# absolute paths, the agent's PATH, the servers' variables named and never copied, and no fail-open setting; and
# `doctor`'s check of the file in place.
# Needs: GNU sed, GNU stat
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
  assert_contains "$OUT" "service: ~/.config/systemd/user/mcphealth-watch.service: written, not enabled"
  assert_not_contains "$OUT" "systemd runs watch --probe" "never a ✔ systemd did not give"
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

# doctor asks the manager whether the prober runs. Here no user manager runs (PID 1 is not systemd, or no session
# bus): `systemctl --user is-enabled` still reads the unit's links, and `is-active` cannot answer, so this covers
# "written, not enabled" and "enabled, could not ask whether it runs"; "running" needs a user manager (not here).
case_doctor_asks_whether_the_service_is_enabled_and_says_when_it_cannot_ask_whether_it_runs() {
  agent_setup
  mcph install --service --manager systemd
  mcph doctor
  assert_contains "$OUT" "mcphealth-watch.service: written, not enabled"
  assert_contains "$OUT" "fix: systemctl --user daemon-reload && systemctl --user enable --now mcphealth-watch.service"
  # `systemctl enable` makes this link: enabled, whoever asks.
  mkdir -p "$(dirname "$(UNIT)")/default.target.wants"
  ln -s "$(UNIT)" "$(dirname "$(UNIT)")/default.target.wants/mcphealth-watch.service"
  mcph doctor
  assert_contains "$OUT" "mcphealth-watch.service: enabled"
  assert_contains "$OUT" "could not ask systemd whether it runs"
  assert_not_contains "$OUT" "runs watch --probe (enabled, running)"
}

# Every value that reaches a unit or a plist is escaped for it or refused: a newline (it would become a directive of
# its own), `%` (a specifier), `$` (expanded on a command line, itself in an assignment), quotes, a space in HOME
# (EnvironmentFile= takes the path whole: quotes would be part of the name).
case_hostile_values_are_escaped_or_refused_in_the_unit_and_the_plist() {
  agent_setup
  # A second HOME, as the agent left it, before the PATH below is recorded in the first.
  local home="$T/my home %h \$USER" bin_dir="$T/opt \$x/bin"
  mkdir -p "$home"
  cp -r "$HOME/." "$home/"
  # A newline in the PATH the agent's hook ran with (what the service takes): refused, nothing written.
  PATH="$PATH"$'\nExecStartPre=/bin/touch '"$T/pwned" hook "$(pre_payload gh)"
  mcph install --service --manager systemd
  assert_eq "$RC" 2
  assert_contains "$ERR" "PATH holds a control character"
  assert_no_file "$(UNIT)"
  mcph install --service --manager launchd
  assert_eq "$RC" 2 "the plist too"
  # %, $ and a quote in PATH; a space, % and $ in HOME; the binary under a folder with $ and a space in its name.
  copy_mcphealth "$bin_dir"
  HOME=$home PATH="$T/a%b:$T/c\$d:$T/e\"f<&:$PATH" hook "$(pre_payload gh)"
  HOME=$home mcph install --service --manager systemd --binary "$bin_dir/mcphealth"
  assert_eq "$RC" 0 "$ERR"
  local unit
  unit=$(cat "$home/.config/systemd/user/mcphealth-watch.service")
  assert_contains "$unit" "Environment=\"PATH=$T/a%%b:$T/c\$d:$T/e\\\"f<&:" "% doubled, \$ itself, the quote escaped"
  assert_contains "$unit" "EnvironmentFile=-$T/my home %%h \$USER/.config/mcphealth/env" "unquoted, % doubled"
  assert_contains "$unit" "ExecStart=\"$T/opt \$x/bin/mcphealth\" watch" "the program's path is never expanded"
  assert_eq "$(grep -c '^ExecStart' <<<"$unit")" 1
  command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
  HOME=$home systemd-analyze verify --man=no "$home/.config/systemd/user/mcphealth-watch.service" ||
    fail "systemd-analyze verify rejects the unit"
  HOME=$home mcph doctor
  assert_not_contains "$OUT" "never writes"
  # The plist: XML's own escapes, and the paths whole.
  HOME=$home mcph install --service --manager launchd --binary "$bin_dir/mcphealth"
  assert_eq "$RC" 0 "$ERR"
  "$PY" - "$home/Library/LaunchAgents/com.mcphealth.watch.plist" "$bin_dir/mcphealth" "$home" "$T/a%b:$T/c\$d:$T/e\"f<&:" <<'PY' || fail "the plist"
import plistlib, sys
p = plistlib.load(open(sys.argv[1], "rb"))
assert p["ProgramArguments"][5] == sys.argv[2], p["ProgramArguments"]
assert p["ProgramArguments"][4] == sys.argv[3] + "/.config/mcphealth/env", p["ProgramArguments"]
assert p["EnvironmentVariables"]["HOME"] == sys.argv[3]
assert p["EnvironmentVariables"]["PATH"].startswith(sys.argv[4])
PY
}

# doctor reads the unit again: a line mcphealth never writes (what a value with a newline became in an older unit),
# and a quoted EnvironmentFile= (which systemd takes as part of the name).
case_doctor_finds_a_line_mcphealth_never_writes_in_its_unit() {
  agent_setup
  mcph install --service --manager systemd
  sed -i "s|^Environment=\\(.*\\)|Environment=\\1\\nExecStartPre=/bin/touch $T/pwned|" "$(UNIT)"
  sed -i 's|^EnvironmentFile=-\(.*\)$|EnvironmentFile=-"\1"|' "$(UNIT)"
  mcph doctor
  assert_contains "$OUT" "it holds a line mcphealth never writes: \`ExecStartPre=/bin/touch $T/pwned\`"
  assert_contains "$OUT" "its EnvironmentFile= is in quotes"
  assert_not_contains "$OUT" "written, not enabled" "a unit with a problem is not asked about"
}

# A unit made by hand (the one an older README told people to copy and edit) is never overwritten silently:
# refused, or with --force kept beside the new one.
case_a_unit_made_by_hand_is_refused_or_kept_as_a_backup_with_force() {
  agent_setup
  write_config "$(UNIT)" "[Service]
ExecStart=/usr/local/bin/mcphealth watch --probe --interval 300"
  local mine; mine=$(cat "$(UNIT)")
  mcph install --service --manager systemd
  assert_eq "$RC" 2
  assert_contains "$ERR" "was not written by mcphealth install --service"
  assert_contains "$ERR" "--force"
  assert_eq "$(cat "$(UNIT)")" "$mine" "left as it was"
  mcph install --service --manager systemd --force
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "the file that was there is kept as $(UNIT).bak-"
  local backup; backup=$(ls "$(UNIT)".bak-*)
  assert_eq "$(cat "$backup")" "$mine"
  assert_contains "$(cat "$(UNIT)")" "Written by mcphealth install"
  # Written by mcphealth: replaced without --force, no backup.
  rm "$backup"
  mcph install --service --manager systemd
  assert_eq "$RC" 0
  assert_eq "$(ls "$(UNIT)".bak-* 2>/dev/null | wc -l)" 0
}

# Documentation=man:mcphealth(1) only where the page is installed: systemd-analyze verify fails on a page it cannot
# find (a by-hand install has none).
case_the_unit_names_the_man_page_only_where_it_is_installed() {
  agent_setup
  copy_mcphealth "$T/prefix/bin"
  mcph install --service --manager systemd --binary "$T/prefix/bin/mcphealth"
  if [ ! -e /usr/share/man/man1/mcphealth.1.gz ] && [ ! -e /usr/share/man/man1/mcphealth.1 ] &&
    [ ! -e /usr/local/share/man/man1/mcphealth.1 ] && [ ! -e /usr/local/share/man/man1/mcphealth.1.gz ]; then
    assert_not_contains "$(cat "$(UNIT)")" "Documentation="
  fi
  mkdir -p "$T/prefix/share/man/man1"
  cp "$MCPHEALTH_SOURCE_DIR/man/mcphealth.1" "$T/prefix/share/man/man1/"
  mcph install --service --manager systemd --binary "$T/prefix/bin/mcphealth"
  assert_contains "$(cat "$(UNIT)")" "Documentation=man:mcphealth(1)"
}

ENVFILE() { echo "$HOME/.config/mcphealth/env"; }

# The service carries the settings the user's shell sets (issue 53 item 2): without them it ran with no reconnect
# and the default backoff. Never a fail-open one, never a credential; the user's own lines kept byte for byte.
case_install_carries_the_shells_settings_into_the_variables_file_and_keeps_the_users_lines() {
  agent_setup
  mkdir -p "$(dirname "$(ENVFILE)")"
  printf "# mine\nGITHUB_TOKEN='my token'\nMCPHEALTH_TTL_MS=1000\nweird line kept as it is\n" > "$(ENVFILE)"
  local mine; mine=$(cat "$(ENVFILE)")
  ECC_MCP_RECONNECT_COMMAND="pm2 restart {server}" MCPHEALTH_TTL_MS=300000 ECC_MCP_HEALTH_BACKOFF_MS=5000 \
    ECC_MCP_HEALTH_FAIL_OPEN=1 ECC_MCP_RECONNECT_WIKI="curl -H 'Authorization: Bearer tok123secretX' https://h.example/r" \
    mcph install --service --manager systemd
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "carried your shell's settings into $(ENVFILE): ECC_MCP_HEALTH_BACKOFF_MS, "
  assert_contains "$(grep carried <<<"$OUT")" "ECC_MCP_RECONNECT_COMMAND"
  assert_contains "$OUT" "$(ENVFILE) sets MCPHEALTH_TTL_MS already, to another value than your shell's: kept its line"
  assert_contains "$OUT" "ECC_MCP_RECONNECT_WIKI holds a credential, so it is not copied"
  local now; now=$(cat "$(ENVFILE)")
  assert_eq "${now:0:${#mine}}" "$mine" "the user's lines, byte for byte, first"
  assert_contains "$now" "ECC_MCP_RECONNECT_COMMAND='pm2 restart {server}'"
  assert_contains "$now" "ECC_MCP_HEALTH_BACKOFF_MS=5000"
  assert_not_contains "$now" "FAIL_OPEN"
  assert_not_contains "$now" "tok123secretX"
  assert_eq "$(stat -c %a "$(ENVFILE)")" 600 "it may hold tokens"
  # Its readers read it alike: the launchd agent's /bin/sh, and mcphealth itself (a probe from cron).
  local got
  got=$(env -i PATH=/usr/bin:/bin sh -c 'set -a; . "$1"; printf "%s|%s" "$ECC_MCP_RECONNECT_COMMAND" "$GITHUB_TOKEN"' sh "$(ENVFILE)")
  assert_eq "$got" "pm2 restart {server}|my token"
  # doctor: what the shell sets and the service lacks, by name (never by value).
  ECC_MCP_RECONNECT_COMMAND="pm2 restart {server}" MCPHEALTH_TTL_MS=300000 ECC_MCP_HEALTH_BACKOFF_MS=5000 \
    ECC_MCP_RECONNECT_WIKI="curl -H 'Authorization: Bearer tok123secretX' https://h.example/r" mcph doctor
  assert_contains "$OUT" "the service's MCPHEALTH_TTL_MS is not your shell's"
  assert_contains "$OUT" "your shell sets ECC_MCP_RECONNECT_WIKI, which the service lacks"
  assert_not_contains "$OUT" "ECC_MCP_RECONNECT_COMMAND, which the service lacks"
  assert_not_contains "$OUT" "tok123secretX"
}

# --no-settings writes none of them and says where each goes.
case_no_settings_lists_each_setting_with_where_it_goes() {
  agent_setup
  ECC_MCP_RECONNECT_COMMAND="pm2 restart {server}" MCPHEALTH_TTL_MS=300000 mcph install --service --manager systemd --no-settings
  assert_eq "$RC" 0 "$ERR"
  assert_no_file "$(ENVFILE)"
  assert_contains "$OUT" "your shell sets ECC_MCP_RECONNECT_COMMAND, which the service lacks (--no-settings): put ECC_MCP_RECONNECT_COMMAND='pm2 restart {server}' in $(ENVFILE), or the policy's reconnect"
  assert_contains "$OUT" "put MCPHEALTH_TTL_MS=300000 in $(ENVFILE), or the policy's ttlMs"
  # XDG_CONFIG_HOME moves the policy file: a service without it reads another one.
  XDG_CONFIG_HOME="$T/xdg" mcph install --service --manager systemd --no-settings
  assert_eq "$RC" 0 "$ERR"
  assert_contains "$OUT" "your shell sets XDG_CONFIG_HOME, which the service lacks (--no-settings): put XDG_CONFIG_HOME=$T/xdg in"
}

# The settings reach a probe from cron through the file: the reconnect command, with a quote in it, runs as written.
case_a_probe_from_cron_takes_the_reconnect_command_from_the_variables_file() {
  write_config "$HOME/.claude.json" "{\"mcpServers\":{\"svc\":$(stdio_def flag "\"--flag-file\",\"$T/up\"")}}"
  hook "$(pre_payload svc)" # the agent's hook binds it (and records the PATH)
  mkdir -p "$(dirname "$(ENVFILE)")"
  printf "ECC_MCP_RECONNECT_COMMAND='touch \"%s/up\" && echo \"it'\\\\''s\" > \"%s/said\"'\n" "$T" "$T" > "$(ENVFILE)"
  edit_entries 'e["nextRetryAt"] = 1'
  OUT=$(env -i HOME="$HOME" PATH=/usr/bin:/bin "$MCPHEALTH_BIN" probe --all --reconnect 2>&1) && RC=0 || RC=$?
  assert_eq "$RC" 0 "$OUT"
  assert_eq "$(cat "$T/said")" "it's"
}

main "$@"
