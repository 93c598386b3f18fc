# fish completion for mcphealth: subcommands, options, and server names asked of mcphealth itself.
set -l commands hook probe status reset explain-config refresh watch

complete -c mcphealth -f
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -l state -r -F -d 'State file'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -l config -r -F -d 'MCP config file to read instead of searching'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -s v -l verbose -d 'Say more on stderr'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -l version -d 'Print the version'

complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -a hook -d 'Run as the Claude Code hook'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -a probe -d 'Probe MCP servers and record the results'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -a status -d 'Show the health cache'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -a reset -d "Forget servers' health"
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -a explain-config -d 'Explain the configuration'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -a refresh -d 'Re-probe missing or stale marks'
complete -c mcphealth -n "not __fish_seen_subcommand_from $commands" -a watch -d 'Watch live, probe in the background'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l probe -d 'Also probe servers when due'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l interval -x -d 'Re-read configs every S seconds'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l events -d 'JSON lines'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l exec -x -d 'Run a command per transition'
complete -c mcphealth -n "__fish_seen_subcommand_from watch" -l once -d 'One sweep, then exit'
complete -c mcphealth -n "__fish_seen_subcommand_from probe refresh" -l project -x -a '(__fish_complete_directories)' -d 'Only this folder'

complete -c mcphealth -n "__fish_seen_subcommand_from hook" -l output -x -a 'json exit-code passthrough' -d 'How to answer'
complete -c mcphealth -n "__fish_seen_subcommand_from hook" -l event -x -a 'PreToolUse PostToolUseFailure PostToolUse SessionStart' -d 'Event to handle'

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
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l all -d 'Forget every server'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l unhealthy -d 'Forget unhealthy servers'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l dry-run -d 'Write nothing'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -l list -d 'Print cached names'
complete -c mcphealth -n "__fish_seen_subcommand_from explain-config" -l hook-snippet -d 'Print the settings.json fragment'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status reset explain-config" -l json -d 'Print JSON'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status" -s q -l quiet -d 'Print nothing'
complete -c mcphealth -n "__fish_seen_subcommand_from probe status explain-config" -l cwd -x -a '(__fish_complete_directories)' -d 'Project dir'

complete -c mcphealth -n "__fish_seen_subcommand_from probe status explain-config" -a '(mcphealth status --names 2>/dev/null)' -d 'server'
complete -c mcphealth -n "__fish_seen_subcommand_from reset" -a '(mcphealth reset --list 2>/dev/null)' -d 'cached server'
