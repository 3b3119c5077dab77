package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-git/v5/config"
)

// Remotes are kept in the store repository's own git config
// ([remote "NAME"] url = ..., fetch = ...), not in the state ref: a remote
// is where this machine's copy of the store is shared, which is a fact
// about the machine, not about the store; the state ref travels to the
// server on every push, and a URL may carry a user name or a token that
// must never leave the machine. Plain git sees the remotes too: `git -C
// STORE remote -v` lists them and `git fetch` fills the same tracking refs
// (refs/remotes/NAME/...) that pull does.

// ErrRemoteExists is wrapped when adding a remote whose name is taken.
var ErrRemoteExists = errors.New("remote already exists")

// ErrUnknownRemote is wrapped when a remote name is not configured.
var ErrUnknownRemote = errors.New("no such remote")

// ErrNoRemote is returned when a command needs a remote and none is
// configured, or several are and none is named.
var ErrNoRemote = errors.New("no remote to use")

// DefaultRemote is the remote push and pull use when none is named and
// several exist; clone names its remote this way.
const DefaultRemote = "origin"

// Remote is a configured remote: a name and a git URL.
type Remote struct {
	Name string `json:"name"`
	// URL is the URL as configured. It may hold credentials: print
	// Redacted instead.
	URL string `json:"-"`
}

// Redacted is the URL with any password or token replaced by "***".
func (r Remote) Redacted() string { return RedactURL(r.URL) }

// RedactURL hides the password of a URL ("https://me:s3cret@host/x" →
// "https://me:***@host/x"); a URL whose user part alone is a token
// ("https://ghp_xxx@github.com/...") has it hidden too, except for the
// conventional ssh user names. Anything that does not parse as a URL is
// returned as is. A URL that holds a control character (which nothing
// uses: see gitfetch.CheckURL) is shown with it escaped and its user part
// unmasked, so that the masking never hides what is wrong with it.
func RedactURL(raw string) string {
	var bad *gitfetch.URLError
	if errors.As(gitfetch.CheckURL(raw), &bad) {
		return bad.URL
	}
	if !schemeRE().MatchString(raw) {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	user := u.User.Username()
	if _, hasPass := u.User.Password(); hasPass {
		user += ":***"
	} else if u.Scheme != "ssh" && u.Scheme != "git+ssh" && u.Scheme != "ssh+git" {
		user = "***"
	}
	u.User = nil
	prefix := u.Scheme + "://"
	return prefix + user + "@" + strings.TrimPrefix(u.String(), prefix)
}

// redactIn replaces every occurrence of a raw URL (and its password) in
// text, so errors that quote the URL never show a credential.
func redactIn(text, raw string) string {
	red := RedactURL(raw)
	if red == raw {
		return text
	}
	text = strings.ReplaceAll(text, raw, red)
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			text = strings.ReplaceAll(text, p, "***")
		}
	}
	return text
}

// Compiled on first use rather than at start-up, which every command pays.
// schemeRE and scpRE tell a URL from a path the way store.ParseSource does.
var (
	remoteNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })
	schemeRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`) })
	scpRE        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^/@:]+@[^/:]+:`) }) // git@host:owner/repo
)

// checkRemoteName accepts names usable as a git remote and a ref
// component: letters, digits, '.', '_' and '-', at most 64 characters.
func checkRemoteName(name string) error {
	if !remoteNameRE().MatchString(name) || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, ".") {
		return &store.InvalidNameError{Name: name, Reason: "a remote name uses letters, digits, '.', '_' and '-'"}
	}
	return nil
}

// normalizeRemoteURL checks that raw is a git URL skillstore can reach
// (file://, git://, http(s)://, ssh:// or user@host:path) or a local
// repository path, which it makes absolute, with no control character in
// any part, and returns its canonical form (gitfetch.CanonicalURL: the
// form the source policy checks and pull fetches).
func normalizeRemoteURL(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("empty remote URL")
	}
	if err := gitfetch.CheckURL(raw); err != nil {
		return "", fmt.Errorf("remote URL: %w", err)
	}
	if !scpRE().MatchString(raw) && schemeRE().MatchString(raw) {
		u, err := url.Parse(raw)
		if err != nil {
			return "", fmt.Errorf("remote URL %s: %w", RedactURL(raw), err)
		}
		switch u.Scheme {
		case "file", "git", "http", "https", "ssh":
		default:
			return "", fmt.Errorf("remote URL %s: unsupported scheme %q (use file, git, http, https or ssh)", RedactURL(raw), u.Scheme)
		}
	}
	canon, err := gitfetch.CanonicalURL(raw)
	if err != nil {
		return "", fmt.Errorf("remote URL: %w", err)
	}
	return canon, nil
}

// trackingFetchSpecs are the refspecs written to the git config, so plain
// `git fetch NAME` in the store fills the same tracking refs as pull.
func trackingFetchSpecs(name string) []config.RefSpec {
	var specs []config.RefSpec
	for _, p := range []string{store.SkillRefPrefix, store.PluginRefPrefix, store.CandidateRefPrefix, store.UpstreamRefPrefix} {
		specs = append(specs, config.RefSpec("+"+p+"*:"+store.TrackingRef(name, p)+"*"))
	}
	// A pattern, so plain git does not fail on a remote without a state.
	return append(specs, config.RefSpec("+"+store.StateRef+"*:"+store.TrackingRef(name, store.StateRef)+"*"))
}

func configPath(s *store.Store) string { return filepath.Join(s.Dir(), "config") }

// readConfig reads the repository's git config.
func readConfig(s *store.Store) (*config.Config, error) {
	data, err := os.ReadFile(configPath(s))
	if errors.Is(err, os.ErrNotExist) {
		return config.NewConfig(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	cfg := config.NewConfig()
	if err := cfg.Unmarshal(data); err != nil {
		return nil, fmt.Errorf("git config %s does not parse: %w", configPath(s), err)
	}
	return cfg, nil
}

// writeConfig replaces the git config atomically. The caller holds the
// store's write lock.
func writeConfig(s *store.Store, cfg *config.Config) error {
	data, err := cfg.Marshal()
	if err != nil {
		return fmt.Errorf("write git config: %w", err)
	}
	if err := atomicfile.WriteFile(configPath(s), data, 0o644); err != nil {
		return fmt.Errorf("write git config: %w", err)
	}
	return nil
}

// List lists the remotes configured in store s, sorted by name.
func List(ctx context.Context, s *store.Store) ([]Remote, error) {
	var out []Remote
	err := s.View(ctx, func(r *store.Reader) error {
		var err error
		out, err = list(s)
		return err
	})
	return out, err
}

func list(s *store.Store) ([]Remote, error) {
	cfg, err := readConfig(s)
	if err != nil {
		return nil, err
	}
	out := []Remote{}
	for name, rc := range cfg.Remotes {
		if len(rc.URLs) > 0 {
			out = append(out, Remote{Name: name, URL: rc.URLs[0]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// find finds the remote of s called name; "" means the only remote, or
// DefaultRemote when there are several.
func find(s *store.Store, name string) (Remote, error) {
	all, err := list(s)
	if err != nil {
		return Remote{}, err
	}
	if name == "" {
		switch {
		case len(all) == 1:
			return all[0], nil
		case len(all) == 0:
			return Remote{}, fmt.Errorf("%w: the store has no remote", ErrNoRemote)
		}
		name = DefaultRemote
		for _, r := range all {
			if r.Name == name {
				return r, nil
			}
		}
		return Remote{}, fmt.Errorf("%w: the store has %d remotes and none is called %s: name one", ErrNoRemote, len(all), DefaultRemote)
	}
	for _, r := range all {
		if r.Name == name {
			return r, nil
		}
	}
	return Remote{}, fmt.Errorf("remote %q: %w", name, ErrUnknownRemote)
}

// Add records a remote of store s. The URL is checked for its form only; the
// first push, pull or clone reaches it.
func Add(ctx context.Context, s *store.Store, name, rawURL string) (Remote, error) {
	if err := checkRemoteName(name); err != nil {
		return Remote{}, err
	}
	u, err := normalizeRemoteURL(rawURL)
	if err != nil {
		return Remote{}, err
	}
	rem := Remote{Name: name, URL: u}
	err = s.Update(ctx, func(tx *store.Tx) error {
		cfg, err := readConfig(s)
		if err != nil {
			return err
		}
		if _, ok := cfg.Remotes[name]; ok {
			return fmt.Errorf("remote %q: %w", name, ErrRemoteExists)
		}
		rc := &config.RemoteConfig{Name: name, URLs: []string{u}, Fetch: trackingFetchSpecs(name)}
		if err := rc.Validate(); err != nil {
			return fmt.Errorf("remote %q: %s", name, redactIn(err.Error(), u))
		}
		cfg.Remotes[name] = rc
		return writeConfig(s, cfg)
	})
	return rem, err
}

// Remove forgets a remote of store s and its tracking refs. Nothing on the
// remote changes, and no published skill or candidate is touched.
func Remove(ctx context.Context, s *store.Store, name string) error {
	return s.Update(ctx, func(tx *store.Tx) error {
		cfg, err := readConfig(s)
		if err != nil {
			return err
		}
		if _, ok := cfg.Remotes[name]; !ok {
			return fmt.Errorf("remote %q: %w", name, ErrUnknownRemote)
		}
		delete(cfg.Remotes, name)
		// The config goes first: tracking refs left by a crash right
		// after it belong to no remote and only keep objects alive.
		if err := writeConfig(s, cfg); err != nil {
			return err
		}
		for _, ref := range tx.RefNames(store.RemoteRefPrefix + name + "/") {
			tx.DeleteRef(ref)
		}
		return nil
	})
}
