package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

const bashCompletion = `# bash completion for skillstore; load with: source <(skillstore completion bash)
_skillstore_complete() {
  local cur opts
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == "-"* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "${cur}" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _skillstore_complete skillstore
`

const zshCompletion = `#compdef skillstore
# zsh completion for skillstore; load with: source <(skillstore completion zsh)
_skillstore() {
  local -a opts
  opts=("${(@f)$(${words[@]:0:#words[@]-1} ${words[-1]} --generate-bash-completion 2>/dev/null)}")
  _describe 'values' opts
}
compdef _skillstore skillstore
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash or zsh)",
		ArgsUsage: "bash|zsh",
		Category:  "setup",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("completion takes one argument: bash or zsh")
			}
			e := getEnv(c)
			switch c.Args().First() {
			case "bash":
				fmt.Fprint(e.stdout, bashCompletion)
			case "zsh":
				fmt.Fprint(e.stdout, zshCompletion)
			default:
				return withHint(usageErrorf("unknown shell %q", c.Args().First()), "supported shells: bash, zsh")
			}
			return nil
		},
	}
}
