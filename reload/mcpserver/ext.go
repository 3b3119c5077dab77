package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
)

// What the Skills extension serves of each published skill is computed
// once per version and kept until the version is no longer published:
// its files with their SHA-256 digests and sizes (computed once per git
// blob: equal blob ids are equal bytes) and its frontmatter rendered as
// JSON (once per SKILL.md blob); the skills/list entry is rendered from
// them when sent. They are kept in memory, or, for a version the index
// file holds (diskindex.go), in that file, read again when asked for. A
// call reads no blob to answer skills/list or skills/get; resources/read
// reads the one blob asked for, by id, and checks it against the digest
// served.

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

// extVersion is one skill version as the extension sees it. A version
// that the index file holds keeps only what refusal needs and where it is
// in the file: its files and frontmatter are read again when asked for
// (content), so what the server keeps of a store it served before is a
// few dozen bytes a version, not its files' digests and frontmatter.
type extVersion struct {
	files []extFile // sorted by path
	md    *mdInfo   // nil: no SKILL.md
	// rec, when set (inFile), is where files and md are in the index
	// file; facts are theirs.
	rec   indexRecord
	facts versionFacts
}

// versionFacts are what refusal looks at.
type versionFacts struct {
	bytes   int64
	fmErr   error
	fmName  string
	files   int32
	hasMD   bool
	hasDesc bool
}

func factsOf(v *extVersion) versionFacts {
	f := versionFacts{files: int32(len(v.files)), hasMD: v.md != nil}
	for _, file := range v.files {
		f.bytes += file.size
	}
	if v.md != nil {
		f.fmErr, f.fmName, f.hasDesc = v.md.fmErr, v.md.fm.Name, strings.TrimSpace(v.md.fm.Description) != ""
	}
	return f
}

// content returns v with its files and frontmatter, read from the index
// file if v keeps them there.
func (v *extVersion) content() (*extVersion, error) {
	if !v.inFile() {
		return v, nil
	}
	return v.rec.read()
}

// inFile reports whether v keeps its files and frontmatter in the index
// file.
func (v *extVersion) inFile() bool { return v.rec.n > 0 }

// versionFacts returns the facts of v.
func (v *extVersion) versionFacts() versionFacts {
	if v.inFile() {
		return v.facts
	}
	return factsOf(v)
}

// file returns the file at p, nil if none.
func (v *extVersion) file(p string) *extFile {
	i, ok := slices.BinarySearchFunc(v.files, p, func(f extFile, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return nil
	}
	return &v.files[i]
}

// skillMD is the version's SKILL.md file, nil if none.
func (v *extVersion) skillMD() *extFile {
	if f := v.file(skillmd.FileName); f != nil && !f.Link {
		return f
	}
	return nil
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

// extSkill is one published skill in the extension. Skill points into
// the served list, which the search index shares.
type extSkill struct {
	*Skill
	path    string // the skill path of its URIs: NAME, PLUGIN/NAME, ...
	v       *extVersion
	refused string // why the extension leaves it out ("" if served)
}

func (e *extSkill) uri(file string) string { return skillURIPath(e.path, file) }

// entry renders e's Skill entry (e is served). Entries are rendered when
// sent, not kept: a page of 500 costs about a millisecond, and keeping
// them would cost their JSON for every skill.
func (e *extSkill) entry() (json.RawMessage, error) {
	v, err := e.v.content()
	if err != nil {
		return nil, err
	}
	return renderEntry(e.path, v), nil
}

// extState is the extension's view of the served set (under Server.mu).
type extState struct {
	versions map[skillfs.ID]*extVersion // by tree, of the versions served
	skills   map[string]*extSkill       // by store name
	listing  []*extSkill                // served ones, by store name
	plugins  map[string]bool            // plugins with a served skill
	told     map[string]bool            // refusals already reported, by commit+reason
}

// isManaged reports whether name is a served managed skill.
func (x *extState) isManaged(name string) bool {
	if plugin, _ := store.SplitName(name); plugin != "" {
		return false
	}
	_, ok := x.skills[name]
	return ok
}

func newExtState() *extState {
	return &extState{versions: map[skillfs.ID]*extVersion{},
		skills: map[string]*extSkill{}, plugins: map[string]bool{}, told: map[string]bool{}}
}

// known is what is known already of trees, blobs and SKILL.md files:
// the versions held and those the index file held (disk; nil if none).
// Every fact in them is keyed by a git object id, whose content never
// changes, so none of it can be stale.
type known struct {
	versions map[skillfs.ID]*extVersion
	disk     *diskIndex
	// blobs and mds are the versions' facts by blob id, built when
	// first asked for (a tree not known: a new version).
	blobs map[skillfs.ID]blobInfo
	mds   map[skillfs.ID]*mdInfo
}

func (k *known) version(tree skillfs.ID) *extVersion {
	if v := k.versions[tree]; v != nil {
		return v
	}
	return k.disk.version(tree)
}

func (k *known) index() {
	if k.blobs != nil {
		return
	}
	k.blobs, k.mds = map[skillfs.ID]blobInfo{}, map[skillfs.ID]*mdInfo{}
	add := func(v *extVersion) {
		v, err := v.content()
		if err != nil {
			return // not known, then: read
		}
		for _, f := range v.files {
			k.blobs[f.ID] = f.blobInfo
		}
		if f := v.skillMD(); f != nil && v.md != nil {
			k.mds[f.ID] = v.md
		}
	}
	if k.disk != nil {
		for i := range k.disk.versions {
			add(&k.disk.versions[i])
		}
	}
	for _, v := range k.versions {
		add(v)
	}
}

func (k *known) blob(id skillfs.ID) (blobInfo, bool) {
	k.index()
	b, ok := k.blobs[id]
	return b, ok
}

func (k *known) md(id skillfs.ID) *mdInfo {
	k.index()
	return k.mds[id]
}

// refs lists tree's files if they are known, nil if not.
func (k *known) refs(tree skillfs.ID) []FileRef {
	v := k.version(tree)
	if v == nil {
		return nil
	}
	v, err := v.content()
	if err != nil {
		return nil
	}
	refs := make([]FileRef, len(v.files))
	for i, f := range v.files {
		refs[i] = f.FileRef
	}
	return refs
}

// loadVersions returns the versions of trees, read from what is known or
// else from the catalog: the trees not known, then each blob not known,
// in one read each. For the trees of bodyOf it also returns their
// SKILL.md bodies, for the search index (read again when wanted: keeping
// them would cost the text of every skill in memory). read counts the
// trees and blobs read from the catalog.
func loadVersions(ctx context.Context, cat Catalog, trees []skillfs.ID, bodyOf map[skillfs.ID]bool, k *known) (map[skillfs.ID]*extVersion, map[skillfs.ID]string, int, error) {
	out := make(map[skillfs.ID]*extVersion, len(trees))
	refsOf := make(map[skillfs.ID][]FileRef)
	var missing []skillfs.ID
	for _, t := range trees {
		if _, done := refsOf[t]; done {
			continue
		}
		if v := k.version(t); v != nil && !bodyOf[t] {
			out[t] = v
			continue
		}
		refs := k.refs(t)
		if refs == nil {
			missing = append(missing, t)
			refs = []FileRef{}
		}
		refsOf[t] = refs
	}
	read := len(missing)
	if len(missing) > 0 {
		got, err := cat.Files(ctx, missing)
		if err != nil {
			return nil, nil, 0, err
		}
		for t, refs := range got {
			refsOf[t] = refs
		}
	}
	mdIDs := map[skillfs.ID]bool{}   // SKILL.md blobs to read: frontmatter or body wanted
	bodyIDs := map[skillfs.ID]bool{} // of which those whose body is wanted
	want := map[skillfs.ID]bool{}
	var ids []skillfs.ID
	for t, refs := range refsOf {
		for _, r := range refs {
			_, knownBlob := k.blob(r.ID)
			isMD := r.Path == skillmd.FileName && !r.Link
			needMD := isMD && (bodyOf[t] || k.md(r.ID) == nil)
			if needMD {
				mdIDs[r.ID] = true
				if bodyOf[t] {
					bodyIDs[r.ID] = true
				}
			}
			if (!knownBlob || needMD) && !want[r.ID] {
				want[r.ID] = true
				ids = append(ids, r.ID)
			}
		}
	}
	read += len(ids)
	readInfo := map[skillfs.ID]blobInfo{}
	readMD := map[skillfs.ID]*mdInfo{}
	bodyByBlob := map[skillfs.ID]string{}
	err := cat.ReadBlobs(ctx, ids, func(id skillfs.ID, data []byte) error {
		readInfo[id] = blobInfo{digest: sha256.Sum256(data), size: int64(len(data)), text: utf8.Valid(data)}
		if mdIDs[id] {
			if k.md(id) == nil {
				md := &mdInfo{}
				md.fm, md.fmErr = parseFrontmatter(data)
				readMD[id] = md
			}
			if bodyIDs[id] {
				if body, err := skillmd.Body(data); err == nil {
					bodyByBlob[id] = string(body)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, 0, err
	}
	bodies := make(map[skillfs.ID]string, len(bodyOf))
	for t, refs := range refsOf {
		v := &extVersion{files: make([]extFile, len(refs))}
		for i, r := range refs {
			info, ok := readInfo[r.ID]
			if !ok {
				info, _ = k.blob(r.ID)
			}
			v.files[i] = extFile{FileRef: r, blobInfo: info}
			if r.Path == skillmd.FileName && !r.Link {
				if v.md = readMD[r.ID]; v.md == nil {
					v.md = k.md(r.ID)
				}
				if bodyOf[t] {
					bodies[t] = bodyByBlob[r.ID]
				}
			}
		}
		sort.Slice(v.files, func(i, j int) bool { return v.files[i].Path < v.files[j].Path })
		out[t] = v
	}
	return out, bodies, read, nil
}

// rebuild makes the state hold exactly skills, reading only the versions
// it does not know (from those held or disk) and the bodies the search
// index needs (bodiesOf), and returns the SKILL.md bodies of what it read
// (by index key), the refusals not reported before, and how many trees
// and blobs were read from the catalog.
func (x *extState) rebuild(ctx context.Context, cat Catalog, skills, bodiesOf []Skill, disk *diskIndex) (map[docKey]string, []string, int, error) {
	bodyOf := make(map[skillfs.ID]bool, len(bodiesOf))
	for _, sk := range bodiesOf {
		bodyOf[sk.Tree] = true
	}
	trees := make([]skillfs.ID, len(skills))
	for i, sk := range skills {
		trees[i] = sk.Tree
	}
	versions, byTree, read, err := loadVersions(ctx, cat, trees, bodyOf, &known{versions: x.versions, disk: disk})
	if err != nil {
		return nil, nil, 0, err
	}
	bodies := make(map[docKey]string, len(bodiesOf))
	for _, sk := range bodiesOf {
		bodies[keyOf(sk)] = byTree[sk.Tree]
	}
	x.versions = versions
	x.plugins = map[string]bool{}
	old := x.skills
	x.skills = make(map[string]*extSkill, len(skills))
	for _, sk := range skills {
		x.skills[sk.Name] = nil // the names first: skillPath asks which are managed
	}
	x.listing = x.listing[:0]
	var notes []string
	told := map[string]bool{}
	for i := range skills {
		sk := &skills[i]
		v := versions[sk.Tree]
		path := x.skillPath(sk.Name, 0)
		e := old[sk.Name]
		if e == nil || e.Commit != sk.Commit || e.path != path || e.v != v {
			e = &extSkill{Skill: sk, path: path, v: v}
			e.refused = refusal(sk.Name, v)
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
		x.listing = append(x.listing, e)
		if plugin, _ := store.SplitName(sk.Name); plugin != "" {
			x.plugins[plugin] = true
		}
	}
	x.told = told
	sort.Slice(x.listing, func(i, j int) bool { return x.listing[i].Name < x.listing[j].Name })
	sort.Strings(notes)
	return bodies, notes, read, nil
}

// isAgentSkillName reports whether s is words of lowercase letters and
// digits joined by single hyphens (^[a-z0-9]+(-[a-z0-9]+)*$), checked by
// hand: it runs for every skill at start.
func isAgentSkillName(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// refusal says why the extension cannot offer version v of skill name
// as the specification requires ("" when it can). The URI's last segment
// must be the frontmatter's name, which must be an Agent Skills name, and
// the frontmatter is sent verbatim: a store name outside that rule
// (my_skill, v1.2, a--b: the store accepts them) is not renamed, since
// that would serve bytes other than the published version's.
func refusal(name string, v *extVersion) string {
	own := store.OwnName(name)
	f := v.versionFacts()
	switch {
	case !f.hasMD:
		return "it has no SKILL.md file"
	case f.fmErr != nil:
		return "its frontmatter has no JSON form: " + f.fmErr.Error()
	case f.fmName == "":
		return fmt.Sprintf("its frontmatter has no name: set 'name: %s'", own)
	case f.fmName != own:
		return fmt.Sprintf("its frontmatter name %q is not its name in the store, %q, which its URI ends in: set 'name: %s'", f.fmName, own, own)
	case len(own) > 64 || !isAgentSkillName(own):
		return fmt.Sprintf("%q is not an Agent Skills name (lowercase letters and digits in words joined by single hyphens, at most 64): 'skillstore add --as NEWNAME' records it under one", own)
	case !f.hasDesc:
		return "its frontmatter has no description"
	case f.files > maxSkillFiles:
		return fmt.Sprintf("it has %d files, over the extension's limit of %d", f.files, maxSkillFiles)
	}
	if f.bytes > maxSkillBytes {
		return fmt.Sprintf("its files hold %d bytes, over the extension's limit of 16 MiB", f.bytes)
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
