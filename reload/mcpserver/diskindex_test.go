package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// indexStore is a real store with skills of every kind the extension
// meets: plain ones, one with a script and a binary file, one whose
// frontmatter has no JSON form, one without a description.
type indexStore struct {
	t   *testing.T
	s   *store.Store
	src string
}

func newIndexStore(t *testing.T) *indexStore {
	t.Helper()
	tmp := t.TempDir()
	s, err := store.Init(context.Background(), filepath.Join(tmp, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &indexStore{t: t, s: s, src: filepath.Join(tmp, "src")}
	for i := range 12 {
		st.add(fmt.Sprintf("tool-%02d", i), fmt.Sprintf("---\nname: tool-%02d\ndescription: Tool %d handles %s reports.\n---\n# Tool\nRun step %d, then check the %s output.\n", i, i, []string{"pdf", "sales", "deploy"}[i%3], i, []string{"log", "chart"}[i%2]),
			map[string]string{"reference.md": fmt.Sprintf("Reference %d.\n", i)})
	}
	st.add("scripted", "---\nname: scripted\ndescription: Runs a script.\nversion: 0x1f\n---\nUse scripts/run.sh.\n",
		map[string]string{"scripts/run.sh": "#!/bin/sh\necho hi\n", "logo.bin": "\x00\x01\xff\xfe"})
	st.add("odd-yaml", "---\nname: odd-yaml\ndescription: A frontmatter with .inf.\nlimit: .inf\n---\nInfinity body.\n", nil)
	st.add("no-desc", "---\nname: no-desc\n---\nA skill without a description.\n", nil)
	return st
}

// add publishes a version of skill name: its SKILL.md and other files.
func (st *indexStore) add(name, md string, files map[string]string) {
	st.t.Helper()
	dir := filepath.Join(st.src, name)
	if err := os.RemoveAll(dir); err != nil {
		st.t.Fatal(err)
	}
	files = mapWith(files, "SKILL.md", md)
	for p, data := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			st.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			st.t.Fatal(err)
		}
	}
	res, err := st.s.Add(context.Background(), []string{dir}, store.AddOptions{AllowRisk: safety.RiskCritical})
	if err != nil || len(res) != 1 || res[0].Err != nil {
		st.t.Fatalf("add %s: %v %+v", name, err, res)
	}
}

func mapWith(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

func (st *indexStore) indexPath() string { return st.s.LocalPath(IndexFileName) }

// countingCatalog counts what the server reads from the store: trees
// and blobs.
type countingCatalog struct {
	Catalog
	trees, blobs int
}

func (c *countingCatalog) Files(ctx context.Context, trees []skillfs.ID) (map[skillfs.ID][]FileRef, error) {
	c.trees += len(trees)
	return c.Catalog.Files(ctx, trees)
}

func (c *countingCatalog) ReadBlobs(ctx context.Context, ids []skillfs.ID, fn func(skillfs.ID, []byte) error) error {
	c.blobs += len(ids)
	return c.Catalog.ReadBlobs(ctx, ids, fn)
}

// serve starts a server on the store (index file at path, "" for none),
// reads the published set and returns what it answers (see answers),
// with the trees and blobs it read, once its index file is written.
func (st *indexStore) serve(path string, readOnly bool) (string, *countingCatalog, *Server) {
	st.t.Helper()
	cat := &countingCatalog{Catalog: NewStoreCatalog(st.s)}
	srv := New(cat, Options{Poll: -1, IndexFile: path, IndexReadOnly: readOnly})
	got := answers(st.t, srv)
	srv.saves.Wait()
	return got, cat, srv
}

// answers is everything the server tells of the published set: every
// skills/list entry (frontmatter, digests, sizes), searches with their
// scores, the skills served by the tools and those the extension refuses.
func answers(t *testing.T, srv *Server) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	cursor := ""
	for {
		res, err := srv.listSkills(ctx, nil, &listSkillsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Skills {
			b.Write(e)
			b.WriteByte('\n')
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	ix, err := srv.refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, q := range []string{"pdf", "deploy reports", "chart", "script", "infinity", "tool-03", "description"} {
		fmt.Fprintf(&b, "search %q:", q)
		for _, r := range ix.Search(q, 50) {
			fmt.Fprintf(&b, " %s v%d %s %v;", r.Name, r.Version, r.Description, r.Score)
		}
		b.WriteByte('\n')
	}
	for _, name := range sortedNames(srv.ext.skills) {
		e := srv.ext.skills[name]
		v, err := e.v.content()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s v%d %s %s refused=%q manifest=%s\n", e.Name, e.Version, e.Commit, e.Tree, e.refused, v.manifestDigest())
	}
	return b.String()
}

func sortedNames(m map[string]*extSkill) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	return sortStrings(out)
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestIndexFileGivesTheSameAnswers: a server with no index file, one that
// writes it (cold) and one that starts from it (warm) answer alike, and
// the warm one reads no tree and no blob from the store.
func TestIndexFileGivesTheSameAnswers(t *testing.T) {
	st := newIndexStore(t)
	plain, _, _ := st.serve("", false)
	if _, err := os.Stat(st.indexPath()); err == nil {
		t.Fatal("a server without IndexFile wrote one")
	}
	cold, cat, _ := st.serve(st.indexPath(), false)
	if cat.trees == 0 || cat.blobs == 0 {
		t.Fatalf("the cold server read %d trees, %d blobs", cat.trees, cat.blobs)
	}
	if cold != plain {
		t.Fatalf("with an index file being written the answers differ:\n%s\nwithout:\n%s", cold, plain)
	}
	d, err := readIndexFile(st.indexPath())
	if err != nil || d == nil {
		t.Fatalf("the index file written does not read back: %v", err)
	}
	warm, cat, _ := st.serve(st.indexPath(), false)
	if cat.trees != 0 || cat.blobs != 0 {
		t.Errorf("the warm server read %d trees and %d blobs, want none", cat.trees, cat.blobs)
	}
	if warm != plain {
		t.Fatalf("from the index file the answers differ:\n%s\nwithout:\n%s", warm, plain)
	}
	if !strings.Contains(plain, `"version":31`) || !strings.Contains(plain, "refused=\"its frontmatter has no JSON form") {
		t.Fatalf("the store lacks the kinds of skill the test is about:\n%s", plain)
	}
}

// TestIndexFileServesANewVersion: after a restart, a skill changed
// meanwhile is served with its new text and digests, read from the
// store (its new tree and new blobs only); the file then holds it.
func TestIndexFileServesANewVersion(t *testing.T) {
	st := newIndexStore(t)
	st.serve(st.indexPath(), false)
	before, err := os.ReadFile(st.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	newMD := "---\nname: tool-03\ndescription: Tool 3 now writes quarterly forecasts.\n---\n# Tool\nA zeppelin appears in the new text.\n"
	st.add("tool-03", newMD, map[string]string{"reference.md": "Reference 3.\n"})

	warm, cat, srv := st.serve(st.indexPath(), false)
	if cat.trees != 1 || cat.blobs != 1 {
		t.Errorf("the new version cost %d trees and %d blobs, want its tree and its new SKILL.md", cat.trees, cat.blobs)
	}
	plain, _, _ := st.serve("", false)
	if warm != plain {
		t.Fatalf("after the change the answers differ from a server without the file:\n%s\nwithout:\n%s", warm, plain)
	}
	srv.mu.Lock()
	found := srv.index.Search("zeppelin", 5)
	e := srv.ext.skills["tool-03"]
	srv.mu.Unlock()
	if len(found) != 1 || found[0].Name != "tool-03" || found[0].Version != 2 || !strings.Contains(found[0].Description, "quarterly") {
		t.Errorf("search of the new text: %+v", found)
	}
	v, err := e.v.content()
	if err != nil {
		t.Fatal(err)
	}
	if f := v.file("SKILL.md"); f == nil || f.digest != sha256.Sum256([]byte(newMD)) || f.size != int64(len(newMD)) {
		t.Errorf("SKILL.md of the new version is served as %+v, want the digest of its new text", f)
	}
	after, err := os.ReadFile(st.indexPath())
	if err != nil || bytes.Equal(after, before) {
		t.Fatalf("the index file was not written again with the new version (%v)", err)
	}
	if _, cat, _ := st.serve(st.indexPath(), false); cat.trees != 0 || cat.blobs != 0 {
		t.Errorf("after the rewrite a server read %d trees and %d blobs, want none", cat.trees, cat.blobs)
	}
}

// TestIndexFileDamagedIsIgnored: a file truncated, damaged, of another
// format, not a file, or written by someone to mislead (a path out of the
// folder, a term beyond its words, a count beyond its bytes, a
// frontmatter that is not JSON; each with a right checksum) is ignored:
// the server answers as without it, and writes a good one.
func TestIndexFileDamagedIsIgnored(t *testing.T) {
	st := newIndexStore(t)
	plain, _, _ := st.serve("", false)
	_, _, srv := st.serve(st.indexPath(), false)
	good, err := os.ReadFile(st.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	sn := srv.snapshotForTest()
	tamper := func(fn func(sn *indexSnapshot)) []byte {
		c := sn.clone(t)
		fn(c)
		data, err := c.encode()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	cases := map[string][]byte{
		"empty":     {},
		"truncated": good[:len(good)/2],
		"flipped":   flipByte(good, len(good)/3),
		"format 2":  withCRC(bytes.Replace(good[:len(good)-4], []byte(indexMagic+"\x01"), []byte(indexMagic+"\x02"), 1)),
		"garbage":   []byte(strings.Repeat("skillstore mcp index\n", 40)),
		"path out": tamper(func(sn *indexSnapshot) {
			for _, v := range sn.versions {
				v.files[0].Path = "../../etc/passwd"
				break
			}
		}),
		// no words, one version of no files whose name has term 5
		"term out": withCRC(slices.Concat([]byte(indexMagic), []byte{1, 0, 1}, make([]byte, 20), []byte{0, mdNone, 1, 1, 'x', 0, 0, 0, 2, 5, 1})),
		"count":    withCRC(append(append([]byte(indexMagic), 1), binary.AppendUvarint(nil, 1<<40)...)),
		"json": tamper(func(sn *indexSnapshot) {
			for _, v := range sn.versions {
				if v.md != nil && v.md.fmErr == nil {
					v.md.fm.JSON = []byte(`{"name":`)
					break
				}
			}
		}),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(st.indexPath(), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if d, err := readIndexFile(st.indexPath()); d != nil || err == nil {
				t.Fatalf("the %s file was taken in (%v)", name, err)
			}
			got, _, _ := st.serve(st.indexPath(), false)
			if got != plain {
				t.Fatalf("with a %s index file the answers differ:\n%s\nwithout:\n%s", name, got, plain)
			}
			if d, err := readIndexFile(st.indexPath()); d == nil || err != nil {
				t.Fatalf("the %s file was not replaced by a good one: %v", name, err)
			}
		})
	}
	t.Run("a folder", func(t *testing.T) {
		os.Remove(st.indexPath())
		if err := os.Mkdir(st.indexPath(), 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(st.indexPath())
		if got, _, _ := st.serve(st.indexPath(), false); got != plain {
			t.Fatalf("with a folder as index file the answers differ:\n%s", got)
		}
	})
}

// TestIndexFileNeverPanics: every prefix of a file, and files with bytes
// changed at random and a checksum made right, are refused or read
// without a panic.
func TestIndexFileNeverPanics(t *testing.T) {
	st := newIndexStore(t)
	_, _, _ = st.serve(st.indexPath(), false)
	good, err := os.ReadFile(st.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	try := func(data []byte) {
		d, err := readIndex(bytes.NewReader(data), int64(len(data)), nil)
		if (d == nil) == (err == nil) {
			t.Fatalf("readIndex gave %v and %v", d != nil, err)
		}
	}
	for n := range len(good) {
		try(good[:n])
	}
	rng := rand.New(rand.NewPCG(4, 2))
	for range 2000 {
		data := bytes.Clone(good[:len(good)-4])
		for range 1 + rng.IntN(4) {
			data[len(indexMagic)+rng.IntN(len(data)-len(indexMagic))] = byte(rng.Uint32())
		}
		try(withCRC(data))
	}
}

// TestIndexFileWrongDigestIsDropped: a file that lies about a digest
// (structurally sound) cannot be caught until the blob is read; reading
// it fails, removes the file, and the server reads the store again.
func TestIndexFileWrongDigestIsDropped(t *testing.T) {
	st := newIndexStore(t)
	plain, _, _ := st.serve("", false)
	_, _, srv := st.serve(st.indexPath(), false)
	sn := srv.snapshotForTest().clone(t)
	for _, v := range sn.versions {
		if f := v.file("reference.md"); f != nil && v.md != nil && v.md.fm.Name == "tool-05" {
			f.digest[0] ^= 0xff
		}
	}
	data, err := sn.encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.indexPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cat := &countingCatalog{Catalog: NewStoreCatalog(st.s)}
	srv = New(cat, Options{Poll: -1, IndexFile: st.indexPath()})
	if answers(t, srv) == plain {
		t.Fatal("the lie did not show in the listing: the test tampered with nothing")
	}
	_, err = srv.readSkillResource(context.Background(), &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: "skill://tool-05/reference.md"}})
	if err == nil || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("reading a file whose digest was a lie: %v", err)
	}
	srv.saves.Wait()
	if got := answers(t, srv); got != plain {
		t.Fatalf("after the lie was found the answers differ:\n%s\nwithout:\n%s", got, plain)
	}
}

// TestIndexFileReadOnly: with IndexReadOnly the file is read and never
// written, even when a new version would have it rewritten; a store whose
// folder cannot be written is served all the same.
func TestIndexFileReadOnly(t *testing.T) {
	st := newIndexStore(t)
	if _, _, _ = st.serve(st.indexPath(), true); fileExists(st.indexPath()) {
		t.Fatal("a read-only server wrote its index file")
	}
	st.serve(st.indexPath(), false)
	before, err := os.ReadFile(st.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	st.add("tool-07", "---\nname: tool-07\ndescription: Tool 7, rewritten.\n---\nNew body.\n", nil)
	got, cat, _ := st.serve(st.indexPath(), true)
	if cat.trees != 1 {
		t.Errorf("a read-only server read %d trees, want the new version's only (the rest from the file)", cat.trees)
	}
	if after, _ := os.ReadFile(st.indexPath()); !bytes.Equal(after, before) {
		t.Error("a read-only server rewrote its index file")
	}
	plain, _, _ := st.serve("", false)
	if got != plain {
		t.Fatalf("a read-only server answers otherwise:\n%s\nwithout:\n%s", got, plain)
	}

	// A folder this process cannot write (root can: then it is written).
	os.Remove(st.indexPath())
	local := filepath.Dir(st.indexPath())
	if err := os.Chmod(local, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(local, 0o755)
	if got, _, _ := st.serve(st.indexPath(), false); got != plain {
		t.Fatalf("a store that cannot be written answers otherwise:\n%s", got)
	}
	if os.Geteuid() != 0 && fileExists(st.indexPath()) {
		t.Error("an index file appeared in a folder without write permission")
	}
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func flipByte(b []byte, i int) []byte {
	out := bytes.Clone(b)
	out[i] ^= 0x55
	return out
}

// withCRC appends the checksum to b (a file without it).
func withCRC(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(bytes.Clone(b), crc32.Checksum(b, castagnoli()))
}

// snapshotForTest is what saveIndex would write now.
func (s *Server) snapshotForTest() *indexSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &indexSnapshot{versions: s.ext.versions, docs: s.index.cache, words: s.index.words}
}

// clone copies the snapshot deep enough to be changed.
func (sn *indexSnapshot) clone(t *testing.T) *indexSnapshot {
	c := &indexSnapshot{versions: map[skillfs.ID]*extVersion{}, docs: sn.docs, words: append([]string(nil), sn.words...)}
	for tree, v := range sn.versions {
		v, err := v.content()
		if err != nil {
			t.Fatal(err)
		}
		nv := &extVersion{files: append([]extFile(nil), v.files...)}
		if v.md != nil {
			md := *v.md
			nv.md = &md
		}
		c.versions[tree] = nv
	}
	return c
}

// TestIndexFileWhileServing: versions published while a server runs are
// served, and written to its index file while calls go on (the race
// detector watches the file being written from what the calls read); a
// server started afterwards from that file answers as one without it.
func TestIndexFileWhileServing(t *testing.T) {
	st := newIndexStore(t)
	st.serve(st.indexPath(), false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := New(NewStoreCatalog(st.s), Options{Poll: 10 * time.Millisecond, IndexFile: st.indexPath()})
	ct, stT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, stT) }()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		st.add("tool-01", fmt.Sprintf("---\nname: tool-01\ndescription: Tool 1, round %d.\n---\nRound %d of the walrus.\n", i, i), nil)
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "find_skills", Arguments: map[string]any{"query": "walrus"}})
		if err != nil || res.IsError {
			t.Fatalf("find_skills: %v %+v", err, res)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, fmt.Sprintf("round %d", i)) {
			t.Errorf("round %d: find_skills walrus = %q", i, text)
		}
		answers(t, srv)
	}
	session.Close()
	cancel()
	<-done // Run returns once the index file is written
	plain, _, _ := st.serve("", false)
	warm, cat, _ := st.serve(st.indexPath(), false)
	if cat.trees != 0 || warm != plain {
		t.Fatalf("after serving, a server from the file read %d trees and answers:\n%s\nwithout the file:\n%s", cat.trees, warm, plain)
	}
}
