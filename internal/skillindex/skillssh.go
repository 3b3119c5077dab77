package skillindex

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// SkillsShURL is skills.sh's address.
const SkillsShURL = "https://skills.sh"

// SkillsSh is the skills.sh index.
type SkillsSh struct {
	// BaseURL replaces SkillsShURL (a mirror, a test server).
	BaseURL string
	Client  *http.Client
}

// Name is "skills.sh".
func (SkillsSh) Name() string { return "skills.sh" }

func (s SkillsSh) base() string {
	if s.BaseURL != "" {
		return strings.TrimRight(s.BaseURL, "/")
	}
	return SkillsShURL
}

// Search asks skills.sh's search API; the results are sorted by installs,
// most first, as skills.sh's own client shows them.
func (s SkillsSh) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	var answer struct {
		Skills []struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			Source   string `json:"source"`
			Installs *int   `json:"installs"`
		} `json:"skills"`
	}
	u := s.base() + "/api/search?q=" + url.QueryEscape(query) + "&limit=" + strconv.Itoa(limit)
	if err := getJSON(ctx, s.Client, u, nil, &answer); err != nil {
		return nil, err
	}
	var out []Result
	for _, sk := range answer.Skills {
		if sk.Name == "" {
			continue
		}
		r := Result{Index: s.Name(), Name: sk.Name, Source: sk.Source, Installs: sk.Installs}
		if sk.ID != "" {
			r.URL = s.base() + "/" + strings.TrimLeft(sk.ID, "/")
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b Result) int { return cmp.Compare(count(b.Installs), count(a.Installs)) })
	return out[:min(limit, len(out))], nil
}

func count(n *int) int {
	if n == nil {
		return -1
	}
	return *n
}
