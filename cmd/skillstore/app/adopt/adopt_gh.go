package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
)

// What 'gh skill install' (GitHub CLI 2.90+) leaves of its install: no
// record file, but provenance written into the installed SKILL.md's
// frontmatter under metadata, the frontmatter re-serialised (keys sorted,
// indented four spaces). Those keys are the installer's, not an edit: adopt
// takes them out again before the files are compared with upstream's,
// and when what is left means what upstream's SKILL.md means, the
// installed SKILL.md is upstream's, byte for byte.

// ghKeys are the metadata keys gh writes.
var ghKeys = []string{"github-repo", "github-ref", "github-tree-sha", "github-path", "github-pinned", "local-path"}

// ghProvenance is one install's metadata.
type ghProvenance struct {
	Repo, Ref, TreeSHA, Path, Pinned string
	// File is the SKILL.md it was read from.
	File string
}

// readGHProvenance reads the provenance gh wrote into dir's SKILL.md; nil
// when there is none (no github-repo key).
func readGHProvenance(dir string) (*ghProvenance, error) {
	file := filepath.Join(dir, skillmd.FileName)
	data, err := safefile.ReadFile(file, skillfs.DefaultLimits.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := skillmd.Parse(data)
	if err != nil {
		return nil, nil // no frontmatter gh wrote; the skill's own problem is reported where it is read
	}
	meta := mappingValue(doc.Root, "metadata")
	if meta == nil {
		return nil, nil
	}
	p := &ghProvenance{File: file}
	for _, kv := range []struct {
		key string
		to  *string
	}{{"github-repo", &p.Repo}, {"github-ref", &p.Ref}, {"github-tree-sha", &p.TreeSHA}, {"github-path", &p.Path}, {"github-pinned", &p.Pinned}} {
		if v := mappingValue(meta, kv.key); v != nil && v.Kind == yaml.ScalarNode {
			*kv.to = v.Value
		}
	}
	if p.Repo == "" {
		return nil, nil
	}
	return p, nil
}

// source is the plugin source of the install: the repository at the ref
// installed (gh's pin when it pinned one; a tag stays that release).
func (p *ghProvenance) source(ctx context.Context) (plugins.Source, error) {
	u := p.Repo
	if !strings.Contains(u, "://") && !strings.HasPrefix(u, "git@") {
		u = plugins.GitHubURL(u)
	}
	ref := p.Ref
	if p.Pinned != "" && p.Pinned != "true" && p.Pinned != "false" {
		ref = p.Pinned
	}
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
	return plugins.ParseSourceContext(ctx, u, ref)
}

// describe is the provenance as adopt --dry-run lists it.
func (p *ghProvenance) describe() string {
	s := fmt.Sprintf("installed by gh skill (metadata in %s): github-repo %s", p.File, p.Repo)
	if p.Ref != "" {
		s += ", github-ref " + p.Ref
	}
	if p.TreeSHA != "" {
		s += ", github-tree-sha " + p.TreeSHA[:min(12, len(p.TreeSHA))]
	}
	if p.Pinned != "" && p.Pinned != "false" {
		s += ", pinned"
	}
	return s
}

// restore is InstalledSkill.Restore for the install: SKILL.md without gh's
// keys, and upstream's own bytes when they mean the same (the upstream
// folder is the tree gh recorded, read from the fetched objects).
func (p *ghProvenance) restore(tree store.Hash) func(r *store.Reader, files []store.File) []store.File {
	return func(r *store.Reader, files []store.File) []store.File {
		i := slices.IndexFunc(files, func(f store.File) bool { return f.Path == skillmd.FileName && f.Data != nil })
		if i < 0 {
			return files
		}
		var upstream []byte
		if !tree.IsZero() && r.HasObject(tree) {
			if up, err := r.LoadFiles(tree); err == nil {
				if j := slices.IndexFunc(up, func(f store.File) bool { return f.Path == skillmd.FileName }); j >= 0 {
					upstream = up[j].Data
				}
			}
		}
		data := restoreGHSkillMD(files[i].Data, upstream)
		if bytes.Equal(data, files[i].Data) {
			return files
		}
		out := slices.Clone(files)
		out[i].Data, out[i].Size, out[i].ID = data, int64(len(data)), skillfs.BlobID(data)
		return out
	}
}

// restoreGHSkillMD is installed without the keys gh wrote into its
// metadata (the metadata key too when nothing else is left in it), every
// other line as it is; or upstream, when given and the two mean the same:
// equal frontmatter values and the same body.
func restoreGHSkillMD(installed, upstream []byte) []byte {
	doc, err := skillmd.Parse(installed)
	if err != nil {
		return installed
	}
	stripped, ok := stripGHKeys(doc)
	if !ok {
		return installed
	}
	if upstream != nil && sameSkillMD(stripped, upstream) {
		return upstream
	}
	return stripped
}

// stripGHKeys removes gh's keys from doc's metadata, line by line; false
// when the metadata is not a block mapping of them.
func stripGHKeys(doc *skillmd.Doc) ([]byte, bool) {
	root := doc.Root
	lines := strings.SplitAfter(string(doc.YAML), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	drop := map[int]bool{} // 1-based YAML lines
	for k := 0; k+1 < len(root.Content); k += 2 {
		if root.Content[k].Value != "metadata" {
			continue
		}
		meta := root.Content[k+1]
		if meta.Kind != yaml.MappingNode || meta.Style&yaml.FlowStyle != 0 {
			return nil, false
		}
		end := len(lines) + 1 // the line after metadata's block
		if k+2 < len(root.Content) {
			end = root.Content[k+2].Line
		}
		kept := 0
		for j := 0; j+1 < len(meta.Content); j += 2 {
			next := end
			if j+2 < len(meta.Content) {
				next = meta.Content[j+2].Line
			}
			if slices.Contains(ghKeys, meta.Content[j].Value) {
				for l := meta.Content[j].Line; l < next; l++ {
					drop[l] = true
				}
			} else {
				kept++
			}
		}
		if kept == 0 {
			for l := root.Content[k].Line; l < end; l++ {
				drop[l] = true
			}
		}
	}
	if len(drop) == 0 {
		return nil, false
	}
	var b bytes.Buffer
	b.Write(doc.Head)
	for i, l := range lines {
		if !drop[i+1] {
			b.WriteString(l)
		}
	}
	b.Write(doc.Close)
	b.Write(doc.Body)
	return b.Bytes(), true
}

// sameSkillMD reports whether two SKILL.md files mean the same: their
// frontmatter decodes to equal values and their bodies are the same text
// (leading blank lines aside, which a re-serialising installer may drop).
func sameSkillMD(a, b []byte) bool {
	da, err := skillmd.Parse(a)
	if err != nil {
		return false
	}
	db, err := skillmd.Parse(b)
	if err != nil {
		return false
	}
	var va, vb any
	if da.Root.Decode(&va) != nil || db.Root.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb) && bytes.Equal(bytes.TrimLeft(da.Body, "\r\n"), bytes.TrimLeft(db.Body, "\r\n"))
}

// mappingValue is the value of key in mapping node m, nil when absent.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for k := 0; k+1 < len(m.Content); k += 2 {
		if m.Content[k].Value == key {
			return m.Content[k+1]
		}
	}
	return nil
}
