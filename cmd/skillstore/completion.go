package main

import (
	"io"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/urfave/cli/v2"
)

// The scripts ask the binary itself, through the hidden '__complete'
// command, which words fit: the words typed so far go in, candidates come
// out one per line as "NAME<tab>DESCRIPTION". Nothing printed means a path
// is expected, and the shell completes file names.

// bashCompletion splits the line itself instead of using COMP_WORDS, whose
// word breaks cut "plugin:skill" names at the colon; the replies are then
// trimmed back to bash's idea of the current word.
const bashCompletion = `# bash completion for skillstore; load with: source <(skillstore completion bash)
_skillstore_complete() {
  local line="${COMP_LINE:0:COMP_POINT}" cur="" IFS=$' \t\n'
  local -a words
  read -r -a words <<< "$line"
  if [[ "$line" == *[[:space:]] || ${#words[@]} -le 1 ]]; then
    cur=""
  else
    cur="${words[${#words[@]}-1]}"
    unset 'words[${#words[@]}-1]'
  fi
  local out
  out=$("${words[0]}" __complete "${words[@]:1}" "$cur" 2>/dev/null | cut -f1)
  IFS=$'\n'
  COMPREPLY=($(compgen -W "$out" -- "$cur"))
  if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
    local colon_prefix="${cur%"${cur##*:}"}" i
    for i in "${!COMPREPLY[@]}"; do COMPREPLY[$i]="${COMPREPLY[$i]#"$colon_prefix"}"; done
  fi
  return 0
}
complete -o bashdefault -o default -F _skillstore_complete skillstore
`

const zshCompletion = `#compdef skillstore
# zsh completion for skillstore; load with: source <(skillstore completion zsh)
_skillstore() {
  local -a lines cands
  local l name desc
  lines=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for l in $lines; do
    [[ -z $l ]] && continue
    name=${l%%$'\t'*}
    desc=""
    [[ $l == *$'\t'* ]] && desc=${l#*$'\t'}
    cands+=("${name//:/\\:}:$desc")
  done
  if (( ${#cands} )); then
    _describe 'skillstore' cands
  else
    _files
  fi
}
compdef _skillstore skillstore
`

const fishCompletion = `# fish completion for skillstore; load with: skillstore completion fish | source
function __skillstore_complete
    set -l words (commandline -opc)
    set -e words[1]
    skillstore __complete $words (commandline -ct) 2>/dev/null
end
# Files only where skillstore offers nothing (a path argument).
function __skillstore_wants_files
    set -l names (__skillstore_complete)
    test (count $names) -eq 0
end
complete -c skillstore -f -a '(__skillstore_complete)'
complete -c skillstore -n '__skillstore_wants_files' -F
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Category:  "setup",
		Description: "The scripts complete commands, subcommands and flags, and the names of skills\n" +
			"(NAME@vN after an @), candidates, plugins, targets and remotes read from the store.\n" +
			"  bash: source <(skillstore completion bash)   (in ~/.bashrc)\n" +
			"  zsh:  source <(skillstore completion zsh)    (in ~/.zshrc, after compinit)\n" +
			"  fish: skillstore completion fish | source    (in ~/.config/fish/config.fish)",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return app.UsageErrorf("completion takes one argument: bash, zsh or fish")
			}
			e := getEnv(c)
			switch c.Args().First() {
			case "bash":
				io.WriteString(e.stdout, bashCompletion) // ours, as it is
			case "zsh":
				io.WriteString(e.stdout, zshCompletion) // ours, as it is
			case "fish":
				io.WriteString(e.stdout, fishCompletion) // ours, as it is
			default:
				return app.WithHint(app.UsageErrorf("unknown shell %q", c.Args().First()), "supported shells: bash, zsh, fish")
			}
			return nil
		},
	}
}
