package adopt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/plugins"
)

// What 'adopt' reads of other installers' records, one reader per format:
// the 'npx skills' lock files (readLockFile), Claude Code's
// installed_plugins.json (discover.ReadClaudeInstalls, which discovery
// reads too) and known_marketplaces.json (readClaudeMarketplaceRecords).
// Each record may sit in a folder someone else wrote: it is read as a
// bounded regular file, and one that cannot be used is named with why
// (recordError), never guessed at.

// recordError is a record file adopt cannot use: Where is the file, with
// the line when known; Err says why.
type recordError struct {
	Where string
	Err   error
}

func (e *recordError) Error() string { return e.Where + ": " + e.Err.Error() }
func (e *recordError) Unwrap() error { return e.Err }

// recordFault turns what went wrong reading the record at path into the
// error adopt reports: a file that is no regular file or is too large is
// not read at all; one that does not parse is named with the line.
func recordFault(path string, err error) error {
	var pe *fs.PathError
	var je *discover.JSONError
	switch {
	case (errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrTooLarge)) && errors.As(err, &pe):
		return &recordError{Where: path, Err: fmt.Errorf("%w: not read, nothing in it is used (replace it with the record itself)", pe.Err)}
	case errors.As(err, &je) && je.Line > 0:
		return &recordError{Where: fmt.Sprintf("%s:%d", path, je.Line), Err: fmt.Errorf("not valid JSON: %w", je.Err)}
	case errors.As(err, &je):
		return &recordError{Where: path, Err: je.Err}
	}
	return err
}

// readRecordFile reads a record another tool wrote: only a regular file of
// at most safefile.RecordLimit bytes is read, and a FIFO never blocks the
// read. A missing file is (nil, nil).
func readRecordFile(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, safefile.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, recordFault(path, err)
	}
	return data, nil
}

// readJSONRecord decodes the record at path into v; false when the file
// is missing.
func readJSONRecord(path string, v any) (bool, error) {
	data, err := readRecordFile(path)
	if data == nil || err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, recordFault(path, discover.NewJSONError(data, err))
	}
	return true, nil
}

// lockSkill is one skill of an 'npx skills' lock file: the global lock
// (~/.agents/.skill-lock.json, version 3: sourceUrl, skillFolderHash, the
// git tree of the folder, and pluginName, the marketplace plugin) or a
// project's skills-lock.json (version 1: ref and computedHash, the
// digest of package npxhash).
type lockSkill struct {
	Source          string `json:"source"`
	SourceType      string `json:"sourceType"`
	SourceURL       string `json:"sourceUrl"`
	Ref             string `json:"ref"`
	SkillPath       string `json:"skillPath"`
	SkillFolderHash string `json:"skillFolderHash"`
	ComputedHash    string `json:"computedHash"`
	PluginName      string `json:"pluginName"`
	File            string `json:"-"`
	Version         int    `json:"-"`
}

// knownLockVersions are the lock file versions adopt reads.
var knownLockVersions = map[int]bool{1: true, 2: true, 3: true}

// readLockFile reads an 'npx skills' lock file; a missing one is no error.
func readLockFile(path string) (map[string]lockSkill, error) {
	var lock struct {
		Version int                  `json:"version"`
		Skills  map[string]lockSkill `json:"skills"`
	}
	if ok, err := readJSONRecord(path, &lock); !ok {
		return nil, err
	}
	if !knownLockVersions[lock.Version] {
		return nil, &recordError{path, fmt.Errorf("unknown lock file version %d (known: 1, 2, 3): its sources are not used", lock.Version)}
	}
	for k, v := range lock.Skills {
		v.File, v.Version = path, lock.Version
		lock.Skills[k] = v
	}
	return lock.Skills, nil
}

// GitLabURLEnv replaces https://gitlab.com in the GitLab shorthand a lock
// file records (sourceType gitlab, "group/repo"), as SKILLSTORE_GITHUB_URL
// does for GitHub's.
const GitLabURLEnv = "SKILLSTORE_GITLAB_URL"

// gitLabURL is the clone URL of GitLab's group/repo shorthand.
func gitLabURL(repo string) string {
	base := "https://gitlab.com"
	if env := os.Getenv(GitLabURLEnv); env != "" {
		base = env
	}
	return strings.TrimRight(base, "/") + "/" + strings.TrimSuffix(strings.Trim(repo, "/"), ".git") + ".git"
}

// errNotGit is a lock file's source that is no git repository ('npx
// skills' installs from a site's /.well-known/skills/index.json and from
// npm packages in node_modules): its skill is taken in as managed.
var errNotGit = errors.New("not a git repository, which is what skillstore follows")

// lockSource is the plugin source a lock file entry names, at the ref it
// was installed from, and with the marketplace plugin it belongs to
// (pluginName) picked.
func lockSource(ctx context.Context, l lockSkill) (plugins.Source, error) {
	pick := func(u string) string {
		if l.PluginName != "" && !strings.Contains(u, "#") && skillfs.CheckName(l.PluginName) == nil {
			return u + "#" + l.PluginName
		}
		return u
	}
	switch l.SourceType {
	case "github":
		u := l.Source
		if !strings.Contains(u, "://") && !strings.HasPrefix(u, "git@") {
			u = plugins.GitHubURL(u)
		}
		return plugins.ParseSourceContext(ctx, pick(u), l.Ref)
	case "gitlab":
		u := l.SourceURL
		if u == "" && (strings.Contains(l.Source, "://") || strings.HasPrefix(l.Source, "git@")) {
			u = l.Source
		} else if u == "" {
			u = gitLabURL(l.Source)
		}
		return plugins.ParseSourceContext(ctx, pick(u), l.Ref)
	case "well-known", "node_modules":
		return plugins.Source{}, fmt.Errorf("a %s source (%s): %w", l.SourceType, l.Source, errNotGit)
	case "local":
		p := l.SourceURL
		if p == "" {
			p = l.Source
		}
		if _, err := os.Stat(p); err != nil {
			return plugins.Source{}, fmt.Errorf("local source %s: %w", p, err)
		}
		return plugins.ParseSourceContext(ctx, p, "")
	case "git", "direct-url", "url":
		u := l.SourceURL
		if u == "" {
			u = l.Source
		}
		return plugins.ParseSourceContext(ctx, pick(u), l.Ref)
	}
	return plugins.Source{}, fmt.Errorf("unknown sourceType %q", l.SourceType)
}

// readClaudeInstalls reads installed_plugins.json for adopt: the one
// reader's installs (discover.ReadClaudeInstalls), sorted by plugin and
// scope. Adopt takes a file whole or not at all: an entry that cannot be
// read refuses the file, and the error says which.
func readClaudeInstalls(path string) ([]discover.ClaudeInstall, error) {
	rec, err := discover.ReadClaudeInstalls(path)
	var ve *discover.RecordVersionError
	switch {
	case errors.As(err, &ve):
		return nil, &recordError{Where: path, Err: fmt.Errorf("version %d is not one adopt reads (1 or 2)", ve.Version)}
	case err != nil:
		return nil, recordFault(path, err)
	case len(rec.Problems) > 0:
		return nil, &recordError{Where: path, Err: rec.Problems[0]}
	}
	out := rec.Installs
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Scope < out[j].Scope
	})
	return out, nil
}

// claudeMarketplace is one marketplace in known_marketplaces.json.
type claudeMarketplace struct {
	Source struct {
		Source string `json:"source"` // github, git, directory, url
		Repo   string `json:"repo"`
		URL    string `json:"url"`
		Path   string `json:"path"`
		Ref    string `json:"ref"`
	} `json:"source"`
	InstallLocation string `json:"installLocation"`
}

// readClaudeMarketplaceRecords reads known_marketplaces.json: nil when it
// is absent.
func readClaudeMarketplaceRecords(path string) (map[string]claudeMarketplace, error) {
	var rec map[string]claudeMarketplace
	if ok, err := readJSONRecord(path, &rec); !ok {
		return nil, err
	}
	return rec, nil
}

// pluginSource is the store source of plugin in marketplace m: the
// marketplace's repository with the plugin picked ("SOURCE#plugin").
func (m claudeMarketplace) pluginSource(ctx context.Context, plugin string) (plugins.Source, error) {
	var loc string
	switch m.Source.Source {
	case "github":
		if m.Source.Repo == "" {
			return plugins.Source{}, errors.New(`a github source without "repo"`)
		}
		loc = plugins.GitHubURL(m.Source.Repo)
	case "git":
		loc = m.Source.URL
	case "directory":
		loc = m.Source.Path
		if _, err := os.Stat(loc); err != nil {
			return plugins.Source{}, fmt.Errorf("directory source %s: %w", loc, err)
		}
	case "url":
		return plugins.Source{}, fmt.Errorf("a marketplace.json served over HTTP (%s) is not a git repository: add the plugin's repository with 'skillstore plugin add'", m.Source.URL)
	default:
		return plugins.Source{}, fmt.Errorf("unknown marketplace source kind %q", m.Source.Source)
	}
	if loc == "" {
		return plugins.Source{}, fmt.Errorf("a %s source without a location", m.Source.Source)
	}
	return plugins.ParseSourceContext(ctx, loc+"#"+plugin, m.Source.Ref)
}

// claudeFile is one of Claude Code's plugin records in the home.
func claudeFile(home, name string) string {
	return filepath.Join(home, filepath.Dir(filepath.FromSlash(discover.ClaudePluginsFile)), name)
}
