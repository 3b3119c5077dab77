package plugins

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/storage"

	"github.com/skillstore/skillstore/internal/archive"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/httpfetch"
	"github.com/skillstore/skillstore/internal/semver"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store"
)

// maxWebFile caps one downloaded file of a skill: past a stored file's
// cap, so the intake leaves it out and names it, but not unbounded.
const maxWebFile = 16 << 20

// skillMDSource is one SKILL.md at an http(s) URL: a skill alone, in a
// folder named by its frontmatter's name (else by the URL's folder).
type skillMDSource struct{}

func (skillMDSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	data, err := httpfetch.Get(ctx, src.URL, httpOptions(opts, maxWebFile))
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("fetch %w", err)
	}
	name := frontmatterName(data)
	if skillfs.CheckName(name) != nil {
		name = skillMDSource{}.name(src)
	}
	if err := skillfs.CheckName(name); err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("%s: the SKILL.md names no valid skill (its \"name\", else its URL's folder): %w", src.URL, err)
	}
	return snapshot(base, src, []store.File{{Path: name + "/" + skillmd.FileName, Mode: skillfs.Regular, Data: data, Size: int64(len(data))}}, have)
}

// name is the folder the SKILL.md's URL puts it in (.../pdf/SKILL.md:
// "pdf"), else the site's host.
func (skillMDSource) name(src Source) string {
	u, err := url.Parse(src.URL)
	if err != nil {
		return ""
	}
	if dir := path.Base(path.Dir(u.Path)); dir != "/" && dir != "." {
		return idSafe(dir)
	}
	return hostID(u.Hostname())
}

// hostID is a host as a plugin id: docs.example.com is
// "docs-example-com".
func hostID(host string) string { return idSafe(strings.ReplaceAll(host, ".", "-")) }

// frontmatterName is the "name" a SKILL.md's frontmatter gives, "" when
// it gives none or cannot be read.
func frontmatterName(data []byte) string {
	doc, err := skillmd.Parse(data)
	if err != nil || doc.Root == nil {
		return ""
	}
	for i := 0; i+1 < len(doc.Root.Content); i += 2 {
		if doc.Root.Content[i].Value == "name" {
			return strings.TrimSpace(doc.Root.Content[i+1].Value)
		}
	}
	return ""
}

// wellKnownSource is a site's skills index, in the two shapes published:
// /.well-known/skills/index.json ({"skills": [{"name", "description",
// "files": [...]}]}, each file at .../skills/NAME/FILE), and
// /.well-known/agent-skills/index.json with a "$schema" (each skill one
// artifact: {"name", "type": "skill-md" or "archive", "url", "digest":
// "sha256:HEX"}, the url relative to the index). Each skill becomes the
// folder NAME of the snapshot.
type wellKnownSource struct{}

// wellKnownIndex is the part of an index skillstore reads.
type wellKnownIndex struct {
	Schema string `json:"$schema"`
	Skills []struct {
		Name   string   `json:"name"`
		Files  []string `json:"files"`
		Type   string   `json:"type"`
		URL    string   `json:"url"`
		Digest string   `json:"digest"`
	} `json:"skills"`
}

// Bounds of an index: what a site may ask skillstore to download.
const (
	maxIndexSkills = 1000
	maxIndexBytes  = 4 << 20
)

func (wellKnownSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	data, err := httpfetch.Get(ctx, src.URL, httpOptions(opts, maxIndexBytes))
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("fetch %w", err)
	}
	var idx wellKnownIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("%s: not a skills index: %v", src.URL, err)
	}
	if len(idx.Skills) == 0 {
		return gitfetch.Fetched{}, fmt.Errorf("%s: the index lists no skill", src.URL)
	}
	if len(idx.Skills) > maxIndexSkills {
		return gitfetch.Fetched{}, fmt.Errorf("%s: the index lists %d skills, more than the %d one index may", src.URL, len(idx.Skills), maxIndexSkills)
	}
	indexURL, err := url.Parse(src.URL)
	if err != nil {
		return gitfetch.Fetched{}, err
	}
	var files []store.File
	seen := map[string]bool{}
	for i, sk := range idx.Skills {
		where := fmt.Sprintf("%s: skills[%d]", src.URL, i)
		if err := skillfs.CheckName(sk.Name); err != nil {
			return gitfetch.Fetched{}, fmt.Errorf("%s: %w", where, err)
		}
		if seen[sk.Name] {
			return gitfetch.Fetched{}, fmt.Errorf("%s: a skill named %q is listed above", where, sk.Name)
		}
		seen[sk.Name] = true
		var got []store.File
		if sk.URL != "" {
			got, err = fetchArtifact(ctx, indexURL, sk.Name, sk.Type, sk.URL, sk.Digest, opts)
		} else {
			got, err = fetchListed(ctx, indexURL, sk.Name, sk.Files, opts)
		}
		if err != nil {
			return gitfetch.Fetched{}, fmt.Errorf("%s (%s): %w", where, sk.Name, err)
		}
		files = append(files, got...)
	}
	return snapshot(base, src, files, have)
}

// fetchListed downloads a skill's files as the first index shape lists
// them: NAME/FILE beside the index.
func fetchListed(ctx context.Context, index *url.URL, name string, list []string, opts gitfetch.Options) ([]store.File, error) {
	if len(list) == 0 {
		list = []string{skillmd.FileName}
	}
	if len(list) > skillfs.DefaultLimits.MaxFiles {
		return nil, fmt.Errorf("%d files, more than the %d a skill may hold", len(list), skillfs.DefaultLimits.MaxFiles)
	}
	for _, f := range list { // every path checked before any download
		if p := path.Join(name, f); skillfs.CheckPath(p) != nil || !strings.HasPrefix(p, name+"/") || p != name+"/"+f {
			return nil, fmt.Errorf("file %q is no path inside the skill's folder", f)
		}
	}
	var out []store.File
	for _, f := range list {
		p := name + "/" + f
		ref := &url.URL{Path: p}
		data, err := httpfetch.Get(ctx, index.ResolveReference(ref).String(), httpOptions(opts, maxWebFile))
		if err != nil {
			return nil, err
		}
		out = append(out, store.File{Path: p, Mode: skillfs.Regular, Data: data, Size: int64(len(data))})
	}
	return out, nil
}

// fetchArtifact downloads a skill published as one artifact (the second
// index shape): a SKILL.md or an archive of the skill's folder, its
// digest checked, at a URL relative to the index that the source policy
// allows as it allows the index.
func fetchArtifact(ctx context.Context, index *url.URL, name, kind, rawURL, digest string, opts gitfetch.Options) ([]store.File, error) {
	ref, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", rawURL, err)
	}
	abs := index.ResolveReference(ref).String()
	canon, err := gitfetch.CanonicalURL(abs)
	if err != nil {
		return nil, err
	}
	if opts.Allow != nil {
		if err := opts.Allow(canon); err != nil {
			return nil, err
		}
	}
	data, err := httpfetch.Get(ctx, canon, httpOptions(opts, maxArchiveBytes))
	if err != nil {
		return nil, err
	}
	if digest != "" {
		want, ok := strings.CutPrefix(digest, "sha256:")
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); !ok || !strings.EqualFold(want, got) {
			return nil, &DigestError{URL: canon, Algo: "sha256", Want: strings.ToLower(want), Got: got}
		}
	}
	switch kind {
	case "skill-md", "":
		return []store.File{{Path: name + "/" + skillmd.FileName, Mode: skillfs.Regular, Data: data, Size: int64(len(data))}}, nil
	case "archive":
		t, err := archive.Unpack(data, archive.DefaultLimits)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", canon, err)
		}
		out := make([]store.File, len(t.Files))
		for i, f := range t.Files {
			f.Path = name + "/" + f.Path
			out[i] = f
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %q is neither skill-md nor archive", kind)
}

// name is the site's host (docs.example.com: "docs-example-com").
func (wellKnownSource) name(src Source) string {
	u, err := url.Parse(src.URL)
	if err != nil {
		return ""
	}
	return hostID(u.Hostname())
}

// npmSource is an npm package: the tarball of its newest version in
// Source.Tags (its "latest" dist-tag when none), from the registry
// (npmRegistry), its integrity checked. The snapshot holds its skills
// only, each as skills/NAME: those its package.json lists ("skills": a
// path, a list of paths or of {"name", "path"}; or "agentskills":
// {"skills": [{"name", "path"}]}), else those of its skills/ folder.
type npmSource struct{}

// npmDocument is the part of a registry's package document read.
type npmDocument struct {
	Name     string            `json:"name"`
	DistTags map[string]string `json:"dist-tags"`
	Versions map[string]struct {
		Dist struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
			Shasum    string `json:"shasum"`
		} `json:"dist"`
	} `json:"versions"`
}

func (npmSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	o := httpOptions(opts, 64<<20)
	o.Accept = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
	data, err := httpfetch.Get(ctx, src.URL, o)
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("fetch %w", err)
	}
	var doc npmDocument
	if err := json.Unmarshal(data, &doc); err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("%s: not an npm package document: %v", src.URL, err)
	}
	version, err := pickNPMVersion(doc, src.Tags)
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("%s: %w", src.URL, err)
	}
	dist := doc.Versions[version].Dist
	tarball, err := url.Parse(dist.Tarball)
	if err != nil || (tarball.Scheme != "https" && tarball.Scheme != "http") {
		return gitfetch.Fetched{}, fmt.Errorf("%s: version %s has no tarball URL", src.URL, version)
	}
	canon, err := gitfetch.CanonicalURL(tarball.String())
	if err != nil {
		return gitfetch.Fetched{}, err
	}
	if opts.Allow != nil {
		if err := opts.Allow(canon); err != nil {
			return gitfetch.Fetched{}, err
		}
	}
	tgz, err := httpfetch.Get(ctx, canon, httpOptions(opts, maxArchiveBytes))
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("fetch %w", err)
	}
	if err := checkIntegrity(canon, tgz, dist.Integrity, dist.Shasum); err != nil {
		return gitfetch.Fetched{}, err
	}
	t, err := archive.Unpack(tgz, archive.DefaultLimits)
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("npm package %s %s: %w", doc.Name, version, err)
	}
	if err := checkPackageName(t.Files, npmName(src.URL)); err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("npm package %s %s: %w", doc.Name, version, err)
	}
	files, err := npmSkills(t.Files)
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("npm package %s %s: %w", doc.Name, version, err)
	}
	f, err := snapshot(base, src, files, have, gitdb.Trailer{Key: "Source-Version", Value: version}, gitdb.Trailer{Key: "Source-Tarball", Value: canon})
	f.Version = version
	return f, err
}

// pickNPMVersion is the version a source takes: the newest in rng, or
// the "latest" dist-tag when rng is "".
func pickNPMVersion(doc npmDocument, rng string) (string, error) {
	if rng == "" {
		v := doc.DistTags["latest"]
		if _, ok := doc.Versions[v]; !ok {
			return "", fmt.Errorf("the package has no \"latest\" version")
		}
		return v, nil
	}
	r, err := semver.ParseRange(rng)
	if err != nil {
		return "", err
	}
	var names []string
	var vs []semver.Version
	for name := range doc.Versions {
		if v, err := semver.Parse(name); err == nil {
			names, vs = append(names, name), append(vs, v)
		}
	}
	best := r.Newest(vs)
	if best < 0 {
		return "", fmt.Errorf("no version matches %q (newest: %s)", rng, strings.Join(newest(vs, 5), ", "))
	}
	return names[best], nil
}

func newest(vs []semver.Version, n int) []string {
	s := slices.Clone(vs)
	slices.SortFunc(s, func(a, b semver.Version) int { return semver.Compare(b, a) })
	var out []string
	for _, v := range s[:min(n, len(s))] {
		out = append(out, v.String())
	}
	return out
}

// checkIntegrity checks a tarball against its document's "integrity"
// (sha512-BASE64, the subresource-integrity form npm writes) or, for
// old packages without one, its "shasum" (sha1 hex).
func checkIntegrity(rawURL string, data []byte, integrity, shasum string) error {
	if sri, ok := strings.CutPrefix(integrity, "sha512-"); ok {
		sum := sha512.Sum512(data)
		if got := base64.StdEncoding.EncodeToString(sum[:]); got != sri {
			return &DigestError{URL: rawURL, Algo: "sha512", Want: sri, Got: got}
		}
		return nil
	}
	if shasum != "" {
		sum := sha1.Sum(data)
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, shasum) {
			return &DigestError{URL: rawURL, Algo: "sha1", Want: strings.ToLower(shasum), Got: got}
		}
		return nil
	}
	return fmt.Errorf("%s: the registry gives no integrity or shasum to check the tarball against", rawURL)
}

// checkPackageName refuses a tarball whose package.json names another
// package than the one asked for (a registry, or a mirror, that serves
// one package under another's name).
func checkPackageName(files []store.File, want string) error {
	pj, ok := skillfs.Find(files, "package.json")
	if !ok {
		return fmt.Errorf("the tarball has no package.json")
	}
	var m struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(pj.Data, &m); err != nil {
		return fmt.Errorf("package.json: %v", err)
	}
	if m.Name != want {
		return fmt.Errorf("its package.json names the package %q, not %q", m.Name, want)
	}
	return nil
}

// npmManifest is the part of a package.json read.
type npmManifest struct {
	Skills      json.RawMessage `json:"skills"`
	AgentSkills struct {
		Skills []npmSkill `json:"skills"`
	} `json:"agentskills"`
}

type npmSkill struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// npmSkills picks a package's skills out of its files, as skills/NAME/...
func npmSkills(files []store.File) ([]store.File, error) {
	var m npmManifest
	if pj, ok := skillfs.Find(files, "package.json"); ok {
		if err := json.Unmarshal(pj.Data, &m); err != nil {
			return nil, fmt.Errorf("package.json: %v", err)
		}
	}
	listed, err := npmListed(m)
	if err != nil {
		return nil, err
	}
	if listed == nil {
		listed = []npmSkill{{Path: "skills"}}
	}
	var out []store.File
	seen := map[string]string{}
	for _, s := range listed {
		dir := strings.Trim(path.Clean(strings.TrimPrefix(s.Path, "./")), "/")
		if dir == ".." || strings.HasPrefix(dir, "../") || path.IsAbs(s.Path) {
			return nil, fmt.Errorf("package.json: skill path %q leaves the package", s.Path)
		}
		for name, skillDir := range skillFolders(files, dir, s.Name) {
			if prev, dup := seen[name]; dup && prev != skillDir {
				return nil, fmt.Errorf("package.json: two skills named %q: %s and %s", name, prev, skillDir)
			}
			seen[name] = skillDir
			for _, f := range files {
				if rest, ok := strings.CutPrefix(f.Path, skillDir+"/"); ok || skillDir == "." {
					if skillDir == "." {
						rest = f.Path
					}
					f.Path = "skills/" + name + "/" + rest
					out = append(out, f)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no SKILL.md in the folders its package.json lists, nor in skills/", ErrNoPackageSkills)
	}
	return out, nil
}

// ErrNoPackageSkills is wrapped when an npm package ships no skill.
var ErrNoPackageSkills = fmt.Errorf("the package holds no skills")

// npmListed reads package.json's list of skills; nil when it gives none.
func npmListed(m npmManifest) ([]npmSkill, error) {
	if len(m.AgentSkills.Skills) > 0 {
		return m.AgentSkills.Skills, nil
	}
	if len(m.Skills) == 0 || string(m.Skills) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(m.Skills, &one) == nil {
		return []npmSkill{{Path: one}}, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(m.Skills, &raw); err != nil {
		return nil, fmt.Errorf(`package.json: "skills" must be a path, a list of paths or of {"name", "path"}`)
	}
	var out []npmSkill
	for _, r := range raw {
		var s npmSkill
		if json.Unmarshal(r, &s.Path) != nil && json.Unmarshal(r, &s) != nil {
			return nil, fmt.Errorf(`package.json: "skills" must be a path, a list of paths or of {"name", "path"}`)
		}
		out = append(out, s)
	}
	return out, nil
}

// skillFolders maps the skills at dir: dir itself when it holds a
// SKILL.md (named name, else by its folder), else each folder below it
// that holds one (named by its folder).
func skillFolders(files []store.File, dir, name string) map[string]string {
	out := map[string]string{}
	if _, ok := skillfs.Find(files, path.Join(dir, skillmd.FileName)); ok {
		if name == "" {
			name = path.Base(dir)
		}
		out[name] = dir
		return out
	}
	for _, f := range files {
		rest, ok := strings.CutPrefix(f.Path, dir+"/")
		if !ok {
			continue
		}
		if sub, file, ok := strings.Cut(rest, "/"); ok && file == skillmd.FileName {
			out[sub] = dir + "/" + sub
		}
	}
	return out
}

// name is the package's name without its scope.
func (npmSource) name(src Source) string { return idSafe(path.Base(npmName(src.URL))) }

// npmName is the package name of an npm source's URL (its registry's
// document of the package).
func npmName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	p := strings.TrimPrefix(u.Path, "/")
	if i := strings.LastIndex(p, "@"); i > 0 {
		p = p[i:] // a registry under a path: the scope starts the name
	} else if i < 0 {
		p = path.Base(p)
	}
	return p
}
