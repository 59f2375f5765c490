/**
 * The shell scripts printed by `subctl completion bash|zsh|fish`. Each one asks the binary for
 * the candidates (`subctl __complete [--shell S] -- <cword> <words...>`), so that completion
 * always matches the installed version's command tree; an empty answer falls back to the
 * shell's file-name completion.
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** How to install each script (shown by `subctl completion --help` and in the README). */
const INSTALL: Record<Shell, string[]> = {
  bash: [
    `echo 'eval "$(subctl completion bash)"' >> ~/.bashrc        # this user, every new shell`,
    `subctl completion bash | sudo tee /etc/bash_completion.d/subctl >/dev/null   # every user (bash-completion)`,
  ],
  zsh: [
    `echo 'autoload -Uz compinit && compinit; source <(subctl completion zsh)' >> ~/.zshrc`,
    `subctl completion zsh > "\${fpath[1]}/_subctl"   # or a directory of your own on $fpath; then restart zsh`,
  ],
  fish: [`subctl completion fish > ~/.config/fish/completions/subctl.fish`],
};

export function installHelp(shell?: Shell): string {
  const shells = shell ? [shell] : SHELLS;
  const lines = ['', 'Install:'];
  for (const s of shells) {
    lines.push(`  ${s}:`);
    for (const l of INSTALL[s]) lines.push(`    ${l}`);
  }
  lines.push('', 'Completes groups, verbs, flags, enum values, profile names, and service codes, plan codes and');
  lines.push('batch ids fetched from the platform (cached 5 minutes in the cache directory).');
  return lines.join('\n');
}

const BASH = `# bash completion for subctl                                   -*- shell-script -*-
# Install: echo 'eval "$(subctl completion bash)"' >> ~/.bashrc
_subctl_complete() {
  local line
  COMPREPLY=()
  while IFS= read -r line; do
    [ -n "$line" ] && COMPREPLY+=("$line")
  done < <(subctl __complete -- "$COMP_CWORD" "\${COMP_WORDS[@]}" 2>/dev/null)
  return 0
}
complete -o default -F _subctl_complete subctl
`;

const ZSH = `#compdef subctl
# zsh completion for subctl
# Install: source <(subctl completion zsh)   (after compinit), or save as _subctl on $fpath
_subctl() {
  local -a lines values displays
  local line value
  lines=("\${(@f)$(subctl __complete --shell zsh -- $(( CURRENT - 1 )) "\${words[@]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    [[ -z "$line" ]] && continue
    value="\${line%%$'\\t'*}"
    values+=("$value")
    if [[ "$line" == *$'\\t'* ]]; then
      displays+=("$value  -- \${line#*$'\\t'}")
    else
      displays+=("$value")
    fi
  done
  if (( \${#values[@]} )); then
    compadd -l -d displays -a values
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" == "_subctl" ]]; then
  _subctl "$@"
else
  compdef _subctl subctl
fi
`;

const FISH = `# fish completion for subctl
# Install: subctl completion fish > ~/.config/fish/completions/subctl.fish
function __subctl_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (subctl __complete --shell fish -- (count $tokens) $tokens $current 2>/dev/null)
    if test (count $out) -eq 0
        __fish_complete_path "$current"
        return
    end
    printf '%s\\n' $out
end
complete -c subctl -f -a '(__subctl_complete)'
`;

export function completionScript(shell: Shell): string {
  return shell === 'bash' ? BASH : shell === 'zsh' ? ZSH : FISH;
}
