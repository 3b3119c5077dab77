package main

import (
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/internal/skillindex"
)

// findIndexCommand is 'find': the public indexes searched.
func findIndexCommand() *cli.Command {
	return &cli.Command{
		Name:      "find",
		Category:  "plugins",
		Usage:     "search the public indexes (skills.sh, GitHub) for skills to add",
		ArgsUsage: "QUERY",
		Description: "Asks the public indexes at once, each within --timeout: skills.sh's search API\n" +
			"(what 'npx skills find' asks; installs given) and GitHub's code search for SKILL.md\n" +
			"files (what 'gh skill search' asks: 'filename:SKILL.md QUERY'; each repository's\n" +
			"stars given). Each result names its index, the skill, its GitHub owner/repo and\n" +
			"its installs or stars, and the 'skillstore plugin add OWNER/REPO --skill NAME'\n" +
			"line that adds it (none when the index gave a source no command line holds as it\n" +
			"is). The store is not read.\n\n" +
			"GitHub's code search answers only authenticated requests: the token is $GH_TOKEN,\n" +
			"else $GITHUB_TOKEN (e.g. GH_TOKEN=$(gh auth token)); without one, GitHub is not\n" +
			"asked, which a note says (an error with --index github). --skills-sh-url\n" +
			"($SKILLSTORE_SKILLS_SH_URL) and --github-api-url ($SKILLSTORE_GITHUB_API_URL, e.g.\n" +
			"a GitHub Enterprise's https://HOST/api/v3) replace the indexes' addresses.\n\n" +
			"Exit codes: 0 asked (whether anything was found); 1 an index failed (named in one\n" +
			"line, the others' results printed); 2 usage.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "index", Value: "all", Usage: "the indexes to ask: skills.sh, github, or all (comma-separated)"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"L"}, Value: 10, Usage: "at most `N` results from each index"},
			&cli.DurationFlag{Name: "timeout", Value: 15 * time.Second, Usage: "how long each index may take to answer"},
			&cli.StringFlag{Name: "skills-sh-url", EnvVars: []string{"SKILLSTORE_SKILLS_SH_URL"}, Value: skillindex.SkillsShURL, Usage: "skills.sh's `URL`"},
			&cli.StringFlag{Name: "github-api-url", EnvVars: []string{"SKILLSTORE_GITHUB_API_URL"}, Value: skillindex.GitHubAPIURL, Usage: "GitHub's REST API `URL`"},
			newJSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return app.UsageErrorf("find takes a QUERY")
			}
			names, err := app.ParseIndexes(c.String("index"))
			if err != nil {
				return err
			}
			if c.Int("limit") < 1 || c.Int("limit") > 100 {
				return app.UsageErrorf("--limit %d: give 1 to 100", c.Int("limit"))
			}
			if c.Duration("timeout") <= 0 {
				return app.UsageErrorf("--timeout %s: give a positive duration", c.Duration("timeout"))
			}
			token := os.Getenv("GH_TOKEN")
			if token == "" {
				token = os.Getenv("GITHUB_TOKEN")
			}
			var indexes []skillindex.Index
			for _, n := range names {
				switch n {
				case "skills.sh":
					indexes = append(indexes, skillindex.SkillsSh{BaseURL: c.String("skills-sh-url")})
				case "github":
					indexes = append(indexes, skillindex.GitHubCode{APIURL: c.String("github-api-url"), Token: token})
				}
			}
			return app.Find(c.Context, app.FindOptions{Global: global(c), Output: output(c), Query: strings.Join(c.Args().Slice(), " "),
				Indexes: indexes, Limit: c.Int("limit"), Timeout: c.Duration("timeout"), Explicit: c.IsSet("index") && c.String("index") != "all"})
		},
	}
}
