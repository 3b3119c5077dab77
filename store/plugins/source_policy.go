package plugins

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// A source policy is what an organisation (or a person) allows skills to
// come from: a file of patterns, one a line, and every plugin source, every
// marketplace entry and every remote a pull reads must match one of them.
// Each file that exists is a restriction of its own: with a system file
// and a user file, a source must be allowed by both, so a user can narrow
// what the administrator allows but never widen it.
//
// The file's lines, '#' starting a comment:
//
//	host git.example.com            every repository on that host (any scheme; "*.example.com" for its subdomains, "host:port" for one port)
//	owner github.com/acme           every repository under that owner (or group: gitlab.com/acme/tools)
//	repo github.com/obra/superpowers  that repository
//	marketplace github.com/acme/plugins  that marketplace, and every plugin its entries name
//	local /srv/skills               folders and repositories on this machine at or below that path
//
// Addresses are matched in canonical form (gitfetch.CanonicalURL: the
// form that is then fetched, its path decoded, "." and ".." resolved, so
// acme/../evil is evil's), without scheme, user, port (unless the pattern
// names one) and a trailing ".git", an owner's path segment by segment
// (owner github.com/acme covers github.com/acme/x, never
// github.com/acme-corp/x); a GitHub address served from
// $SKILLSTORE_GITHUB_URL (a mirror) is github.com's. A local source is
// matched by the path it really leads to, every symbolic link resolved
// (so a link below /srv/skills to a repository elsewhere is not below
// /srv/skills), and so is the pattern. Every redirect a fetch is sent is
// checked the same way (store.Store.FetchOptions). A file with no
// pattern allows nothing. A file that cannot be read or holds a bad line
// allows nothing either, and every refusal says why: a broken policy
// never lets everything through.
//
// [CheckSource] runs at each place a plugin's source is about to be read:
// plugin add and adopt (ReadSource), a marketplace's entries
// (EntrySource), sync (ReadUpstream and its prefetch), plugin trust and
// plugin set, and package remote's pull and clone. The store holds the
// policy in its Options as a [store.SourceChecker].

// ErrSourceNotAllowed is wrapped by every refusal of the source policy.
var ErrSourceNotAllowed = errors.New("not allowed by the source policy")

// PolicyError is a source the policy refuses: the file that refuses it and
// the patterns that file allows (or why the file allows nothing).
type PolicyError struct {
	Source string // the source, any password hidden
	// Leads is where a local source really is, its symbolic links
	// resolved, when that is not where its path says ("" otherwise).
	Leads    string
	File     string   // the policy file that refused it
	Patterns []string // what the file allows, as written
	// Broken is why the file allows nothing (it cannot be read, or a
	// line is bad), with the file and line.
	Broken error
}

func (e *PolicyError) Error() string {
	if e.Broken != nil {
		return fmt.Sprintf("source %s is %v: the policy file cannot be used (%v), so it allows no source; fix it", e.Source, ErrSourceNotAllowed, e.Broken)
	}
	allowed := "nothing: the file lists no pattern"
	if len(e.Patterns) > 0 {
		allowed = strings.Join(e.Patterns, "; ")
	}
	leads := ""
	if e.Leads != "" {
		leads = " (it leads to " + e.Leads + ")"
	}
	return fmt.Sprintf("source %s%s is %v %s, which allows %s: use a source it allows, or ask whoever manages that file to add one", e.Source, leads, ErrSourceNotAllowed, e.File, allowed)
}

func (e *PolicyError) Unwrap() error { return ErrSourceNotAllowed }

// SourcePolicy is the source policy files that exist, read once. The nil
// policy allows every source.
type SourcePolicy struct {
	files []policyFile
}

// policyFile is one policy file: its rules, or why it allows nothing.
type policyFile struct {
	path   string
	rules  []policyRule
	broken error
	// maxRisk is the file's max-risk line (hasMax): the highest safety
	// risk any skill may be taken in at, whatever a user's flag or trust
	// says. A file of max-risk lines only does not restrict sources.
	maxRisk safety.RiskLevel
	hasMax  bool
	// scanner is the file's scanner lines (safety.ScannerLine): the
	// external scanner every new version runs through, over any store's
	// own setting. A file of such lines only does not restrict sources.
	scanner *safety.Scanner
}

// policyRule is one line of a policy file.
type policyRule struct {
	kind  string // "host", "owner", "repo", "marketplace" or "local"
	host  string // lowercase; with ":port" when the pattern names one
	path  string // owner/repo path; a clean absolute path for "local"
	text  string // the line as written, for messages
	wild  bool   // host "*.example.com": its subdomains
	exact bool   // the host pattern names a port
}

// scannerRe finds a scanner line in a file that could not be parsed.
var scannerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*scanner`) })

// policyLimit bounds a policy file: it is a list of patterns.
const policyLimit = 1 << 20

// LoadSourcePolicy reads the policy files at paths, in order (the system
// file first, then the user's). A missing file is no restriction; one that
// cannot be read or parsed refuses every source, naming the file and line.
// nil is returned when no file exists.
func LoadSourcePolicy(paths ...string) *SourcePolicy {
	p := &SourcePolicy{}
	for _, path := range paths {
		if path == "" {
			continue
		}
		data, err := safefile.ReadFile(path, policyLimit)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		f := policyFile{path: path}
		if err != nil {
			f.broken = err
		} else {
			f.rules, f.broken = parsePolicy(path, data, &f)
		}
		if f.broken != nil && scannerRe().Match(data) {
			// A file meant to name a scanner and broken holds every
			// version for review rather than letting them in unscanned.
			f.scanner = &safety.Scanner{From: path, Broken: f.broken}
		}
		p.files = append(p.files, f)
	}
	if len(p.files) == 0 {
		return nil
	}
	return p
}

// MaxRisk is the lowest max-risk line of the policy files in force and
// the file that sets it; ok is false when none has one. A broken file
// caps nothing here: it refuses every source already.
func (p *SourcePolicy) MaxRisk() (level safety.RiskLevel, file string, ok bool) {
	if p == nil {
		return 0, "", false
	}
	for _, f := range p.files {
		if f.hasMax && (!ok || f.maxRisk < level) {
			level, file, ok = f.maxRisk, f.path, true
		}
	}
	return level, file, ok
}

// Scanner is the external scanner the policy files name (the first
// file's that has one: the system's over the user's), nil for none. A
// broken file that has a scanner line names one that holds every version
// for review (safety.Scanner.Broken).
func (p *SourcePolicy) Scanner() *safety.Scanner {
	if p == nil {
		return nil
	}
	for _, f := range p.files {
		if f.scanner != nil {
			return f.scanner
		}
	}
	return nil
}

// Files are the policy files in force, in the order they are checked.
func (p *SourcePolicy) Files() []string {
	if p == nil {
		return nil
	}
	out := make([]string, len(p.files))
	for i, f := range p.files {
		out[i] = f.path
	}
	return out
}

// parsePolicy reads a policy file's lines; the first bad one makes the
// whole file allow nothing (a typo must not widen what it allows).
func parsePolicy(path string, data []byte, f *policyFile) ([]policyRule, error) {
	var rules []policyRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), policyLimit)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if sc, ok, err := safety.ScannerLine(fields, f.scanner, path); ok {
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			f.scanner = sc
			continue
		}
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: %q: write one kind (host, owner, repo, marketplace, local) and one pattern, or max-risk and a level", path, n, strings.TrimSpace(line))
		}
		if fields[0] == "max-risk" {
			level, err := safety.ParseRiskLevel(fields[1])
			if err == nil && level == safety.RiskNone {
				err = fmt.Errorf("max-risk none would refuse every skill that holds a script: give low or above")
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			if !f.hasMax || level < f.maxRisk {
				f.maxRisk, f.hasMax = level, true
			}
			continue
		}
		r, err := parseRule(fields[0], fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		rules = append(rules, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.scanner != nil && len(f.scanner.Command) == 0 {
		return nil, fmt.Errorf("%s: scanner-timeout or scanner-max-output without a scanner line naming the command", path)
	}
	return rules, nil
}

// parseRule reads one pattern of a kind.
func parseRule(kind, value string) (policyRule, error) {
	r := policyRule{kind: kind, text: kind + " " + value}
	if strings.ContainsFunc(value, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return r, fmt.Errorf("%s: a control character in the pattern", kind)
	}
	switch kind {
	case "host":
		if strings.Contains(value, "/") || value == "" {
			return r, fmt.Errorf("host %q: give a host name only (git.example.com, *.example.com or host:port)", value)
		}
		r.setHost(value)
	case "owner", "repo", "marketplace":
		host, p, ok := strings.Cut(strings.TrimSuffix(strings.Trim(value, "/"), ".git"), "/")
		if !ok || host == "" || p == "" || strings.Contains(value, "://") {
			return r, fmt.Errorf("%s %q: write HOST/PATH without a scheme (github.com/acme for an owner, github.com/acme/skills for a repository)", kind, value)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, `%\`) {
				return r, fmt.Errorf("%s %q: write the path plainly, without empty, '.' or '..' parts, '%%' or '\\'", kind, value)
			}
		}
		r.setHost(host)
		r.path = p
	case "local":
		p := value
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil {
				return r, fmt.Errorf("local %q: %w", value, err)
			}
			p = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(p) {
			return r, fmt.Errorf("local %q: give an absolute path (or ~/...)", value)
		}
		r.path = realPath(filepath.Clean(p))
	default:
		return r, fmt.Errorf("unknown kind %q: use host, owner, repo, marketplace or local", kind)
	}
	return r, nil
}

func (r *policyRule) setHost(h string) {
	h = strings.ToLower(h)
	if rest, ok := strings.CutPrefix(h, "*."); ok {
		r.wild, h = true, rest
	}
	r.exact = strings.Contains(h, ":")
	r.host = h
}

// sourceAddress is where a source points, as the policy matches it.
type sourceAddress struct {
	local bool
	host  string // lowercase, without the port
	port  string
	path  string // the repository's path without ".git"; a local source's absolute path
}

// addressOf reads where src points, from its canonical form (the form
// that is fetched); a URL that has none is refused.
func addressOf(rawURL string, kind SourceKind) (sourceAddress, error) {
	if kind == SourceFolder {
		return sourceAddress{local: true, path: realPath(localPath(rawURL))}, nil
	}
	canon, err := gitfetch.CanonicalURL(rawURL)
	if err != nil {
		return sourceAddress{}, err
	}
	if a, ok := mirroredGitHub(canon); ok {
		return a, nil
	}
	ep, err := transport.NewEndpoint(canon)
	if err != nil || ep.Protocol == "file" {
		return sourceAddress{local: true, path: realPath(localPath(canon))}, nil
	}
	a := sourceAddress{host: strings.ToLower(ep.Host), path: strings.TrimSuffix(strings.Trim(ep.Path, "/"), ".git")}
	if ep.Port != 0 {
		a.port = fmt.Sprint(ep.Port)
	}
	return a, nil
}

// mirroredGitHub reads a canonical URL under $SKILLSTORE_GITHUB_URL (see
// GitHubURL) as the github.com repository it stands for.
func mirroredGitHub(canon string) (sourceAddress, bool) {
	env := os.Getenv(GitHubURLEnv)
	if env == "" {
		return sourceAddress{}, false
	}
	base, err := gitfetch.CanonicalURL(env)
	if err != nil {
		return sourceAddress{}, false
	}
	rest, ok := strings.CutPrefix(canon, strings.TrimRight(base, "/")+"/")
	if !ok {
		return sourceAddress{}, false
	}
	if dec, err := url.PathUnescape(rest); err == nil {
		rest = dec // as a URL's path is matched: decoded
	}
	return sourceAddress{host: "github.com", path: strings.TrimSuffix(rest, ".git")}, true
}

// underPath reports whether the slash-separated path p lies below owner,
// compared segment by segment (both are canonical: no empty, "." or ".."
// segment).
func underPath(p, owner string) bool {
	ps, own := strings.Split(p, "/"), strings.Split(owner, "/")
	return len(ps) > len(own) && slices.Equal(ps[:len(own)], own)
}

// matchesHost reports whether the rule's host covers a's.
func (r policyRule) matchesHost(a sourceAddress) bool {
	if a.local {
		return false
	}
	host := a.host
	if r.exact {
		host += ":" + a.port
	}
	if r.wild {
		return strings.HasSuffix(host, "."+r.host)
	}
	return host == r.host
}

// allows reports whether the rule lets src in; market is the address of
// the marketplace that named src (zero when none did).
func (r policyRule) allows(a sourceAddress, market *sourceAddress) bool {
	switch r.kind {
	case "host":
		return r.matchesHost(a)
	case "owner":
		return r.matchesHost(a) && underPath(a.path, r.path)
	case "repo":
		return r.matchesHost(a) && a.path == r.path
	case "marketplace":
		if r.matchesHost(a) && a.path == r.path {
			return true
		}
		return market != nil && r.matchesHost(*market) && market.path == r.path
	case "local":
		if !a.local {
			return false
		}
		return isBelow(a.path, r.path)
	}
	return false
}

// Check applies the policy to src, which the marketplace at market named
// ("" when src was not named by a marketplace: typed by the user, read
// from a plugin's record without one, a remote). Every file in force must
// allow it; the error names the first that does not.
func (p *SourcePolicy) Check(src Source, market string) error {
	if p == nil {
		return nil
	}
	a, err := addressOf(src.URL, src.Kind)
	if err != nil {
		return err // a *gitfetch.URLError, which names the URL
	}
	var m *sourceAddress
	if market != "" {
		if ma, err := addressOf(marketplaceURL(market), SourceGit); err == nil {
			m = &ma
		}
	}
	for _, f := range p.files {
		if f.broken != nil {
			return &PolicyError{Source: hidePassword(src.URL), File: f.path, Broken: f.broken}
		}
		if (f.hasMax || f.scanner != nil) && len(f.rules) == 0 {
			continue // a file of max-risk or scanner lines only
		}
		ok := false
		for _, r := range f.rules {
			if r.allows(a, m) {
				ok = true
				break
			}
		}
		if !ok {
			texts := make([]string, len(f.rules))
			for i, r := range f.rules {
				texts[i] = r.text
			}
			e := &PolicyError{Source: hidePassword(src.URL), File: f.path, Patterns: texts}
			if a.local && a.path != localPath(src.URL) {
				e.Leads = a.path
			}
			return e
		}
	}
	return nil
}

// marketplaceURL is the URL of a marketplace as plugin records name it
// (marketplaceName: the source without selector or ref, its folder
// written " (folder P)").
func marketplaceURL(name string) string {
	u, _, _ := strings.Cut(name, " (folder ")
	return u
}

// hidePassword drops the password of a URL (a remote's URL may hold one);
// anything else is returned as it is.
func hidePassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); !ok {
		return raw
	}
	u.User = url.User(u.User.Username())
	return u.String()
}

// CheckSource applies the store's source policy (Options.SourcePolicy) to
// src, named by the marketplace market ("" for none). It is the one check
// every command that reads a source runs before the source is read.
func CheckSource(s *store.Store, src Source, market string) error {
	c := s.Options().SourcePolicy
	if c == nil {
		return nil
	}
	return c.CheckSource(src.URL, src.Kind == SourceFolder, market)
}

// CheckSource is [SourcePolicy.Check] of a source given by its URL (a
// folder's path when folder is true): p is the store's
// [store.SourceChecker].
func (p *SourcePolicy) CheckSource(rawURL string, folder bool, market string) error {
	kind := SourceGit
	if folder {
		kind = SourceFolder
	}
	return p.Check(Source{Kind: kind, URL: rawURL}, market)
}
