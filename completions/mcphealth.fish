# fish completion for mcphealth: subcommands, options, and server names asked of mcphealth itself.
set -l commands hook probe status report doctor reset explain-config policy refresh watch install uninstall help
# Before any subcommand: the global options and the subcommands themselves.
set -l top "not __fish_seen_subcommand_from $commands"

complete -c mcphealth -f

# Agents and their events come from the agent table, through install --list-agents and --list-events.
function __mcphealth_events
    set -l tokens (commandline -opc)
    set -l agent claude-code
    for i in (seq (count $tokens))
        if test "$tokens[$i]" = --agent; and test $i -lt (count $tokens)
            set agent $tokens[(math $i + 1)]
        end
    end
    $tokens[1] install --agent $agent --list-events 2>/dev/null
end
complete -c mcphealth -n $top -l state -r -F -d 'State file'
complete -c mcphealth -n $top -l config -r -F -d 'MCP config file to read instead of searching'
complete -c mcphealth -n $top -l policy -r -F -d 'Per-server policy file'
complete -c mcphealth -n $top -s v -l verbose -d 'Say more on stderr'
complete -c mcphealth -n $top -l version -d 'Print the version'

complete -c mcphealth -n $top -a hook -d 'Run as the hook of a coding agent'
complete -c mcphealth -n $top -a probe -d 'Probe MCP servers and record the results'
complete -c mcphealth -n $top -a status -d 'Show the health cache'
complete -c mcphealth -n $top -a report -d 'What happened overnight: outages and blocked calls'
complete -c mcphealth -n $top -a doctor -d 'Is the gate on? Check each agent\'s hook'
complete -c mcphealth -n $top -a reset -d "Forget servers' health"
complete -c mcphealth -n $top -a explain-config -d 'Explain the configuration'
complete -c mcphealth -n $top -a policy -d 'Show the effective per-server policy'
complete -c mcphealth -n $top -a refresh -d 'Re-probe missing or stale marks'
complete -c mcphealth -n $top -a watch -d 'Watch live, probe in the background'
complete -c mcphealth -n $top -a install -d 'Register the hook in an agent\'s settings'
complete -c mcphealth -n $top -a uninstall -d 'Take the hook out of an agent\'s settings'
complete -c mcphealth -n "__fish_seen_subcommand_from install uninstall" -l scope -x -a 'user project local' -d 'Which settings file'
complete -c mcphealth -n "__fish_seen_subcommand_from install uninstall" -l dry-run -d 'Print the diff, write nothing'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l statusline -d 'Also set the status line'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l disable-js-hook -d 'Also remove the JS hook'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l no-trust -d 'Do not ask the agent to trust the hooks'
complete -c mcphealth -n "__fish_seen_subcommand_from install uninstall" -l service -d 'The background prober as a service'
complete -c mcphealth -n "__fish_seen_subcommand_from install uninstall" -l manager -x -a 'systemd launchd' -d 'With --service: the service manager'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l force -d 'With --service: replace a service file mcphealth did not write, keeping a backup'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l no-settings -d 'With --service: list the settings your shell sets instead of writing them'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l events -x -a '(__mcphealth_events)' -d 'Events to register'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l list-agents -d 'Print every agent id'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l list-events -d 'Print the events --agent registers'
complete -c mcphealth -n "__fish_seen_subcommand_from install" -l binary -r -F -d 'The mcphealth the hook runs'
complete -c mcphealth -n $top -a help -d 'Show the help of a command'
complete -c mcphealth -n "__fish_seen_subcommand_from help" -x -a 'hook probe status report doctor reset explain-config policy refresh watch install uninstall'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l probe -d 'Also probe servers when due'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l interval -x -d 'Re-read configs every S seconds'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l every -x -d 'Re-probe a healthy server at least every S seconds'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l events -d 'JSON lines'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l exec -x -d 'Run a command per transition'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l once -d 'One sweep, then exit'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l exec-timeout-ms -x -d 'End --exec after MS'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l prometheus -r -F -d 'Write node_exporter metrics'
complete -c mcphealth -n "__fish_seen_subcommand_from refresh" -l look-again -d 'Also look at down servers in their backoff'
complete -c mcphealth -n "__fish_seen_subcommand_from probe refresh" -l project -x -a '(__fish_complete_directories)' -d 'Only this folder'

complete -c mcphealth -n "__fish_seen_subcommand_from hook probe status refresh watch install uninstall explain-config doctor" -l agent -x -a '(mcphealth install --list-agents 2>/dev/null)' -d 'Which agent'
complete -c mcphealth -n "__fish_seen_subcommand_from hook" -l output -x -a 'json exit-code passthrough' -d 'How to answer'
complete -c mcphealth -n "__fish_seen_subcommand_from hook" -l event -x -a '(__mcphealth_events)' -d 'Event to handle'

complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l all -d 'Probe every configured server'
complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l depth -x -a 'liveness handshake auto' -d 'How deep'
complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l protocol -x -a 'modern legacy auto' -d 'Protocol generation'
complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l timeout-ms -x -d 'Per-server timeout'
complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l parallel -x -d 'Probes at a time'
complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l no-update -d 'Do not write the state file'
complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l reconnect -d 'Run the reconnect command for servers found down'
complete -c mcphealth -n "__fish_seen_subcommand_from probe" -l prometheus -r -F -d 'Write node_exporter metrics'
complete -c mcphealth -n "__fish_seen_subcommand_from status" -l statusline -d 'One short line'
complete -c mcphealth -n "__fish_seen_subcommand_from status" -l names -d 'Print server names'
complete -c mcphealth -n "__fish_seen_subcommand_from status" -l superseded -d 'Also superseded verdicts'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status" -s o -l output -x -a 'table wide json name' -d 'Output format'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status" -l wide -d 'Never cut the table'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status" -l unhealthy -d 'Only what is down'
complete -c mcphealth -n "__fish_seen_subcommand_from status" -l here -d 'Only the servers started in this folder'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l strict -d 'A name not in the cache is an error'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l all -d 'Forget every server'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l unhealthy -d 'Forget unhealthy servers'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l stale -d 'Forget only superseded verdicts'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l dry-run -d 'Write nothing'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l list -d 'Print cached names'
complete -c mcphealth -n "__fish_seen_subcommand_from explain-config" -l hook-snippet -d 'Print the settings.json fragment'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status report doctor reset explain-config policy install uninstall" -l json -d 'Print JSON'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status" -s q -l quiet -d 'Print nothing'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status explain-config policy watch install uninstall doctor" -l cwd -x -a '(__fish_complete_directories)' -d 'Project dir'

complete -c mcphealth -n "__fish_seen_subcommand_from probe status explain-config policy refresh" -a '(mcphealth status --names 2>/dev/null)' -d 'server'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -a '(mcphealth reset --list 2>/dev/null)' -d 'cached server'
complete -c mcphealth -n "__fish_seen_subcommand_from report" -l since -x -d 'How far back: 12h, 7d, or a UTC time'
