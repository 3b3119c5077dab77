package plugins

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// Two sources name the same repository however they were typed: the
// GitHub shorthand, an https:// or git@host: URL, with or without ".git"
// or a trailing slash, a plugin picked with "#plugin", a folder inside it,
// another ref. Adopt reuses a plugin "from the same repository" by this
// rule, never by comparing Source values, which differ in all of these.

// SameRepository reports whether a and b read the same repository (or,
// for folder sources, the same folder).
func SameRepository(a, b Source) bool {
	return a.Kind == b.Kind && repoKey(a) == repoKey(b)
}

// repoKey is a source's repository in one spelling: "HOST/OWNER/REPO"
// for a remote (GitHub's owner and name lower-cased, as GitHub ignores
// their case), the clean path for one on this machine.
func repoKey(src Source) string {
	if src.Kind == SourceFolder {
		return "folder:" + filepath.Clean(src.URL)
	}
	if ownerRepo, ok := gitHubRepo(src.URL); ok {
		return "github.com/" + strings.ToLower(ownerRepo)
	}
	host, repoPath, ok := remoteParts(src.URL)
	if !ok {
		return "file:" + strings.TrimRight(localPath(src.URL), string(filepath.Separator))
	}
	return strings.ToLower(host) + "/" + repoPath
}

// gitHubRepo is "OWNER/REPO" when url is a GitHub repository: under
// https://github.com, or under the base $SKILLSTORE_GITHUB_URL sets (so
// that tests and mirrors see GitHub's rules too).
func gitHubRepo(url string) (string, bool) {
	bases := []string{gitHubBase, "http://github.com", "https://www.github.com", "ssh://git@github.com", "git@github.com:"}
	if env := os.Getenv(GitHubURLEnv); env != "" {
		bases = append(bases, strings.TrimRight(env, "/"))
	}
	for _, b := range bases {
		rest, ok := strings.CutPrefix(url, b)
		if !ok || (rest != "" && !strings.HasSuffix(b, ":") && rest[0] != '/') {
			continue
		}
		rest = strings.TrimSuffix(strings.Trim(rest, "/"), ".git")
		if owner, repo, ok := strings.Cut(rest, "/"); ok && owner != "" && repo != "" && !strings.Contains(repo, "/") {
			return rest, true
		}
	}
	return "", false
}

// remoteParts splits a remote git URL (a scheme other than file, or
// user@host:path) into its host and repository path without ".git" or
// slashes around it; ok is false for a repository on this machine.
func remoteParts(url string) (host, repoPath string, ok bool) {
	ep, err := transport.NewEndpoint(url)
	if err != nil || ep.Protocol == "file" || ep.Host == "" {
		return "", "", false
	}
	return ep.Host, strings.TrimSuffix(strings.Trim(ep.Path, "/"), ".git"), true
}

// derivedPluginID is the id of a plugin whose source gives it no name (a
// plain skills/ tree, a flat or single-skill repository): for a remote
// repository OWNER/REPO, "OWNER-REPO" (so that acme/skills is
// "acme-skills", not "skills", and two owners' "skills" repositories do
// not collide), or REPO alone when it is OWNER or starts with "OWNER-";
// for a repository or folder on this machine, its own name. A folder
// picked inside the source does not count: "skills" or "src" would say
// less than the repository. The result may still be no valid name: the
// caller checks it and asks for --id.
func derivedPluginID(src Source) string {
	local := Source{URL: src.URL}
	if src.Kind == SourceFolder {
		return sourceBaseName(local)
	}
	if f, ok := fetchers[src.Kind]; ok {
		if name := f.name(src); name != "" {
			return name
		}
	}
	repoPath, ok := gitHubRepo(src.URL)
	if !ok {
		if _, repoPath, ok = remoteParts(src.URL); !ok || repoPath == "" {
			return sourceBaseName(local)
		}
	}
	repo := strings.ToLower(path.Base(repoPath))
	owner := strings.ToLower(path.Base(path.Dir(repoPath)))
	if owner == "." || owner == "/" || repo == owner || strings.HasPrefix(repo, owner+"-") {
		return idSafe(repo)
	}
	return idSafe(owner + "-" + repo)
}

// idSafe turns s into a plugin id's characters: what a name may not hold
// becomes '-', runs of '-' one, and none at either end.
func idSafe(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		if !ok {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteRune(r)
		dash = false
	}
	return strings.Trim(b.String(), "-._")
}
