package skillindex

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// repoName is GitHub's owner/repo, the only thing put into a request's
// path. Compiled at first use: its counted repetitions make a program of
// thousands of instructions, a millisecond of every command's start-up
// when built at init.
var repoName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$`)
})

// IsRepoName reports whether s is a GitHub owner/repo.
func IsRepoName(s string) bool { return repoName().MatchString(s) }

// GitHubAPIURL is GitHub's REST API.
const GitHubAPIURL = "https://api.github.com"

// GitHubCode is GitHub's code search for SKILL.md files.
type GitHubCode struct {
	// APIURL replaces GitHubAPIURL (GitHub Enterprise, a test server).
	APIURL string
	// Token authenticates the requests; code search refuses none.
	Token  string
	Client *http.Client
}

// Name is "github".
func (GitHubCode) Name() string { return "github" }

func (g GitHubCode) api() string {
	if g.APIURL != "" {
		return strings.TrimRight(g.APIURL, "/")
	}
	return GitHubAPIURL
}

func (g GitHubCode) header() http.Header {
	return http.Header{
		"Accept":               {"application/vnd.github+json"},
		"Authorization":        {"Bearer " + g.Token},
		"X-Github-Api-Version": {"2022-11-28"},
	}
}

// Search finds SKILL.md files matching query (filename:SKILL.md QUERY),
// one result per file in GitHub's order of relevance, named after the
// file's folder, with the stars of each repository.
func (g GitHubCode) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	if g.Token == "" {
		return nil, ErrNoToken
	}
	var answer struct {
		Items []struct {
			Path       string `json:"path"`
			HTMLURL    string `json:"html_url"`
			Repository struct {
				FullName string `json:"full_name"`
			} `json:"repository"`
		} `json:"items"`
	}
	q := url.QueryEscape("filename:SKILL.md " + query)
	u := g.api() + "/search/code?q=" + q + "&per_page=" + strconv.Itoa(min(100, max(limit, 1)))
	if err := getJSON(ctx, g.Client, u, g.header(), &answer); err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusUnauthorized {
			return nil, fmt.Errorf("%w (the token in GH_TOKEN or GITHUB_TOKEN was refused)", err)
		}
		return nil, err
	}
	var out []Result
	seen := map[string]bool{}
	for _, it := range answer.Items {
		repo := it.Repository.FullName
		if repo == "" || path.Base(it.Path) != "SKILL.md" || seen[repo+"/"+it.Path] {
			continue
		}
		seen[repo+"/"+it.Path] = true
		name := path.Base(path.Dir(it.Path))
		if name == "." {
			name = path.Base(repo)
		}
		out = append(out, Result{Index: g.Name(), Name: name, Source: repo, Path: it.Path, URL: it.HTMLURL})
		if len(out) == limit {
			break
		}
	}
	g.addStars(ctx, out)
	return out, nil
}

// addStars sets each result's Stars from its repository, one request per
// repository, at most four at once; a repository that does not answer
// leaves its results without.
func (g GitHubCode) addStars(ctx context.Context, results []Result) {
	var repos []string
	for _, r := range results {
		if IsRepoName(r.Source) && !slices.Contains(repos, r.Source) {
			repos = append(repos, r.Source)
		}
	}
	stars := make([]*int, len(repos))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, name := range repos {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			var repo struct {
				Stars *int `json:"stargazers_count"`
			}
			if err := getJSON(ctx, g.Client, g.api()+"/repos/"+name, g.header(), &repo); err == nil {
				stars[i] = repo.Stars
			}
		})
	}
	wg.Wait()
	for i := range results {
		if k := slices.Index(repos, results[i].Source); k >= 0 {
			results[i].Stars = stars[k]
		}
	}
}
