package ui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/candidates"
	"github.com/skillstore/skillstore/cmd/skillstore/app/serve"
)

// The pages. Each handler asks the CLI's workflows for its data
// (produce), shapes it for the eye, and renders its template.

func (s *Server) candidates(w http.ResponseWriter, r *http.Request) {
	var cands []candidateJSON
	err := s.produce(r.Context(), &cands, func(g app.Global, out app.Output) error {
		return candidates.List(r.Context(), candidates.Options{Global: g, Output: out})
	})
	if err != nil {
		s.fail(w, r, "candidates", http.StatusInternalServerError, err)
		return
	}
	s.render(w, r, "candidates", page{Title: "Candidates", Nav: "candidates",
		Commands: []string{"skillstore candidates list --json"}, Data: cands})
}

// sideView is one path of a candidate, in each side of its merge.
type sideView struct {
	Path                     string
	Base, Ours, Theirs, Head []line
	// Has says which sides hold the path.
	HasBase, HasOurs, HasTheirs, HasHead bool
	Binary, Conflicted                   bool
}

type candidateView struct {
	candidateJSON
	Sides   []sideView
	Accept  candidateDiffJSON
	Changes []changeView
}

type changeView struct {
	fileChange
	Rows []row
}

func changeViews(changes []fileChange) []changeView {
	var out []changeView
	for _, c := range changes {
		out = append(out, changeView{fileChange: c, Rows: patchRows(c.Patch)})
	}
	return out
}

func (s *Server) candidate(w http.ResponseWriter, r *http.Request) {
	skill := r.URL.Query().Get("skill")
	var v candidateView
	err := s.produce(r.Context(), &v.candidateJSON, func(g app.Global, out app.Output) error {
		return candidates.Show(r.Context(), candidates.Options{Global: g, Output: out, Skill: skill, WithFiles: true})
	})
	if err == nil {
		err = s.produce(r.Context(), &v.Accept, func(g app.Global, out app.Output) error {
			return candidates.Diff(r.Context(), candidates.Options{Global: g, Output: out, Skill: skill})
		})
	}
	if err != nil {
		s.fail(w, r, "candidates", http.StatusNotFound, err)
		return
	}
	v.Sides = sides(v.candidateJSON)
	v.Changes = changeViews(v.Accept.Changes)
	s.render(w, r, "candidate", page{Title: "Candidate " + v.Skill, Nav: "candidates", Data: v,
		Commands: []string{"skillstore candidates show --json --files " + v.Skill, "skillstore candidates diff --json " + v.Skill}})
}

// sides lays every path of the candidate out in its three versions, each
// marked against the base, and the head with its conflict hunks.
func sides(c candidateJSON) []sideView {
	if c.Files == nil {
		return nil
	}
	byPath := func(files []sideFile) map[string]sideFile {
		m := map[string]sideFile{}
		for _, f := range files {
			m[f.Path] = f
		}
		return m
	}
	base, ours, theirs, head := byPath(c.Files.Base), byPath(c.Files.Ours), byPath(c.Files.Theirs), byPath(c.Files.Head)
	var paths []string
	for _, m := range []map[string]sideFile{base, ours, theirs, head} {
		for p := range m {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	var out []sideView
	for _, p := range paths {
		b, hb := base[p]
		o, ho := ours[p]
		t, ht := theirs[p]
		h, hh := head[p]
		v := sideView{Path: p, HasBase: hb, HasOurs: ho, HasTheirs: ht, HasHead: hh,
			Binary: b.Binary || o.Binary || t.Binary || h.Binary, Conflicted: conflicted(c.Conflicts, p)}
		if !v.Binary {
			v.Base = againstBase(b.Text, b.Text)
			v.Ours = againstBase(b.Text, o.Text)
			v.Theirs = againstBase(b.Text, t.Text)
			v.Head = conflictLines(h.Text)
		}
		out = append(out, v)
	}
	return out
}

// conflicted reports whether the candidate's conflicts (as its trailer
// records them: "SKILL.md (content)") name path.
func conflicted(conflicts []string, path string) bool {
	for _, c := range conflicts {
		if c == path || strings.HasPrefix(c, path+" (") {
			return true
		}
	}
	return false
}

// act runs accept, reject or edit as the candidates commands do (their
// own code: the exclusive lock as they take it), then shows the outcome.
func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	if s.opts.ReadOnly {
		http.Error(w, "skillstore ui: read-only: actions are refused (started with --read-only)", http.StatusForbidden)
		return
	}
	skill, reason := r.PostFormValue("skill"), r.PostFormValue("reason")
	ctx := r.Context()
	var run func(context.Context, candidates.Options) error
	var verb string
	switch r.PathValue("action") {
	case "accept":
		run, verb = candidates.Accept, "accepted"
	case "reject":
		run, verb = candidates.Reject, "rejected"
	case "edit":
		s.edit(w, r, skill, reason)
		return
	default:
		http.NotFound(w, r)
		return
	}
	export := r.PostFormValue("export") != ""
	var report map[string]json.RawMessage
	err := s.produce(ctx, &report, func(g app.Global, out app.Output) error {
		return run(ctx, candidates.Options{Global: g, Output: out, Skill: skill, Reason: reason, Export: export})
	})
	// accept --export --json prints {"version": ..., "export": [...]};
	// accept and reject the version alone.
	var v versionJSON
	exports := ""
	whole, _ := json.Marshal(report)
	if inner, ok := report["export"]; ok {
		whole = report["version"]
		var exported []struct {
			Target string `json:"target"`
		}
		_ = json.Unmarshal(inner, &exported)
		exports = "; exported into " + app.Plural(len(exported), "target")
	}
	_ = json.Unmarshal(whole, &v)
	if v.Skill == "" {
		redirect(w, r, "/candidate?skill="+url.QueryEscape(skill), "", errorText(err))
		return
	}
	redirect(w, r, "/skill?name="+url.QueryEscape(v.Skill), verb+" candidate "+v.Skill+": published "+v.Skill+"@v"+itoa(v.Version)+exports, errorText(err))
}

// edit opens the candidate in $VISUAL or $EDITOR as 'candidates edit'
// does, on the terminal skillstore ui runs in (its streams are the
// server's: a terminal editor needs them), and waits for the editor. A
// browser that gives up waiting does not end the editor.
func (s *Server) edit(w http.ResponseWriter, r *http.Request, skill, reason string) {
	ctx := context.WithoutCancel(r.Context())
	err := candidates.Edit(ctx, candidates.Options{Global: s.opts.Global, Skill: skill, Reason: reason})
	back := "/candidate?skill=" + url.QueryEscape(skill)
	if err != nil {
		redirect(w, r, back, "", errorText(err))
		return
	}
	var c candidateJSON
	if err := s.produce(ctx, &c, func(g app.Global, out app.Output) error {
		return candidates.Show(ctx, candidates.Options{Global: g, Output: out, Skill: skill})
	}); err != nil {
		redirect(w, r, back, "", errorText(err))
		return
	}
	flash := "edited candidate " + c.Skill + ": now at " + c.Head[:min(12, len(c.Head))] + ", " + c.State
	redirect(w, r, "/candidate?skill="+url.QueryEscape(c.Skill), flash, "")
}

// redirect sends the browser to a page after an action (POST, then GET),
// with the outcome to show there.
func redirect(w http.ResponseWriter, r *http.Request, to, flash, failed string) {
	q := url.Values{}
	if flash != "" {
		q.Set("flash", flash)
	}
	if failed != "" {
		q.Set("error", failed)
	}
	sep := "?"
	if strings.Contains(to, "?") {
		sep = "&"
	}
	if len(q) > 0 {
		to += sep + q.Encode()
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

type skillsView struct {
	Query  string
	Skills []skillJSON
	Note   string
}

func (s *Server) skills(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	v := skillsView{Query: q}
	var err error
	cmd := "skillstore list --json"
	if q == "" {
		err = s.produce(r.Context(), &v.Skills, func(g app.Global, out app.Output) error {
			return app.List(r.Context(), app.ListOptions{Global: g, Output: out})
		})
	} else {
		cmd = "skillstore search --json " + q
		err = s.produce(r.Context(), &v.Skills, func(g app.Global, out app.Output) error {
			return app.Search(r.Context(), app.SearchOptions{Global: g, Output: out, Term: q})
		})
		if err != nil && len(v.Skills) == 0 {
			v.Note, err = errorText(err), nil // no match: search's own words
		}
	}
	if err != nil {
		s.fail(w, r, "skills", http.StatusInternalServerError, err)
		return
	}
	s.render(w, r, "skills", page{Title: "Skills", Nav: "skills", Commands: []string{cmd}, Data: v})
}

type skillView struct {
	Show     showJSON
	Versions []versionJSON
	File     string
	Lines    []line
	Binary   bool
}

func (s *Server) skill(w http.ResponseWriter, r *http.Request) {
	name, file := r.URL.Query().Get("name"), r.URL.Query().Get("file")
	spec := name
	if ver := r.URL.Query().Get("version"); ver != "" {
		spec = name + "@" + ver
	}
	if file == "" {
		file = "SKILL.md"
	}
	v := skillView{File: file}
	ctx := r.Context()
	err := s.produce(ctx, &v.Show, func(g app.Global, out app.Output) error {
		return app.Show(ctx, app.SkillOptions{Global: g, Output: out, Name: spec})
	})
	if err == nil {
		err = s.produce(ctx, &v.Versions, func(g app.Global, out app.Output) error {
			return app.Log(ctx, app.SkillOptions{Global: g, Output: out, Name: name})
		})
	}
	var data strings.Builder
	if err == nil {
		g := s.opts.Global
		g.Stdout = &data
		err = app.Cat(ctx, app.CatOptions{SkillOptions: app.SkillOptions{Global: g, Name: spec}, File: file})
	}
	if err != nil {
		s.fail(w, r, "skills", http.StatusNotFound, err)
		return
	}
	if isBinary(data.String()) {
		v.Binary = true
	} else {
		for i, l := range splitLines(data.String()) {
			v.Lines = append(v.Lines, line{No: i + 1, Segs: plain(l)})
		}
	}
	qualified := v.Show.Skill
	s.render(w, r, "skill", page{Title: qualified, Nav: "skills", Data: v, Commands: []string{
		"skillstore show --json " + qualified + "@v" + itoa(v.Show.Version), "skillstore log --json " + qualified,
		"skillstore cat " + qualified + "@v" + itoa(v.Show.Version) + " " + file}})
}

func isBinary(s string) bool { return strings.IndexByte(s, 0) >= 0 }

type diffView struct {
	Name, A, B string
	Versions   []versionJSON
	Diff       diffJSON
	Changes    []changeView
}

func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := diffView{Name: q.Get("name"), A: q.Get("a"), B: q.Get("b")}
	ctx := r.Context()
	err := s.produce(ctx, &v.Versions, func(g app.Global, out app.Output) error {
		return app.Log(ctx, app.SkillOptions{Global: g, Output: out, Name: v.Name})
	})
	if err == nil && len(v.Versions) > 0 {
		if v.B == "" {
			v.B = "v" + itoa(v.Versions[0].Version)
		}
		if v.A == "" {
			v.A = "v" + itoa(max(1, v.Versions[0].Version-1))
		}
		err = s.produce(ctx, &v.Diff, func(g app.Global, out app.Output) error {
			return app.Diff(ctx, app.DiffOptions{SkillOptions: app.SkillOptions{Global: g, Output: out, Name: v.Name + "@" + v.A}, To: "@" + v.B})
		})
	}
	if err != nil {
		s.fail(w, r, "skills", http.StatusNotFound, err)
		return
	}
	v.Changes = changeViews(v.Diff.Changes)
	s.render(w, r, "diff", page{Title: "Diff " + v.Name, Nav: "skills", Data: v,
		Commands: []string{"skillstore diff --json " + v.Diff.From + " " + v.Diff.To}})
}

type targetView struct {
	targetJSON
	// Targ is the target's record (its Skills patterns: the name the
	// embedded field would have is taken by Status).
	Targ   targetJSON
	Status []statusJSON
	// Clean counts the skills as export left them; CleanHidden those of
	// them not listed (past maxCleanRows).
	Clean, CleanHidden int
	// Bar is the listing's length against the budget, for the SVG bar:
	// Used and Budget in pixels of Width.
	Used, Budget, Width int
	Over                bool
}

// maxCleanRows is how many unchanged skills a target's table lists.
const maxCleanRows = 100

func (s *Server) targets(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var targets []targetJSON
	var sts []statusJSON
	// The two reports are independent: each command reads the store
	// under its own shared lock, so they run side by side.
	var err, statusErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		err = s.produce(ctx, &targets, func(g app.Global, out app.Output) error {
			return app.ListTargets(ctx, app.TargetOptions{Global: g, Output: out})
		})
	})
	wg.Go(func() {
		// A target whose folders could not be read is shown with the rest.
		statusErr = s.produce(ctx, &sts, func(g app.Global, out app.Output) error {
			return app.Status(ctx, app.StatusOptions{Global: g, Output: out})
		})
	})
	wg.Wait()
	if err != nil {
		s.fail(w, r, "targets", http.StatusInternalServerError, err)
		return
	}
	var views []targetView
	for _, t := range targets {
		v := targetView{targetJSON: t, Targ: t, Width: 600}
		// Every skill that needs a look, then clean ones up to a page's
		// worth; status --json lists them all.
		var clean []statusJSON
		for _, st := range sts {
			switch {
			case st.Target != t.Name:
			case st.State == "clean" && !st.Outdated:
				clean = append(clean, st)
			default:
				v.Status = append(v.Status, st)
			}
		}
		v.Clean = len(clean)
		shown := clean[:min(len(clean), maxCleanRows)]
		v.Status = append(v.Status, shown...)
		v.CleanHidden = len(clean) - len(shown)
		if c := t.Context; c != nil {
			limit := c.Chars
			if c.Budget != nil && c.Budget.Chars > 0 {
				limit = max(limit, c.Budget.Chars)
				v.Budget = c.Budget.Chars * v.Width / limit
			}
			if limit > 0 {
				v.Used = c.Chars * v.Width / limit
			}
			v.Over = c.OverBy > 0
		}
		views = append(views, v)
	}
	p := page{Title: "Targets", Nav: "targets", Data: views, Commands: []string{"skillstore target list --json", "skillstore status --json"}}
	if statusErr != nil {
		p.Error = errorText(statusErr)
	}
	s.render(w, r, "targets", p)
}

type activityView struct {
	Syncs    []app.SyncRecord
	Loads    []loadJSON
	BySkill  chart
	ByClient chart
	Recent   []skillJSON
	Waiting  []candidateJSON
}

func (s *Server) activity(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var v activityView
	err := s.produce(ctx, &v.Loads, func(g app.Global, out app.Output) error {
		return serve.Loads(ctx, serve.LoadsOptions{Global: g, Output: out})
	})
	if err == nil {
		err = s.produce(ctx, &v.Syncs, func(g app.Global, out app.Output) error {
			return app.Syncs(ctx, app.SyncsOptions{Global: g, Output: out})
		})
	}
	if err == nil {
		err = s.produce(ctx, &v.Recent, func(g app.Global, out app.Output) error {
			return app.List(ctx, app.ListOptions{Global: g, Output: out})
		})
	}
	if err == nil {
		err = s.produce(ctx, &v.Waiting, func(g app.Global, out app.Output) error {
			return candidates.List(ctx, candidates.Options{Global: g, Output: out})
		})
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		s.fail(w, r, "activity", http.StatusInternalServerError, err)
		return
	}
	v.BySkill = loadsChart(v.Loads, func(l loadJSON) string { return l.Skill })
	v.ByClient = loadsChart(v.Loads, func(l loadJSON) string {
		if l.ClientVersion != "" {
			return l.Client + " " + l.ClientVersion
		}
		return l.Client
	})
	sort.SliceStable(v.Recent, func(i, j int) bool { return v.Recent[i].Time.After(v.Recent[j].Time) })
	v.Recent = v.Recent[:min(len(v.Recent), 20)]
	v.Syncs = v.Syncs[:min(len(v.Syncs), 20)]
	if len(v.Loads) > 50 {
		v.Loads = v.Loads[len(v.Loads)-50:]
	}
	slices.Reverse(v.Loads)
	s.render(w, r, "activity", page{Title: "Activity", Nav: "activity", Data: v,
		Commands: []string{"skillstore log --syncs --json", "skillstore log --loads --json", "skillstore list --json", "skillstore candidates list --json"}})
}
