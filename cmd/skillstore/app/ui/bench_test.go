package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/candidates"
	"github.com/skillstore/skillstore/cmd/skillstore/app/serve"
)

// BenchmarkUIPages1k times every page on a store of 1,000 skills (and
// the fixture's candidate, target and loads log), through the guard
// with a session cookie, as a browser asks for them: the best and the
// median of 10 requests each, beside the target of 100 ms and, as a
// reference, git for-each-ref on the same store.
func BenchmarkUIPages1k(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	root := filepath.Join(b.TempDir(), "many")
	for i := range 1000 {
		name := fmt.Sprintf("skill-%04d", i)
		write(b, filepath.Join(root, name, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: Skill number %d, for the page's benchmark.\n---\n# %s\n\nStep one.\nStep two.\n", name, i, name))
	}
	if err := app.Import(ctx, app.AddOptions{Global: f.g, Paths: []string{root}}); err != nil {
		b.Fatal(err)
	}
	if err := app.Export(ctx, app.ExportOptions{Global: f.g}); err != nil {
		b.Fatal(err)
	}
	s, err := New(Options{Global: f.g})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	get := func(p string) {
		resp, err := client.Get(srv.URL + p)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %s", p, resp.Status)
		}
	}
	get("/?token=" + s.guard.token)
	pages := []string{"/candidates", "/candidate?skill=notes:hello", "/skills", "/skills?q=number+42", "/skill?name=skill-0500",
		"/diff?name=notes:hello&a=v1&b=v2", "/targets", "/activity", "/stamp"}
	const reps = 10
	type figure struct {
		page         string
		best, median time.Duration
	}
	var figures []figure
	for b.Loop() {
		figures = figures[:0]
		for _, p := range pages {
			var times []time.Duration
			for range reps {
				start := time.Now()
				get(p)
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			figures = append(figures, figure{p, times[0], times[reps/2]})
		}
	}
	// The commands each page runs, run alone one after the other with
	// their --json thrown away: what the page adds is the rest.
	g := f.g
	g.Stdout = io.Discard
	out := app.Output{JSON: true}
	commands := map[string]func() error{
		"/candidates": func() error { return candidates.List(ctx, candidates.Options{Global: g, Output: out}) },
		"/candidate?skill=notes:hello": func() error {
			return errors.Join(candidates.Show(ctx, candidates.Options{Global: g, Output: out, Skill: "notes:hello", WithFiles: true}),
				candidates.Diff(ctx, candidates.Options{Global: g, Output: out, Skill: "notes:hello"}))
		},
		"/skills":             func() error { return app.List(ctx, app.ListOptions{Global: g, Output: out}) },
		"/skills?q=number+42": func() error { return app.Search(ctx, app.SearchOptions{Global: g, Output: out, Term: "number 42"}) },
		"/targets": func() error {
			return errors.Join(app.ListTargets(ctx, app.TargetOptions{Global: g, Output: out}), app.Status(ctx, app.StatusOptions{Global: g, Output: out}))
		},
		"/activity": func() error {
			return errors.Join(serve.Loads(ctx, serve.LoadsOptions{Global: g, Output: out}), app.List(ctx, app.ListOptions{Global: g, Output: out}),
				candidates.List(ctx, candidates.Options{Global: g, Output: out}))
		},
	}
	alone := map[string]time.Duration{}
	for p, run := range commands {
		var times []time.Duration
		for range reps {
			start := time.Now()
			if err := run(); err != nil {
				b.Fatalf("%s's commands: %v", p, err)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		alone[p] = times[reps/2]
	}
	ref := time.Duration(0)
	if git, err := exec.LookPath("git"); err == nil {
		start := time.Now()
		out, err := exec.Command(git, "--git-dir", f.g.Store, "for-each-ref").Output()
		if err == nil {
			ref = time.Since(start)
			b.Logf("git for-each-ref: %d refs", strings.Count(string(out), "\n"))
		}
	}
	w := os.Stdout
	fmt.Fprintf(w, "\nskillstore ui on a store of 1,000 skills (and a candidate, a target of 1,003 skills, 40 loads): best / median of %d requests, target < 100 ms;\n", reps)
	fmt.Fprintf(w, "beside each, the median of its commands' --json run alone, one after the other (the CLI's own work)\n")
	worst := time.Duration(0)
	for _, fg := range figures {
		fmt.Fprintf(w, "  %-32s %7.1f ms / %7.1f ms", fg.page, ms(fg.best), ms(fg.median))
		if d, ok := alone[fg.page]; ok {
			fmt.Fprintf(w, "   commands alone %7.1f ms", ms(d))
		}
		fmt.Fprintln(w)
		worst = max(worst, fg.median)
	}
	if ref > 0 {
		fmt.Fprintf(w, "  reference: git for-each-ref on the store, one process: %.1f ms\n", ms(ref))
	}
	b.ReportMetric(ms(worst), "ms/slowest-page")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
