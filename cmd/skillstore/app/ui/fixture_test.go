package ui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/serve"
	"github.com/skillstore/skillstore/reload/mcpserver"
)

// fixture is a real store made with the CLI's own workflows: a plugin
// "notes" whose skill hello a person edited and upstream changed too (a
// clean three-way candidate waits) and whose skill tidy both changed on
// the same line (a conflicted one), a managed skill whose SKILL.md holds
// <script>, a target in ~/.claude/skills exported into, and a loads log
// as 'skillstore mcp' writes it.
type fixture struct {
	home, up, target string
	g                app.Global
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tidy's line is changed on both sides: its candidate is conflicted.
const tidyBase = "---\nname: tidy\ndescription: Tidy a folder.\n---\n# Tidy\n\nPut things away.\n\nSweep.\n"

const helloBase = "---\nname: hello\ndescription: Say hello to the user.\n---\n# Hello\n\nGreet the user.\n\nSay it once.\n\nEnd.\n"

// newGlobal is a store's Global with quiet streams, its HOME in the
// test's folder.
func newGlobal(t testing.TB) (app.Global, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("SKILLSTORE_DIR", "")
	return app.Global{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Log: slog.New(slog.DiscardHandler), Store: filepath.Join(root, "store"), LockTimeout: 10 * time.Second}, root
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	g, root := newGlobal(t)
	f := &fixture{home: filepath.Join(root, "home"), up: filepath.Join(root, "up"), g: g}
	f.target = filepath.Join(f.home, ".claude", "skills")
	must := func(err error) {
		t.Helper()
		if err != nil && !errors.Is(err, app.ErrReview) {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(f.up, "skills", "hello", "SKILL.md"), helloBase)
	write(t, filepath.Join(f.up, "skills", "tidy", "SKILL.md"), tidyBase)
	must(app.Init(ctx, g))
	must(app.AddPlugin(ctx, app.PluginAddOptions{Global: g, Source: f.up, ID: "notes"}))
	must(os.MkdirAll(f.target, 0o755))
	must(app.AddTarget(ctx, app.AddTargetOptions{Global: g, Name: "claude", Dir: f.target}))
	local := filepath.Join(root, "local", "hello")
	write(t, filepath.Join(local, "SKILL.md"), strings.Replace(helloBase, "Greet the user.", "Greet the user warmly.", 1))
	must(app.Add(ctx, app.AddOptions{Global: g, Paths: []string{local}, Into: []string{"notes:hello"}}))
	tidy := filepath.Join(root, "local", "tidy")
	write(t, filepath.Join(tidy, "SKILL.md"), strings.Replace(tidyBase, "Put things away.", "Put things away, biggest first.", 1))
	must(app.Add(ctx, app.AddOptions{Global: g, Paths: []string{tidy}, Into: []string{"notes:tidy"}}))
	evil := filepath.Join(root, "local", "evil")
	write(t, filepath.Join(evil, "SKILL.md"), "---\nname: evil\ndescription: <script>document.title='pwned'</script> a hostile description\n---\n"+
		"# Evil\n\n<script>document.body.dataset.pwned='yes'</script>\n<img src=x onerror=\"document.body.dataset.pwned='img'\">\n")
	must(app.Add(ctx, app.AddOptions{Global: g, Paths: []string{evil}}))
	must(app.Export(ctx, app.ExportOptions{Global: g}))
	write(t, filepath.Join(f.up, "skills", "hello", "SKILL.md"), strings.Replace(helloBase, "End.", "End, and wave goodbye.", 1))
	write(t, filepath.Join(f.up, "skills", "tidy", "SKILL.md"), strings.Replace(tidyBase, "Put things away.", "Put things back where they belong.", 1))
	must(app.Sync(ctx, app.SyncOptions{Global: g}))
	log := mcpserver.NewAuditLog(filepath.Join(g.Store, "skillstore", serve.LoadsFileName), 0)
	start := time.Now().Add(-6 * time.Hour)
	for i := range 40 {
		skill, client := "notes:hello", "claude-code"
		if i%3 == 0 {
			skill = "notes:tidy"
		}
		if i%4 == 0 {
			client = "codex"
		}
		must(log.Append(mcpserver.Load{Time: start.Add(time.Duration(i*9) * time.Minute), Client: client, ClientVersion: "1.0",
			Skill: skill, Version: 1, Commit: strings.Repeat("ab", 20), Via: "load_skill"}))
	}
	return f
}
