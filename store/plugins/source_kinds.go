package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/storage"

	"github.com/skillstore/skillstore/internal/archive"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/httpfetch"
	"github.com/skillstore/skillstore/internal/semver"
	"github.com/skillstore/skillstore/store"
)

// The kinds of sources fetched into the store besides git repositories.
// Each fetch of one makes what a git fetch makes, a commit over the one
// the store holds of the source (gitfetch.Snapshot), so from there on a
// source of any kind is read, snapshotted and synced as a git source is:
// the same four cases, the same refs.
const (
	SourceArchive   SourceKind = "archive"    // a tar.gz or zip at an http(s) URL, with an optional sha256
	SourceSkillMD   SourceKind = "skill-md"   // one SKILL.md at an http(s) URL
	SourceWellKnown SourceKind = "well-known" // a site's /.well-known/skills/index.json
	SourceNPM       SourceKind = "npm"        // an npm package, by name and version range
)

// fetcher is what one kind of fetched source does its own way: bring the
// source's files as a commit over base (have is the commit the store
// holds of it), and name a plugin whose layout names none.
type fetcher interface {
	fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error)
	name(src Source) string
}

// fetchers are the kinds of sources fetched into the store, each one
// type (a folder source is read where it is, and is not among them).
var fetchers = map[SourceKind]fetcher{
	SourceGit:       gitSource{},
	SourceArchive:   archiveSource{},
	SourceSkillMD:   skillMDSource{},
	SourceWellKnown: wellKnownSource{},
	SourceNPM:       npmSource{},
}

// Fetched reports whether src is fetched into the store (every kind but
// a folder): its files are then read from the commit a fetch made.
func (s Source) Fetched() bool {
	_, ok := fetchers[s.Kind]
	return ok
}

// fetchSource fetches src over base, as its kind does.
func fetchSource(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	f, ok := fetchers[src.Kind]
	if !ok {
		return gitfetch.Fetched{}, fmt.Errorf("plugin source %s: a %s source is not fetched", src, src.Kind)
	}
	return f.fetch(ctx, base, src, have, opts)
}

// gitSource is a git repository: its ref, or its newest release in range.
type gitSource struct{}

func (gitSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	if src.Tags == "" {
		return gitfetch.Fetch(ctx, base, src.URL, src.Ref, have, opts)
	}
	r, err := semver.ParseRange(src.Tags)
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("plugin source %s: %w", src, err)
	}
	return gitfetch.FetchRelease(ctx, base, src.URL, r, have, opts)
}

func (gitSource) name(Source) string { return "" }

// httpOptions are a download's bounds, from a fetch's.
func httpOptions(opts gitfetch.Options, max int64) httpfetch.Options {
	return httpfetch.Options{Timeout: opts.Timeout, Allow: opts.Allow, MaxBytes: max}
}

// snapshotSignature signs the commits that stand for a fetched tree of a
// source that is no git repository.
var snapshotSignature = gitdb.Signature{Name: "skillstore", Email: "skillstore@localhost"}

// snapshot makes the commit of files fetched from src (see
// gitfetch.Snapshot), its message naming where they came from.
func snapshot(base storage.Storer, src Source, files []store.File, have store.Hash, trailers ...gitdb.Trailer) (gitfetch.Fetched, error) {
	msg := gitdb.BuildMessage(fmt.Sprintf("snapshot of %s", src), "", append([]gitdb.Trailer{{Key: store.TrailerSourceURL, Value: src.URL}}, trailers...))
	f, err := gitfetch.Snapshot(base, files, have, snapshotSignature, msg)
	if err != nil {
		return gitfetch.Fetched{}, fmt.Errorf("plugin source %s: %w", src, err)
	}
	return f, nil
}

// DigestError is a download whose sha256 is not the one its source gives.
type DigestError struct {
	URL       string
	Algo      string // "sha256", "sha512" (base64, as npm writes it) or "sha1"
	Want, Got string
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("%s has %s %s, not the %s its source gives: it is not the file meant (or it changed); nothing of it was taken", e.URL, e.Algo, e.Got, e.Want)
}

// archiveSource is a tar.gz or zip at an http(s) URL.
type archiveSource struct{}

// maxArchiveBytes caps an archive's download.
const maxArchiveBytes = 128 << 20

func (archiveSource) fetch(ctx context.Context, base storage.Storer, src Source, have store.Hash, opts gitfetch.Options) (gitfetch.Fetched, error) {
	files, sum, err := fetchArchive(ctx, src.URL, src.SHA256, opts)
	if err != nil {
		return gitfetch.Fetched{}, err
	}
	return snapshot(base, src, files.Files, have, archiveTrailers(sum, files)...)
}

// fetchArchive downloads and unpacks the archive at rawURL, checking its
// sha256 against want when want is given.
func fetchArchive(ctx context.Context, rawURL, want string, opts gitfetch.Options) (*archive.Tree, string, error) {
	data, err := httpfetch.Get(ctx, rawURL, httpOptions(opts, maxArchiveBytes))
	if err != nil {
		return nil, "", fmt.Errorf("fetch %w", err)
	}
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	if want != "" && !strings.EqualFold(want, got) {
		return nil, "", &DigestError{URL: rawURL, Algo: "sha256", Want: strings.ToLower(want), Got: got}
	}
	t, err := archive.Unpack(data, archive.DefaultLimits)
	if err != nil {
		return nil, "", fmt.Errorf("archive %s: %w", rawURL, err)
	}
	return t, got, nil
}

func archiveTrailers(sum string, t *archive.Tree) []gitdb.Trailer {
	out := []gitdb.Trailer{{Key: "Source-Sha256", Value: sum}}
	for _, l := range t.LeftOut {
		out = append(out, gitdb.Trailer{Key: store.TrailerLeftOut, Value: l})
	}
	return out
}

func (archiveSource) name(src Source) string {
	u, err := url.Parse(src.URL)
	if err != nil {
		return ""
	}
	return idSafe(archive.Base(u.Path))
}

// CheckSHA256 checks a sha256 given for an archive: 64 hexadecimal digits.
func CheckSHA256(s string) error {
	if len(s) != 64 || strings.Trim(strings.ToLower(s), "0123456789abcdef") != "" {
		return fmt.Errorf("sha256 %q is not 64 hexadecimal digits", s)
	}
	return nil
}

// NPMRegistryEnv names the environment variable that replaces the npm
// registry (https://registry.npmjs.org): a mirror, or a test's server.
const NPMRegistryEnv = "SKILLSTORE_NPM_REGISTRY"

// npmRegistry is the registry npm packages are fetched from.
func npmRegistry() string {
	if r := os.Getenv(NPMRegistryEnv); r != "" {
		return strings.TrimRight(r, "/")
	}
	return "https://registry.npmjs.org"
}

// npmNameRE is npm's rule for a package name (lower case, at most 214
// characters, an optional @scope/).
var npmNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$`)
})

// parseWebSource reads the sources that are no git repository, as typed:
// npm:NAME (an npm package; its range comes after '@', see splitRelease),
// and http(s) URLs whose path says what they are: an archive (.tar.gz,
// .tgz, .zip), a SKILL.md, or a site's skills index
// (/.well-known/skills/index.json, /.well-known/agent-skills/index.json).
// ok is false for anything else, which is read as before.
func parseWebSource(loc string) (Source, bool, error) {
	if name, ok := strings.CutPrefix(loc, "npm:"); ok {
		if len(name) > 214 || !npmNameRE().MatchString(name) {
			return Source{}, false, fmt.Errorf("plugin source %s: %q is not an npm package name (lower case letters, digits, - . _ ~, an optional @scope/)", loc, name)
		}
		return Source{Kind: SourceNPM, URL: npmRegistry() + "/" + name}, true, nil
	}
	u, err := url.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Source{}, false, nil
	}
	var kind SourceKind
	switch p := strings.ToLower(u.Path); {
	case archive.IsArchivePath(p):
		kind = SourceArchive
	case strings.HasSuffix(p, "/skill.md"):
		if h := strings.ToLower(u.Hostname()); h == "github.com" || h == "www.github.com" {
			// A github.com page, not the file: read as a GitHub address,
			// whose error names the forms it takes.
			return Source{}, false, nil
		}
		kind = SourceSkillMD
	case strings.HasSuffix(p, "/.well-known/skills/index.json"), strings.HasSuffix(p, "/.well-known/agent-skills/index.json"):
		kind = SourceWellKnown
	default:
		return Source{}, false, nil
	}
	canon, err := gitfetch.CanonicalURL(loc)
	if err != nil {
		return Source{}, false, fmt.Errorf("plugin source: %w", err)
	}
	return Source{Kind: kind, URL: canon}, true, nil
}
