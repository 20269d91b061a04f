# bash completion for attribution(1). Installed to share/bash-completion/completions/attribution.
_attribution() {
  local cur prev cmd
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  cmd=${COMP_WORDS[1]:-}
  case "$prev" in
    --config|--rules|-o|--output|--token-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --logs|--record|--replay) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --store) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --format)
      case "$cmd" in
        diagnose) COMPREPLY=($(compgen -W "text json markdown html" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
      esac
      return ;;
  esac
  if [ "$COMP_CWORD" = 1 ]; then
    COMPREPLY=($(compgen -W "diagnose rules sources history nodes serve version --help --version" -- "$cur"))
    return
  fi
  local opts=""
  case "$cmd" in
    diagnose) opts="--job --config --format -o --output --before --after --rules --threads --logs --nodes --start
                    --end --record --replay --store --timings --no-progress --help" ;;
    history) opts="--store --config --since --format --family --host --limit --help" ;;
    nodes) opts="--store --config --since --format --min --help" ;;
    serve) opts="--store --config --listen --token-file --rules --diagnoses --help" ;;
    rules)
      if [ "$COMP_CWORD" = 2 ]; then opts="list show test lint match catalogue export-patterns --help"; else opts="--rules --unmatched --help"; fi ;;
    sources) opts="check --config --help" ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _attribution attribution
