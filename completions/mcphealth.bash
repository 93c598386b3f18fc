# bash completion for mcphealth: subcommands, options, and server names (asked of mcphealth itself:
# `status --names` for configured and cached servers, `reset --list` for cached ones), agents and their events
# (`install --list-agents`, `install --agent ID --list-events`: the agent table is never typed here).

_mcphealth_names() { # _mcphealth_names BIN ROOT_ARGS... -- SUBCOMMAND ARGS...
  "$@" 2>/dev/null
}

_mcphealth() {
  local cur prev bin cmd i
  COMPREPLY=()
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=""
  [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
  bin=${COMP_WORDS[0]}
  local root=() # the root options typed so far, so names come from the same state file and configs
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --state | --config | --policy)
        root+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}")
        ((i++))
        ;;
      -*) ;;
      *)
        cmd=${COMP_WORDS[i]}
        break
        ;;
    esac
  done

  case $prev in
    --state | --config | --policy | --prometheus)
      COMPREPLY=($(compgen -f -- "$cur"))
      return
      ;;
    --cwd | --project)
      COMPREPLY=($(compgen -d -- "$cur"))
      return
      ;;
    --output | -o)
      if [ "$cmd" = hook ]; then
        COMPREPLY=($(compgen -W "json exit-code passthrough" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "table wide json name" -- "$cur"))
      fi
      return
      ;;
    --event)
      local agent=claude-code j
      for ((j = 1; j < COMP_CWORD; j++)); do [ "${COMP_WORDS[j]}" = --agent ] && agent=${COMP_WORDS[j + 1]}; done
      COMPREPLY=($(compgen -W "$("$bin" install --agent "$agent" --list-events 2>/dev/null)" -- "$cur"))
      return
      ;;
    --agent)
      local agents
      agents=$("$bin" install --list-agents 2>/dev/null)
      case $cmd in install | uninstall) agents+=" all" ;; esac
      COMPREPLY=($(compgen -W "$agents" -- "$cur"))
      return
      ;;
    --depth)
      COMPREPLY=($(compgen -W "liveness handshake auto" -- "$cur"))
      return
      ;;
    --scope)
      COMPREPLY=($(compgen -W "user project local" -- "$cur"))
      return
      ;;
    --manager)
      COMPREPLY=($(compgen -W "systemd launchd" -- "$cur"))
      return
      ;;
    --binary)
      COMPREPLY=($(compgen -f -- "$cur"))
      return
      ;;
    --protocol)
      COMPREPLY=($(compgen -W "modern legacy auto" -- "$cur"))
      return
      ;;
    --events)
      # install --events: the events of the agent named so far (Claude Code's by default), comma-separated.
      local agent=claude-code events done_part="" j
      for ((j = 1; j < COMP_CWORD; j++)); do [ "${COMP_WORDS[j]}" = --agent ] && agent=${COMP_WORDS[j + 1]}; done
      events=$("$bin" install --agent "$agent" --list-events 2>/dev/null)
      [[ $cur == *,* ]] && done_part=${cur%,*},
      COMPREPLY=($(compgen -P "$done_part" -W "$events" -- "${cur##*,}"))
      return
      ;;
    --timeout-ms | --parallel | --since | --every | --interval)
      return
      ;;
  esac

  if [ -z "$cmd" ]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "--state --config --policy -v --verbose --version --help" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "hook probe status report doctor reset explain-config policy refresh watch install uninstall help" -- "$cur"))
    fi
    return
  fi

  local opts="" names=""
  case $cmd in
    help) names="hook probe status report doctor reset explain-config policy refresh watch install uninstall" ;;
    hook) opts="--output --event --agent --help" ;;
    probe)
      opts="--all --agent --depth --protocol --timeout-ms --parallel -o --output --json --wide --unhealthy --no-update --reconnect --prometheus --project --cwd -q --quiet --help"
      names=$(_mcphealth_names "$bin" "${root[@]}" status --names)
      ;;
    status)
      opts="-o --output --json --wide --names --statusline --unhealthy --here --superseded --agent -q --quiet --cwd --help"
      names=$(_mcphealth_names "$bin" "${root[@]}" status --names)
      ;;
    report)
      opts="--since --json --help"
      names=$(_mcphealth_names "$bin" "${root[@]}" status --names)
      ;;
    doctor) opts="--agent --cwd --json --help" ;;
    reset)
      opts="--all --unhealthy --stale --dry-run --json --list --strict --help"
      names=$(_mcphealth_names "$bin" "${root[@]}" reset --list)
      ;;
    explain-config)
      opts="--json --hook-snippet --agent --cwd --help"
      names=$(_mcphealth_names "$bin" "${root[@]}" status --names)
      ;;
    policy)
      opts="--json --cwd --help"
      names=$(_mcphealth_names "$bin" "${root[@]}" status --names)
      ;;
    watch) opts="--probe --interval --every --events --exec --exec-timeout-ms --once --prometheus --agent --cwd --help" ;;
    install) opts="--agent --scope --cwd --events --binary --statusline --disable-js-hook --no-trust --service --manager --force --no-settings --dry-run --json --list-agents --list-events --help" ;;
    uninstall) opts="--agent --scope --cwd --service --manager --dry-run --json --help" ;;
    refresh)
      opts="--project --agent --look-again --help"
      names=$(_mcphealth_names "$bin" "${root[@]}" status --names)
      ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$names" -- "$cur"))
  fi
}

complete -F _mcphealth mcphealth
