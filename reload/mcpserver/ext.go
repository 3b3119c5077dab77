package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
)

// What the Skills extension serves of each published skill is computed
// once per version and kept until the version is no longer published:
// its files with their SHA-256 digests and sizes (computed once per git
// blob: equal blob ids are equal bytes), its frontmatter rendered as JSON
// (once per SKILL.md blob), and the rendered skills/list entry. A call
// reads no blob to answer skills/list or skills/get; resources/read reads
// the one blob asked for, by id, so the bytes served are always those the
// digest was computed from.

// Limits the extension sets on one skill (SEP-2640 "Limits"): a server
// should not serve a skill over them.
const (
	maxSkillFiles = 512
	maxSkillBytes = 16 << 20
)

// blobInfo is what is kept of one blob's content.
type blobInfo struct {
	digest [sha256.Size]byte
	size   int64
	text   bool // valid UTF-8: served as text, else as a base64 blob
}

// mdInfo is what is kept of one SKILL.md blob.
type mdInfo struct {
	fm    frontmatter
	fmErr error
}

// extFile is one file of a version.
type extFile struct {
	FileRef
	blobInfo
}

// extVersion is one skill version as the extension sees it.
type extVersion struct {
	commit string
	files  []extFile // sorted by path
	md     *mdInfo   // nil: no SKILL.md
}

// file returns the file at p, nil if none.
func (v *extVersion) file(p string) *extFile {
	i, ok := slices.BinarySearchFunc(v.files, p, func(f extFile, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return nil
	}
	return &v.files[i]
}

// manifestDigest names the version's whole file set: the SHA-256 of what
// sha256sum prints for its files in path order (LC_ALL=C sort), so that
// for an exported copy without symlinks
//
//	find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum | sha256sum
//
// gives the same digest. The loads log records it.
func (v *extVersion) manifestDigest() string {
	h := sha256.New()
	for _, f := range v.files {
		p := f.Path
		if strings.ContainsAny(p, "\\\n") { // sha256sum's escaping
			p = strings.NewReplacer("\\", "\\\\", "\n", "\\n").Replace(p)
			h.Write([]byte{'\\'})
		}
		fmt.Fprintf(h, "%x  %s\n", f.digest, p)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// extSkill is one published skill in the extension.
type extSkill struct {
	Skill
	path    string // the skill path of its URIs: NAME, PLUGIN/NAME, ...
	v       *extVersion
	refused string          // why the extension leaves it out ("" if served)
	entry   json.RawMessage // its Skill entry, when served
}

func (e *extSkill) uri(file string) string { return skillURIPath(e.path, file) }

// extState is the extension's view of the served set (under Server.mu).
type extState struct {
	blobs    map[string]blobInfo    // by blob id, of the versions below
	mds      map[string]*mdInfo     // by SKILL.md blob id
	versions map[string]*extVersion // by commit
	skills   map[string]*extSkill   // by store name
	byPath   map[string]*extSkill   // by skill path, served ones
	listing  []*extSkill            // served ones, by store name
	managed  map[string]bool        // served managed skills' names
	plugins  map[string]bool        // plugins with a served skill
	told     map[string]bool        // refusals already reported, by commit+reason
}

func newExtState() *extState {
	return &extState{blobs: map[string]blobInfo{}, mds: map[string]*mdInfo{}, versions: map[string]*extVersion{},
		skills: map[string]*extSkill{}, byPath: map[string]*extSkill{}, managed: map[string]bool{}, plugins: map[string]bool{}, told: map[string]bool{}}
}

// loadVersions reads what the extension keeps of skills' versions that
// it does not have yet: their trees, then each blob it has not seen, in
// one read each. blobs and mds hold what is known already; what is read
// is added to them.
// It also returns their SKILL.md bodies by commit, for the search index
// (read again for each new version: keeping them would cost the text of
// every skill in memory).
func loadVersions(ctx context.Context, cat Catalog, skills []Skill, blobs map[string]blobInfo, mds map[string]*mdInfo) (map[string]*extVersion, map[string]string, error) {
	trees, err := cat.Files(ctx, skills)
	if err != nil {
		return nil, nil, err
	}
	mdIDs := map[string]bool{}
	want := map[string]bool{}
	var missing []string
	for _, refs := range trees {
		for _, r := range refs {
			_, known := blobs[r.ID]
			needMD := r.Path == skillmd.FileName && !r.Link
			if needMD {
				mdIDs[r.ID] = true
			}
			if (!known || needMD) && !want[r.ID] {
				want[r.ID] = true
				missing = append(missing, r.ID)
			}
		}
	}
	read := map[string]blobInfo{}
	bodyOf := map[string]string{}
	err = cat.ReadBlobs(ctx, missing, func(id string, data []byte) error {
		read[id] = blobInfo{digest: sha256.Sum256(data), size: int64(len(data)), text: utf8.Valid(data)}
		if mdIDs[id] {
			if mds[id] == nil {
				md := &mdInfo{}
				md.fm, md.fmErr = parseFrontmatter(data)
				mds[id] = md
			}
			if body, err := skillmd.Body(data); err == nil {
				bodyOf[id] = string(body)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for id, b := range read {
		blobs[id] = b
	}
	out := make(map[string]*extVersion, len(trees))
	bodies := make(map[string]string, len(trees))
	for commit, refs := range trees {
		v := &extVersion{commit: commit, files: make([]extFile, len(refs))}
		for i, r := range refs {
			v.files[i] = extFile{FileRef: r, blobInfo: blobs[r.ID]}
			if r.Path == skillmd.FileName && !r.Link {
				v.md = mds[r.ID]
				bodies[commit] = bodyOf[r.ID]
			}
		}
		sort.Slice(v.files, func(i, j int) bool { return v.files[i].Path < v.files[j].Path })
		out[commit] = v
	}
	return out, bodies, nil
}

// rebuild makes the state hold exactly skills, reading only the versions
// it has not seen and those of bodies (the search index's needs), and
// returns the SKILL.md bodies of what it read (by commit) and the
// refusals not reported before.
func (x *extState) rebuild(ctx context.Context, cat Catalog, skills, bodiesOf []Skill) (map[string]string, []string, error) {
	also := make(map[string]bool, len(bodiesOf))
	for _, sk := range bodiesOf {
		also[sk.Commit] = true
	}
	var need []Skill
	for _, sk := range skills {
		if x.versions[sk.Commit] == nil || also[sk.Commit] {
			need = append(need, sk)
		}
	}
	bodies := map[string]string{}
	if len(need) > 0 {
		fresh, b, err := loadVersions(ctx, cat, need, x.blobs, x.mds)
		if err != nil {
			return nil, nil, err
		}
		for c, v := range fresh {
			x.versions[c] = v
		}
		bodies = b
	}
	// Keep only what the served versions use.
	versions := make(map[string]*extVersion, len(skills))
	blobs := make(map[string]blobInfo, len(x.blobs))
	mds := make(map[string]*mdInfo, len(skills))
	x.managed, x.plugins = map[string]bool{}, map[string]bool{}
	for _, sk := range skills {
		v := x.versions[sk.Commit]
		versions[sk.Commit] = v
		for _, f := range v.files {
			blobs[f.ID] = f.blobInfo
			if f.Path == skillmd.FileName && v.md != nil {
				mds[f.ID] = v.md
			}
		}
		if plugin, _ := store.SplitName(sk.Name); plugin == "" {
			x.managed[sk.Name] = true
		}
	}
	x.versions, x.blobs, x.mds = versions, blobs, mds

	old := x.skills
	x.skills = make(map[string]*extSkill, len(skills))
	x.byPath = make(map[string]*extSkill, len(skills))
	x.listing = x.listing[:0]
	var notes []string
	told := map[string]bool{}
	for _, sk := range skills {
		v := versions[sk.Commit]
		path := x.skillPath(sk.Name, 0)
		e := old[sk.Name]
		if e == nil || e.Commit != sk.Commit || e.path != path {
			e = &extSkill{Skill: sk, path: path, v: v}
			e.refused = refusal(sk.Name, v)
			if e.refused == "" {
				e.entry = renderEntry(e.path, v)
			}
		}
		e.Skill = sk
		x.skills[sk.Name] = e
		if e.refused != "" {
			key := sk.Commit + " " + e.refused
			told[key] = true
			if !x.told[key] {
				notes = append(notes, fmt.Sprintf("%s v%d is not offered by the Skills extension (its tools still serve it): %s", sk.Name, sk.Version, e.refused))
			}
			continue
		}
		x.byPath[e.path] = e
		x.listing = append(x.listing, e)
		if plugin, _ := store.SplitName(sk.Name); plugin != "" {
			x.plugins[plugin] = true
		}
	}
	x.told = told
	sort.Slice(x.listing, func(i, j int) bool { return x.listing[i].Name < x.listing[j].Name })
	sort.Strings(notes)
	return bodies, notes, nil
}

// Compiled on first use rather than at start-up, which every command pays.
var agentSkillName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// refusal says why the extension cannot offer version v of skill name
// as the specification requires ("" when it can). The URI's last segment
// must be the frontmatter's name, which must be an Agent Skills name, and
// the frontmatter is sent verbatim: a store name outside that rule
// (my_skill, v1.2, a--b: the store accepts them) is not renamed, since
// that would serve bytes other than the published version's.
func refusal(name string, v *extVersion) string {
	own := store.OwnName(name)
	switch {
	case v.md == nil:
		return "it has no SKILL.md file"
	case v.md.fmErr != nil:
		return "its frontmatter has no JSON form: " + v.md.fmErr.Error()
	case v.md.fm.Name == "":
		return fmt.Sprintf("its frontmatter has no name: set 'name: %s'", own)
	case v.md.fm.Name != own:
		return fmt.Sprintf("its frontmatter name %q is not its name in the store, %q, which its URI ends in: set 'name: %s'", v.md.fm.Name, own, own)
	case len(own) > 64 || !agentSkillName().MatchString(own):
		return fmt.Sprintf("%q is not an Agent Skills name (lowercase letters and digits in words joined by single hyphens, at most 64): 'skillstore add --as NEWNAME' records it under one", own)
	case strings.TrimSpace(v.md.fm.Description) == "":
		return "its frontmatter has no description"
	case len(v.files) > maxSkillFiles:
		return fmt.Sprintf("it has %d files, over the extension's limit of %d", len(v.files), maxSkillFiles)
	}
	var total int64
	for _, f := range v.files {
		total += f.size
	}
	if total > maxSkillBytes {
		return fmt.Sprintf("its files hold %d bytes, over the extension's limit of 16 MiB", total)
	}
	return ""
}

// renderEntry renders the Skill entry of v served at skill path p.
func renderEntry(p string, v *extVersion) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"uri":`)
	writeJSONString(&b, skillURIPath(p, skillmd.FileName))
	b.WriteString(`,"frontmatter":`)
	b.Write(v.md.fm.JSON)
	b.WriteString(`,"resources":[`)
	for i, f := range v.files {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"uri":`)
		writeJSONString(&b, skillURIPath(p, f.Path))
		fmt.Fprintf(&b, `,"digest":"sha256:%x","size":%d}`, f.digest, f.size)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}
