// Package skillindex asks the public indexes people search for skills:
// skills.sh (what 'npx skills find' asks) and GitHub's code search for
// SKILL.md files (what 'gh skill search' asks). Each index is a small
// client behind [Index]; every request runs under the caller's context,
// whose deadline bounds it, and reads at most [MaxResponse] bytes.
//
// skills.sh answers GET {base}/api/search?q=QUERY&limit=N with
// {"skills": [{"id", "name", "source", "installs"}]}, where source is the
// GitHub owner/repo and id the skill's page ({base}/{id}). GitHub answers
// GET {api}/search/code?q=filename:SKILL.md+QUERY&per_page=N with
// {"total_count", "incomplete_results", "items": [{"name", "path", "sha",
// "html_url", "repository": {"full_name"}}]}, and needs a token; the
// stars come from GET {api}/repos/{owner}/{repo} ({"stargazers_count"}).
package skillindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// MaxResponse bounds the body of one answer.
const MaxResponse = 4 << 20

// Result is one skill an index found.
type Result struct {
	// Index names the index that found it ("skills.sh", "github").
	Index string `json:"index"`
	// Name is the skill's name; Source the GitHub owner/repo holding it.
	Name   string `json:"name"`
	Source string `json:"source"`
	// Path is the SKILL.md's path in the repository, when the index gives
	// it.
	Path string `json:"path,omitempty"`
	// Installs (skills.sh) and Stars (the repository's, GitHub) are nil
	// when the index does not give them.
	Installs *int `json:"installs,omitempty"`
	Stars    *int `json:"stars,omitempty"`
	// URL is the skill's page.
	URL string `json:"url,omitempty"`
}

// Index is one public index.
type Index interface {
	// Name is how results and errors name the index.
	Name() string
	// Search returns at most limit skills matching query, best first.
	Search(ctx context.Context, query string, limit int) ([]Result, error)
}

// ErrNoToken is returned by GitHub's search when it has no token: code
// search answers only authenticated requests.
var ErrNoToken = errors.New("GitHub code search needs a token: set GH_TOKEN or GITHUB_TOKEN (e.g. GH_TOKEN=$(gh auth token))")

// getJSON fetches u into v with the given headers: an answer other than
// 200 is an error with its status and the service's message, and a failed
// connection one line saying which host could not be reached.
func getJSON(ctx context.Context, client *http.Client, u string, header http.Header, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", "skillstore")
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return netError(ctx, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
	if err != nil {
		return netError(ctx, req.URL, err)
	}
	if len(body) > MaxResponse {
		return fmt.Errorf("%s: the answer is larger than %d bytes: not read", req.URL.Redacted(), MaxResponse)
	}
	if resp.StatusCode != http.StatusOK {
		var msg struct {
			Message string `json:"message"`
		}
		text := resp.Status
		if json.Unmarshal(body, &msg) == nil && msg.Message != "" {
			text += ": " + oneLine(msg.Message)
		}
		return &StatusError{URL: req.URL.Redacted(), Code: resp.StatusCode, Text: text}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: the answer is not the JSON expected: %w", req.URL.Redacted(), err)
	}
	return nil
}

// StatusError is an answer other than 200 OK.
type StatusError struct {
	URL  string
	Code int
	Text string
}

func (e *StatusError) Error() string { return fmt.Sprintf("%s answered %s", e.URL, e.Text) }

// netError says in one line that the host of u could not be reached, and
// why: the deadline passed, or the connection failed.
func netError(ctx context.Context, u *url.URL, err error) error {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s did not answer in time: %w", u.Host, context.DeadlineExceeded)
		}
		return ctx.Err()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	return fmt.Errorf("%s unreachable: %w", u.Host, err)
}

// oneLine is s on one line, at most 200 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
