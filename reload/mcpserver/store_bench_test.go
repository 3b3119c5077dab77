package mcpserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// BenchmarkStoreServer10k serves a real store of 10,000 skills over an
// in-memory MCP connection (the JSON-RPC round trip included) and reports
// a search and a load beside the reference: git reading the same SKILL.md
// (git cat-file, one process per read, as a shell script would). The
// issue's goals: a search under 50 ms, a load under 10 ms. start is the
// server's first read of the store and index build; heap-bytes/skill is
// what the server keeps per skill served.
func BenchmarkStoreServer10k(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	const n = 10000
	ctx := context.Background()
	dir := b.TempDir()
	writeBenchSkills(b, filepath.Join(dir, "src"), n)
	s, err := store.Init(ctx, filepath.Join(dir, "store"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Import(ctx, filepath.Join(dir, "src"), store.AddOptions{AllowRisk: safety.RiskCritical}); err != nil {
		b.Fatal(err)
	}

	var session *mcp.ClientSession
	b.Run("start", func(b *testing.B) {
		before := heapInUse()
		var heap int64 = -1
		for b.Loop() {
			if session != nil {
				session.Close()
			}
			srv := New(NewStoreCatalog(s), Options{Poll: -1})
			if _, err := srv.refresh(ctx); err != nil {
				b.Fatal(err)
			}
			if heap < 0 {
				heap = int64(heapInUse()) - int64(before)
			}
			ct, st := mcp.NewInMemoryTransports()
			go srv.Run(ctx, st)
			session, err = mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(heap)/n, "heap-bytes/skill")
	})
	defer session.Close()
	call := func(b *testing.B, tool string, args map[string]any) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", tool, err, res)
		}
	}
	queries := []string{"deploy a staging service", "pdf forms", "skill-04242", "rotate keys audit"}
	b.Run("search", func(b *testing.B) {
		i := 0
		for b.Loop() {
			call(b, "find_skills", map[string]any{"query": queries[i%len(queries)]})
			i++
		}
	})
	b.Run("load", func(b *testing.B) {
		i := 0
		for b.Loop() {
			call(b, "load_skill", map[string]any{"name": fmt.Sprintf("skill-%05d", i*7919%n)})
			i++
		}
	})
	b.Run("ref-git-cat-file", func(b *testing.B) {
		i := 0
		for b.Loop() {
			spec := fmt.Sprintf("refs/heads/skills/skill-%05d:SKILL.md", i*7919%n)
			if out, err := exec.Command("git", "--git-dir", s.Dir(), "cat-file", "-p", spec).CombinedOutput(); err != nil {
				b.Fatalf("git cat-file %s: %v\n%s", spec, err, out)
			}
			i++
		}
	})
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// writeBenchSkills writes n skill folders: a SKILL.md of about 2 KB whose
// description and body draw on a small vocabulary of task words, and a
// reference file.
func writeBenchSkills(b *testing.B, root string, n int) {
	words := strings.Fields("deploy staging service pdf forms fill extract rotate keys audit release notes changelog " +
		"review code test coverage database migrate schema docker image build cache lint format commit branch merge " +
		"spreadsheet chart slides brand design api client retry timeout log metrics alert incident postmortem")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("skill-%05d", i)
		var desc, body strings.Builder
		for j := 0; j < 12; j++ {
			desc.WriteString(words[(i*31+j*17)%len(words)] + " ")
		}
		for body.Len() < 2000 {
			fmt.Fprintf(&body, "Step: %s the %s, then check the %s.\n", words[(i+body.Len())%len(words)], words[(i*7+body.Len())%len(words)], words[(i*13)%len(words)])
		}
		folder := filepath.Join(root, name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			b.Fatal(err)
		}
		md := "---\nname: " + name + "\ndescription: " + strings.TrimSpace(desc.String()) + ".\n---\n# " + name + "\n\n" + body.String()
		if err := os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, "reference.md"), []byte(strings.Repeat("Reference for "+name+".\n", 100)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
