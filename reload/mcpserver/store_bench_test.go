package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// BenchmarkStoreServer10k serves a real store of 10,000 skills over an
// in-memory MCP connection (the JSON-RPC round trip included) and reports
// a search and a load beside the reference: git reading the same SKILL.md
// (git cat-file, one process per read, as a shell script would). The
// issue's goals: a search under 50 ms, a load under 10 ms. start is the
// server's first read of the store, index build and digests of every
// file; heap-bytes/skill is what the server keeps per skill served.
//
// The Skills extension: skills-list-page is one page of skills/list (500
// entries with their frontmatter and digests), skills-list-all the walk
// of all 20 pages, skills-get one entry, skills-read one file by its
// skill:// URI; beside them git cat-file --batch (one process, started
// once) reading the same bytes: every file of the store, which is what
// the listing's digests cover (ref-cat-file-batch-all), and one skill's
// files (ref-cat-file-batch-skill). The goals: skills/list of
// 10,000 skills well under 50 ms, skills/get well under 5 ms.
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
	client := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
	indexFile := s.LocalPath(IndexFileName)
	// start reads the store with no index file (and writes one);
	// start-warm starts from the file start wrote, as a server started
	// again on a store it served before.
	start := func(b *testing.B, warm bool) {
		if session != nil { // the previous server's, gone before the heap is measured
			session.Close()
			session = nil
			time.Sleep(100 * time.Millisecond)
		}
		before := heapInUse()
		var heap int64 = -1
		for b.Loop() {
			if session != nil {
				session.Close()
			}
			if !warm {
				os.Remove(indexFile)
			} else if _, err := os.Stat(indexFile); err != nil {
				b.Fatalf("no index file to start from: %v", err)
			}
			srv := New(NewStoreCatalog(s), Options{Poll: -1, IndexFile: indexFile})
			if _, err := srv.refresh(ctx); err != nil {
				b.Fatal(err)
			}
			if heap < 0 {
				heap = int64(heapInUse()) - int64(before)
			}
			b.StopTimer()
			srv.saves.Wait()
			b.StartTimer()
			ct, st := mcp.NewInMemoryTransports()
			go srv.Run(ctx, st)
			session, err = client.Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(heap)/n, "heap-bytes/skill")
	}
	b.Run("start", func(b *testing.B) { start(b, false) })
	b.Run("start-warm", func(b *testing.B) { start(b, true) })
	if session == nil { // start was left out by -bench
		srv := New(NewStoreCatalog(s), Options{Poll: -1})
		ct, st := mcp.NewInMemoryTransports()
		go srv.Run(ctx, st)
		if session, err = client.Connect(ctx, ct, nil); err != nil {
			b.Fatal(err)
		}
	}
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
	if err := mcp.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](client, methodListSkills); err != nil {
		b.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*getSkillParams, *getSkillResult](client, methodGetSkill); err != nil {
		b.Fatal(err)
	}
	list := func(b *testing.B, cursor string) *listSkillsResult {
		res, err := mcp.CallCustomMethod[*listSkillsParams, *listSkillsResult](ctx, session, methodListSkills, &listSkillsParams{Cursor: cursor})
		if err != nil || len(res.Skills) == 0 {
			b.Fatalf("skills/list: %v", err)
		}
		return res
	}
	b.Run("skills-list-page", func(b *testing.B) {
		for b.Loop() {
			list(b, "")
		}
	})
	b.Run("skills-list-all", func(b *testing.B) {
		for b.Loop() {
			n, cursor := 0, ""
			for {
				res := list(b, cursor)
				n += len(res.Skills)
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if n != 10000 {
				b.Fatalf("skills/list walked %d skills", n)
			}
		}
	})
	b.Run("skills-get", func(b *testing.B) {
		i := 0
		for b.Loop() {
			uri := fmt.Sprintf("skill://skill-%05d/SKILL.md", i*7919%n)
			if _, err := mcp.CallCustomMethod[*getSkillParams, *getSkillResult](ctx, session, methodGetSkill, &getSkillParams{URI: uri}); err != nil {
				b.Fatalf("skills/get %s: %v", uri, err)
			}
			i++
		}
	})
	b.Run("skills-read", func(b *testing.B) {
		i := 0
		for b.Loop() {
			uri := fmt.Sprintf("skill://skill-%05d/reference.md", i*7919%n)
			if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
				b.Fatalf("resources/read %s: %v", uri, err)
			}
			i++
		}
	})
	batch := newCatFileBatch(b, s.Dir())
	defer batch.close()
	b.Run("ref-cat-file-batch-all", func(b *testing.B) {
		for b.Loop() {
			for i := range n {
				batch.read(b, fmt.Sprintf("refs/heads/skills/skill-%05d:SKILL.md", i))
				batch.read(b, fmt.Sprintf("refs/heads/skills/skill-%05d:reference.md", i))
			}
		}
	})
	b.Run("ref-cat-file-batch-skill", func(b *testing.B) {
		i := 0
		for b.Loop() {
			batch.read(b, fmt.Sprintf("refs/heads/skills/skill-%05d:SKILL.md", i*7919%n))
			batch.read(b, fmt.Sprintf("refs/heads/skills/skill-%05d:reference.md", i*7919%n))
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

// catFileBatch is one 'git cat-file --batch' process: a read writes a
// name and reads the object back, as a program built on git would.
type catFileBatch struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newCatFileBatch(b *testing.B, gitDir string) *catFileBatch {
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &catFileBatch{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
}

func (c *catFileBatch) read(b *testing.B, spec string) []byte {
	if _, err := io.WriteString(c.in, spec+"\n"); err != nil {
		b.Fatal(err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		b.Fatalf("git cat-file --batch %s: %q", spec, header)
	}
	size, _ := strconv.Atoi(f[2])
	data := make([]byte, size+1)
	if _, err := io.ReadFull(c.out, data); err != nil {
		b.Fatal(err)
	}
	return data[:size]
}

func (c *catFileBatch) close() {
	c.in.Close()
	c.cmd.Wait()
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
