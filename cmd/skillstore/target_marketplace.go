package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/reload/target"
)

// targetKindFlags are the flags of 'target add' for a marketplace target.
func targetKindFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kind", Value: "skills", Usage: "what export writes: skills (one folder per skill), " +
			target.KindClaudeMarketplace + " or " + target.KindCodexMarketplace + " (a local plugin marketplace)"},
		&cli.StringFlag{Name: "marketplace", Usage: "the marketplace's `NAME` in its catalog (default " + target.DefaultMarketplace + ")"},
		&cli.StringFlag{Name: "managed-plugin", Usage: "export the managed skills (those no plugin owns) as the plugin `NAME`; without it they are left out"},
	}
}

// targetKind reads --kind, --marketplace and --managed-plugin into t.
func targetKind(c *cli.Context, t *target.Target) error {
	kind := c.String("kind")
	if !slices.Contains(target.Kinds, kind) {
		return usageErrorf("--kind %q: kinds are %s", kind, strings.Join(target.Kinds, ", "))
	}
	if kind == "skills" {
		kind = target.KindSkills
	}
	t.Kind, t.Marketplace, t.ManagedPlugin = kind, c.String("marketplace"), c.String("managed-plugin")
	if t.Kind == target.KindSkills && (t.Marketplace != "" || t.ManagedPlugin != "") {
		return usageErrorf("--marketplace and --managed-plugin need --kind %s or %s", target.KindClaudeMarketplace, target.KindCodexMarketplace)
	}
	if t.IsMarketplace() && (c.String("project") != "" || c.NArg() != 2) {
		return usageErrorf("target add --kind %s takes NAME and DIR (the marketplace folder)", t.Kind)
	}
	if t.IsMarketplace() {
		if err := target.CheckMarketplaceName(t.MarketplaceName()); err != nil {
			return usageErrorf("%v", err)
		}
	}
	return nil
}

// marketplaceAdded tells how to add a new marketplace target to its agent,
// once: several lines, each name in them cliout.Quoted (quoteText).
func marketplaceAdded(t target.Target) cliout.Quoted {
	name, dir := cliout.Quote(t.Name), cliout.Quote(t.Dir)
	if t.Kind == target.KindCodexMarketplace {
		return cliout.Quoted(fmt.Sprintf("after 'skillstore export %s', add it to Codex once: codex plugin marketplace add %s", name, dir))
	}
	return cliout.Quoted(fmt.Sprintf("after 'skillstore export %s', add it to Claude Code once:\n  claude plugin marketplace add %s\n  claude plugin install PLUGIN@%s", name, dir, cliout.Quote(t.MarketplaceName())))
}

// marketplaceLeftAlone says why export left a plugin folder or the catalog
// of a marketplace target alone: capture does not read marketplaces, so
// the way out is to move the edit into the store or the file away.
func marketplaceLeftAlone(r reload.Result) string {
	if r.Action == reload.ActionForeign {
		return "left alone: export did not write it; move it away to let export write it"
	}
	return "left alone: edited since export wrote it; record the edit in the store (skillstore add), then move it away to let export write it again"
}
