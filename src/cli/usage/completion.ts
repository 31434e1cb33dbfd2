/**
 * `agt completion bash|zsh|fish`: shell completion scripts, generated from the
 * usage texts (every verb, every flag its usage names), so they never fall
 * behind the commands. References complete from the store through the hidden
 * `agt completion refs mcp|agent` (reads the store; starts no server).
 */
import { ALIASES, commandFlags } from './help.js';

const GLOBAL = ['--json', '--store', '--debug', '--show-secrets', '--help'];
// Verbs whose first argument is not a stored reference (a new one, or a file).
const NEW_REF = new Set(['create', 'add', 'add-json', 'import']);

function verbsOf(group: string, flags: Record<string, Record<string, string[]>>): string[] {
  return [...Object.keys(flags[group] ?? {}), ...Object.keys(ALIASES[group] ?? {})];
}

function flagsOf(group: string, verb: string, flags: Record<string, Record<string, string[]>>): string[] {
  const own = flags[group]?.[ALIASES[group]?.[verb] ?? verb] ?? [];
  return [...new Set([...own, ...GLOBAL])];
}

function bash(): string {
  const flags = commandFlags();
  const groups = Object.keys(flags);
  const verbCases = groups.map((g) => `    ${g}) words="${verbsOf(g, flags).join(' ')}" ;;`).join('\n');
  const flagCases = groups
    .flatMap((g) => verbsOf(g, flags).map((v) => `    "${g} ${v}") words="${flagsOf(g, v, flags).join(' ')}" ;;`))
    .join('\n');
  return `# agt completion for bash: source <(agt completion bash)
_agt() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" group="\${COMP_WORDS[1]}" verb="\${COMP_WORDS[2]}" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${groups.join(' ')} help --help" -- "$cur") ); return 0
  fi
  if [ "$COMP_CWORD" -eq 2 ]; then
    case "$group" in
${verbCases}
    esac
    COMPREPLY=( $(compgen -W "$words" -- "$cur") ); return 0
  fi
  if [[ "$cur" == -* ]]; then
    case "$group $verb" in
${flagCases}
    esac
    COMPREPLY=( $(compgen -W "$words" -- "$cur") ); return 0
  fi
  if [ "$COMP_CWORD" -eq 3 ] && { [ "$group" = mcp ] || [ "$group" = agent ]; }; then
    case "$verb" in ${[...NEW_REF].join('|')}) return 0 ;; esac
    COMPREPLY=( $(compgen -W "$(agt completion refs "$group" 2>/dev/null)" -- "$cur") ); return 0
  fi
  return 0
}
complete -o default -F _agt agt
`;
}

function zsh(): string {
  return `#compdef agt
# agt completion for zsh: agt completion zsh > "\${fpath[1]}/_agt", or source <(agt completion zsh)
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit -u; }
autoload -U +X bashcompinit && bashcompinit
${bash().split('\n').slice(1).join('\n')}`;
}

function fish(): string {
  const flags = commandFlags();
  const groups = Object.keys(flags);
  const lines = [
    '# agt completion for fish: agt completion fish > ~/.config/fish/completions/agt.fish',
    'complete -c agt -f',
    `complete -c agt -n "__fish_use_subcommand" -a "${groups.join(' ')} help"`,
  ];
  for (const g of groups) {
    const verbs = verbsOf(g, flags);
    lines.push(
      `complete -c agt -n "__fish_seen_subcommand_from ${g}; and not __fish_seen_subcommand_from ${verbs.join(' ')}" -a "${verbs.join(' ')}"`,
    );
    for (const v of verbs) {
      const longs = flagsOf(g, v, flags)
        .map((f) => `-l ${f.slice(2)}`)
        .join(' ');
      lines.push(`complete -c agt -n "__fish_seen_subcommand_from ${g}; and __fish_seen_subcommand_from ${v}" ${longs}`);
      if ((g === 'mcp' || g === 'agent') && !NEW_REF.has(v))
        lines.push(
          `complete -c agt -n "__fish_seen_subcommand_from ${g}; and __fish_seen_subcommand_from ${v}; and test (count (commandline -opc)) -eq 3" -a "(agt completion refs ${g} 2>/dev/null)"`,
        );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The completion script of `shell`, or undefined for a shell we have none for. */
export function completionScript(shell: string): string | undefined {
  return shell === 'bash' ? bash() : shell === 'zsh' ? zsh() : shell === 'fish' ? fish() : undefined;
}
