package plugins

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/store"
)

// site is a local server whose files a test changes as it goes, in the
// shape of the service each source kind reads.
type site struct {
	mu    sync.Mutex
	files map[string][]byte
	srv   *httptest.Server
}

func newSite(t *testing.T) *site {
	s := &site{files: map[string][]byte{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		data, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) put(p string, data []byte) {
	s.mu.Lock()
	s.files[p] = data
	s.mu.Unlock()
}

func skillMD(name, body string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + name + ".\n---\n" + body + "\n")
}

func tgz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// kindCase is one source kind served by a site: publish puts version
// body of the source's one skill on the site.
type kindCase struct {
	src     func(base string) Source
	publish func(t *testing.T, s *site, version int, body string)
	skill   string // the skill's folder in the fetched tree
}

func kindCases(t *testing.T) map[SourceKind]kindCase {
	return map[SourceKind]kindCase{
		SourceArchive: {
			src: func(base string) Source { return Source{Kind: SourceArchive, URL: base + "/x.tar.gz"} },
			publish: func(t *testing.T, s *site, _ int, body string) {
				s.put("/x.tar.gz", tgz(t, map[string][]byte{"x-main/skills/a/SKILL.md": skillMD("a", body)}))
			},
			skill: "skills/a",
		},
		SourceSkillMD: {
			src: func(base string) Source { return Source{Kind: SourceSkillMD, URL: base + "/docs/a/SKILL.md"} },
			publish: func(t *testing.T, s *site, _ int, body string) {
				s.put("/docs/a/SKILL.md", skillMD("a", body))
			},
			skill: "a",
		},
		SourceWellKnown: {
			src: func(base string) Source {
				return Source{Kind: SourceWellKnown, URL: base + "/.well-known/skills/index.json"}
			},
			publish: func(t *testing.T, s *site, _ int, body string) {
				s.put("/.well-known/skills/index.json", []byte(`{"skills": [{"name": "a", "files": ["SKILL.md"]}]}`))
				s.put("/.well-known/skills/a/SKILL.md", skillMD("a", body))
			},
			skill: "a",
		},
		SourceNPM: {
			src: func(base string) Source { return Source{Kind: SourceNPM, URL: base + "/@acme/x", Tags: "^1"} },
			publish: func(t *testing.T, s *site, version int, body string) {
				v := fmt.Sprintf("1.%d.0", version)
				data := tgz(t, map[string][]byte{
					"package/package.json":      []byte(`{"name": "@acme/x", "version": "` + v + `"}`),
					"package/skills/a/SKILL.md": skillMD("a", body),
				})
				s512, s1 := sha512.Sum512(data), sha1.Sum(data)
				s.put("/t/x-"+v+".tgz", data)
				var versions []string
				for i := 0; i <= version; i++ {
					vi := fmt.Sprintf("1.%d.0", i)
					dist := fmt.Sprintf(`{"tarball": "%s/t/x-%s.tgz"}`, s.srv.URL, vi)
					if i == version {
						dist = fmt.Sprintf(`{"tarball": "%s/t/x-%s.tgz", "integrity": "sha512-%s", "shasum": "%s"}`, s.srv.URL, vi, base64.StdEncoding.EncodeToString(s512[:]), hex.EncodeToString(s1[:]))
					}
					versions = append(versions, fmt.Sprintf(`"%s": {"dist": %s}`, vi, dist))
				}
				s.put("/@acme/x", []byte(`{"name": "@acme/x", "dist-tags": {"latest": "`+v+`"}, "versions": {`+strings.Join(versions, ", ")+`}}`))
			},
			skill: "skills/a",
		},
	}
}

// TestSourceKindsConformance holds every kind of fetched source to what a
// git source does: a fetch is a commit whose tree holds the source's
// skill; the same files fetched again are the same commit (nothing new,
// sync's "unchanged"); changed files are a new commit whose parent is the
// last, so the history of the source is a chain as a branch's is.
func TestSourceKindsConformance(t *testing.T) {
	cases := kindCases(t)
	for kind := range fetchers {
		if kind == SourceGit {
			continue // the git fetch has tests of its own (gitfetch)
		}
		c, ok := cases[kind]
		if !ok {
			t.Errorf("source kind %s has no conformance case: add one", kind)
			continue
		}
		t.Run(string(kind), func(t *testing.T) {
			s := newSite(t)
			src := c.src(s.srv.URL)
			base := memory.NewStorage()
			store1 := func(f gitfetch.Fetched) {
				err := f.NewObjects(func(ty gitdb.ObjectType, data []byte) {
					o := base.NewEncodedObject()
					o.SetType(plumbing.ObjectType(ty))
					w, _ := o.Writer()
					w.Write(data)
					w.Close()
					base.SetEncodedObject(o)
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			fetch := func(have store.Hash) gitfetch.Fetched {
				t.Helper()
				f, err := fetchSource(context.Background(), base, src, have, gitfetch.Options{})
				if err != nil {
					t.Fatal(err)
				}
				store1(f)
				return f
			}
			c.publish(t, s, 0, "first")
			f1 := fetch(store.ZeroHash)
			fsys, err := f1.FS()
			if err != nil {
				t.Fatal(err)
			}
			data, err := fsys.ReadFile(c.skill + "/SKILL.md")
			if err != nil || !bytes.Contains(data, []byte("first")) {
				t.Fatalf("the fetched tree's %s/SKILL.md: %q, %v", c.skill, data, err)
			}
			if f := fetch(f1.Commit); f.Commit != f1.Commit {
				t.Errorf("the same files fetched again: commit %s, want %s", f.Commit, f1.Commit)
			}
			c.publish(t, s, 1, "second")
			f3 := fetch(f1.Commit)
			if f3.Commit == f1.Commit {
				t.Fatal("changed files gave the same commit")
			}
			commit, err := object.GetCommit(base, plumbing.Hash(f3.Commit))
			if err != nil {
				t.Fatal(err)
			}
			if len(commit.ParentHashes) != 1 || store.Hash(commit.ParentHashes[0]) != f1.Commit {
				t.Errorf("the new commit's parents %v, want the last one %s", commit.ParentHashes, f1.Commit)
			}
			if !src.Fetched() || derivedPluginID(src) == "" {
				t.Errorf("%s: Fetched %v, id %q", kind, src.Fetched(), derivedPluginID(src))
			}
		})
	}
}

// TestSourceKindsPolicy holds every kind to the source policy's redirect
// rule: a download sent elsewhere is refused before it is followed.
func TestSourceKindsPolicy(t *testing.T) {
	for kind, c := range kindCases(t) {
		t.Run(string(kind), func(t *testing.T) {
			target := newSite(t)
			c.publish(t, target, 0, "first")
			redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.srv.URL+r.URL.Path, http.StatusFound)
			}))
			t.Cleanup(redirect.Close)
			refused := fmt.Errorf("not allowed")
			opts := gitfetch.Options{Allow: func(u string) error {
				if strings.HasPrefix(u, target.srv.URL) {
					return refused
				}
				return nil
			}}
			_, err := fetchSource(context.Background(), memory.NewStorage(), c.src(redirect.URL), store.ZeroHash, opts)
			if err == nil || !strings.Contains(err.Error(), "not allowed") {
				t.Errorf("a redirect to a host the policy refuses: %v", err)
			}
		})
	}
}
