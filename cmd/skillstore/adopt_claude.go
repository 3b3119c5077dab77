package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/store/plugins"

	"github.com/skillstore/skillstore/internal/folderscan"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// Taking Claude Code's plugins over: installed_plugins.json says which
// plugin of which marketplace is installed where, at which upstream
// commit; known_marketplaces.json says where each marketplace comes from.
// Each installed plugin's skills become that plugin's skills in the store,
// on the commit Claude Code installed, with what differs in the installed
// folder kept as a local edit. Claude Code's own folders are only read.

// claudeInstall is one plugin install Claude Code recorded.
type claudeInstall struct {
	Key         string `json:"key"` // "plugin@marketplace"
	Plugin      string `json:"plugin"`
	Marketplace string `json:"marketplace"`
	InstallPath string `json:"install_path"`
	Version     string `json:"version,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Scope       string `json:"scope,omitempty"`
	ProjectPath string `json:"project_path,omitempty"`
}

// claudeInstallRecord is one install in installed_plugins.json: version 1
// keeps one object per plugin, version 2 a list of them (one per scope).
type claudeInstallRecord struct {
	Scope        string `json:"scope"`
	ProjectPath  string `json:"projectPath"`
	InstallPath  string `json:"installPath"`
	Version      string `json:"version"`
	GitCommitSha string `json:"gitCommitSha"`
}

// knownClaudeInstallVersions are the installed_plugins.json versions read.
var knownClaudeInstallVersions = map[int]bool{1: true, 2: true}

// readClaudeInstalls reads installed_plugins.json: nil when it is absent.
func readClaudeInstalls(path string) ([]claudeInstall, error) {
	data, err := readRecordFile(path)
	if data == nil || err != nil {
		return nil, err
	}
	var rec struct {
		Version int                        `json:"version"`
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, jsonFileError(path, data, err)
	}
	if !knownClaudeInstallVersions[rec.Version] {
		return nil, &lockFileError{Where: path, Msg: fmt.Sprintf("version %d is not one adopt reads (1 or 2)", rec.Version)}
	}
	var out []claudeInstall
	for key, raw := range rec.Plugins {
		plugin, market, ok := strings.Cut(key, "@")
		if !ok || plugin == "" || market == "" {
			return nil, &lockFileError{Where: path, Msg: fmt.Sprintf("plugin key %q is not plugin@marketplace", key)}
		}
		var list []claudeInstallRecord
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			err = json.Unmarshal(raw, &list)
		} else {
			var one claudeInstallRecord
			err = json.Unmarshal(raw, &one)
			list = []claudeInstallRecord{one}
		}
		if err != nil {
			return nil, &lockFileError{Where: path, Msg: fmt.Sprintf("plugin %s: %v", key, err)}
		}
		for _, r := range list {
			if r.Scope == "" {
				r.Scope = "user"
			}
			out = append(out, claudeInstall{Key: key, Plugin: plugin, Marketplace: market, InstallPath: r.InstallPath,
				Version: r.Version, Commit: r.GitCommitSha, Scope: r.Scope, ProjectPath: r.ProjectPath})
		}
	}
	sort.Slice(out, func(i, j int) bool {
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
	data, err := readRecordFile(path)
	if data == nil || err != nil {
		return nil, err
	}
	var rec map[string]claudeMarketplace
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, jsonFileError(path, data, err)
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

// claudePluginSkills turns Claude Code's installed plugins into skills to
// adopt: each skill folder of each install in scope, with the plugin's
// source and the install commit as its base hint. Installs that cannot be
// taken over are returned as skips, with why.
func claudePluginSkills(ctx context.Context, home, project string) (entries []*adoptEntry, todo []plugins.InstalledSkill, labels []string, skips []adoptSkip) {
	dir := filepath.Join(home, ".claude", "plugins")
	installsFile := filepath.Join(dir, "installed_plugins.json")
	installs, err := readClaudeInstalls(installsFile)
	if err != nil {
		return nil, nil, nil, []adoptSkip{lockSkip(installsFile, err)}
	}
	if len(installs) == 0 {
		return nil, nil, nil, nil
	}
	marketsFile := filepath.Join(dir, "known_marketplaces.json")
	markets, err := readClaudeMarketplaceRecords(marketsFile)
	if err != nil {
		skips = append(skips, lockSkip(marketsFile, err))
	}
	for _, in := range installs {
		where := fmt.Sprintf("%s (Claude Code plugin %s)", installsFile, in.Key)
		if in.Scope != "user" && (project == "" || filepath.Clean(in.ProjectPath) != project) {
			skips = append(skips, adoptSkip{Path: where, Reason: fmt.Sprintf("installed for project %s (%s scope): adopt it with --project", in.ProjectPath, in.Scope), NotSkill: true})
			continue
		}
		m, ok := markets[in.Marketplace]
		if !ok {
			skips = append(skips, adoptSkip{Path: where, Reason: fmt.Sprintf("marketplace %q is not in %s", in.Marketplace, marketsFile)})
			continue
		}
		src, err := m.pluginSource(ctx, in.Plugin)
		if err != nil {
			skips = append(skips, adoptSkip{Path: where, Reason: fmt.Sprintf("marketplace %s: %v", in.Marketplace, err)})
			continue
		}
		skills, err := installedSkills(in.InstallPath, home)
		if err != nil {
			skips = append(skips, adoptSkip{Path: where, Reason: err.Error()})
			continue
		}
		hint, _ := store.ParseHash(in.Commit)
		for _, sk := range skills {
			entries = append(entries, &adoptEntry{Name: sk.Name, Path: sk.Path, Dir: sk.Path, Scope: in.Scope, ClaudePlugin: in.Key})
			todo = append(todo, plugins.InstalledSkill{Dir: sk.Path, Upstream: src, Hint: hint})
			labels = append(labels, fmt.Sprintf("%s (Claude Code plugin %s)", src, in.Key))
		}
	}
	return entries, todo, labels, skips
}

// installedSkills lists the skill folders of an installed plugin (its
// manifest's layout), absolute; the install must be inside the home.
func installedSkills(installPath, home string) ([]pluginfmt.SkillDir, error) {
	if installPath == "" {
		return nil, errors.New("no installPath recorded")
	}
	if !target.Inside(installPath, home) {
		return nil, fmt.Errorf("install path %s is outside %s: not read", installPath, home)
	}
	root, err := os.OpenRoot(installPath)
	if err != nil {
		return nil, fmt.Errorf("install path: %w", err)
	}
	defer root.Close()
	// Through folderscan's RootFS: a manifest there is read only when it
	// is a regular file of bounded size.
	layout, err := pluginfmt.Read(folderscan.NewRootFS(root), pluginfmt.Options{RootName: filepath.Base(installPath)})
	if err != nil {
		return nil, fmt.Errorf("install path %s: %w", installPath, err)
	}
	var out []pluginfmt.SkillDir
	for _, p := range layout.Plugins {
		for _, sk := range p.Skills {
			out = append(out, pluginfmt.SkillDir{Name: sk.Name, Path: filepath.Join(installPath, filepath.FromSlash(sk.Path))})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("install path %s holds no skills (only commands, agents, hooks or servers): nothing to take over yet", installPath)
	}
	return out, nil
}

// lockSkip is the skip entry of a record file that cannot be read.
func lockSkip(path string, err error) adoptSkip {
	var lerr *lockFileError
	if errors.As(err, &lerr) {
		return adoptSkip{Path: lerr.Where, Reason: lerr.Msg}
	}
	return adoptSkip{Path: path, Reason: err.Error()}
}
