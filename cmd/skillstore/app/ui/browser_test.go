package ui

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
	"github.com/skillstore/skillstore/cmd/skillstore/app/candidates"
)

// The browser tests run the page in a real headless Chromium (Debian's
// chromium package), driven over the DevTools protocol by chromedp.
// SKILLSTORE_CHROMIUM names the binary; SKILLSTORE_UI_SHOTS the folder
// the screenshots go to (default: screenshots/ here, not committed).

func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SKILLSTORE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser test skipped: no chromium on PATH (install it with: apt-get install -y chromium; or set SKILLSTORE_CHROMIUM)")
	return ""
}

// newBrowser starts Chromium headless with a fresh profile and nothing
// that reaches the network by itself.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancel := chromedp.NewContext(actx)
	// The first action starts the browser, which lives as long as its
	// context: no timeout on that one, one on every later action.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	// Generous: under the race detector on a busy machine an accept
	// that exports takes seconds; a hang still ends the test.
	ctx, cancelTimeout := context.WithTimeout(bctx, 4*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// serveFixture runs ui.Serve on the fixture's store, as the command
// does, until the test ends; it returns the printed URL.
func serveFixture(t *testing.T, g app.Global, readOnly bool) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Options{Global: g, ReadOnly: readOnly, Poll: 500 * time.Millisecond, Listening: func(u string) { got <- u }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case u := <-got:
		return u
	case err := <-done:
		t.Fatalf("ui: %v", err)
	}
	return ""
}

func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SKILLSTORE_UI_SHOTS")
	if dir == "" {
		dir = "screenshots"
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// do runs the actions as one step of at most a minute; a step that
// fails or hangs ends the test naming it, with a screenshot of the page
// as it was (failed-STEP.png).
func do(t *testing.T, ctx context.Context, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		shot(t, ctx, "failed-"+strings.ReplaceAll(step, " ", "-"))
		t.Fatalf("%s: %v", step, err)
	}
}

func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// TestBrowserReviewThreeWay reviews a three-way candidate in the
// browser end to end: the link with its token, the three versions side
// by side, accept; then the store and the target hold the accepted
// version. On the way it takes a screenshot of each page.
func TestBrowserReviewThreeWay(t *testing.T) {
	f := newFixture(t)
	ctx := newBrowser(t)
	link := serveFixture(t, f.g, false)
	base := strings.SplitN(link, "/?", 2)[0]

	do(t, ctx, "open link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#candidates")))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address after the exchange: %s", loc)
	}
	if got := textOf(t, ctx, "#candidates"); !strings.Contains(got, "notes:hello") || !strings.Contains(got, "three-way") {
		t.Fatalf("candidates list:\n%s", got)
	}
	shot(t, ctx, "candidates")

	do(t, ctx, "click the candidate", chromedp.Click(chromedp.CSS(`a[href^="/candidate?skill=notes"]`)),
		chromedp.WaitVisible(chromedp.CSS("#col-theirs")))
	for sel, want := range map[string]string{"#col-base": "Greet the user.", "#col-ours": "Greet the user warmly.", "#col-theirs": "End, and wave goodbye."} {
		if got := textOf(t, ctx, sel); !strings.Contains(got, want) {
			t.Errorf("%s does not show %q:\n%s", sel, want, got)
		}
	}
	if got := textOf(t, ctx, "#col-base"); strings.Contains(got, "warmly") || strings.Contains(got, "wave") {
		t.Errorf("the base shows a side's change:\n%s", got)
	}
	marked, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#col-ours span.ins, #col-theirs span.ins")].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(marked, "|") != "warmly|, and wave goodbye" && strings.Join(marked, "|") != " warmly|, and wave goodbye" {
		t.Errorf("word-level marks = %q, want the words each side added", marked)
	}
	shot(t, ctx, "candidate")

	// The conflicted one: accept is disabled, the merged result shows
	// its conflict hunk.
	do(t, ctx, "open the conflicted candidate", chromedp.Navigate(base+"/candidate?skill=notes:tidy"), chromedp.WaitVisible(chromedp.CSS("details.merged")))
	hunk, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("details.merged tr.c-ours, details.merged tr.c-theirs, details.merged tr.c-base")].map(e => e.className + " " + e.textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(hunk, "|") != "c-ours 8Put things away, biggest first.|c-base 10Put things away.|c-theirs 12Put things back where they belong." {
		t.Errorf("conflict hunk rows = %q", hunk)
	}
	disabled, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("accept").disabled`))
	if err != nil || !disabled {
		t.Errorf("accept of a conflicted candidate is not disabled (%v)", err)
	}
	do(t, ctx, "scroll to merged", chromedp.ScrollIntoView(chromedp.CSS("details.merged")))
	shot(t, ctx, "candidate-conflict")
	do(t, ctx, "open the clean candidate", chromedp.Navigate(base+"/candidate?skill=notes:hello"), chromedp.WaitVisible(chromedp.CSS("#col-theirs")))

	do(t, ctx, "accept", chromedp.SendKeys(chromedp.CSS(`input[name="reason"]`), "reviewed in the browser"),
		chromedp.Click(chromedp.CSS("#accept")), chromedp.WaitVisible(chromedp.CSS("#flash")))
	if got := textOf(t, ctx, "#flash"); !strings.Contains(got, "accepted candidate notes:hello") || !strings.Contains(got, "notes:hello@v3") {
		t.Errorf("after accept: %q", got)
	}
	var show showJSON
	srv, err := New(Options{Global: f.g})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.produce(context.Background(), &show, func(g app.Global, out app.Output) error {
		return app.Show(context.Background(), app.SkillOptions{Global: g, Output: out, Name: "notes:hello"})
	}); err != nil {
		t.Fatal(err)
	}
	if show.Version != 3 || show.Reason != "reviewed in the browser" || show.MergeMode != "three-way" {
		t.Errorf("published after accept: v%d, reason %q, mode %s", show.Version, show.Reason, show.MergeMode)
	}
	want := strings.Replace(strings.Replace(helloBase, "Greet the user.", "Greet the user warmly.", 1), "End.", "End, and wave goodbye.", 1)
	var cat strings.Builder
	g := f.g
	g.Stdout = &cat
	if err := app.Cat(context.Background(), app.CatOptions{SkillOptions: app.SkillOptions{Global: g, Name: "notes:hello"}}); err != nil {
		t.Fatal(err)
	}
	if cat.String() != want {
		t.Errorf("store's notes:hello:\n%s\nwant:\n%s", cat.String(), want)
	}
	if data, err := os.ReadFile(filepath.Join(f.target, "hello", "SKILL.md")); err != nil || string(data) != want {
		t.Errorf("target's hello/SKILL.md (%v):\n%s\nwant:\n%s", err, data, want)
	}
	shot(t, ctx, "skill")

	do(t, ctx, "open the diff of v1 and v3", chromedp.Navigate(base+"/diff?name=notes:hello&a=v1&b=v3"), chromedp.WaitVisible(chromedp.CSS("table.sbs")))
	shot(t, ctx, "diff")
	do(t, ctx, "open skills", chromedp.Navigate(base+"/skills"), chromedp.WaitVisible(chromedp.CSS("#skills")))
	shot(t, ctx, "skills")
	do(t, ctx, "open targets", chromedp.Navigate(base+"/targets"), chromedp.WaitVisible(chromedp.CSS("#target-claude")))
	if got := textOf(t, ctx, "#target-claude"); !strings.Contains(got, "Claude Code") || !strings.Contains(got, "notes:hello") {
		t.Errorf("targets page:\n%s", got)
	}
	shot(t, ctx, "targets")
	do(t, ctx, "open activity", chromedp.Navigate(base+"/activity"), chromedp.WaitVisible(chromedp.CSS(".chart")))
	if got := textOf(t, ctx, "#syncs"); !strings.Contains(got, "review") || !strings.Contains(got, "notes:hello: three-way") {
		t.Errorf("recent syncs:\n%s", got)
	}
	if got := textOf(t, ctx, "main"); !strings.Contains(got, "notes:tidy") || !strings.Contains(got, "codex 1.0") {
		t.Errorf("activity page:\n%s", got)
	}
	shot(t, ctx, "activity")
}

// TestBrowserHostileSkillIsText shows a SKILL.md holding <script> and an
// <img onerror>: they appear as text, and nothing of theirs runs.
func TestBrowserHostileSkillIsText(t *testing.T) {
	f := newFixture(t)
	ctx := newBrowser(t)
	link := serveFixture(t, f.g, true)
	base := strings.SplitN(link, "/?", 2)[0]
	do(t, ctx, "open link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#candidates")),
		chromedp.Navigate(base+"/skill?name=evil"), chromedp.WaitVisible(chromedp.CSS("#content")),
		chromedp.Sleep(300*time.Millisecond))
	pwned, err1 := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.pwned || ""`))
	title, err2 := chromedp.Run(ctx, chromedp.Title())
	scripts, err3 := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("script").length`))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if pwned != "" || strings.Contains(title, "pwned") || scripts != 1 {
		t.Errorf("the skill's markup ran: pwned=%q title=%q scripts=%d", pwned, title, scripts)
	}
	got := textOf(t, ctx, "#content")
	if !strings.Contains(got, "<script>document.body.dataset.pwned='yes'</script>") || !strings.Contains(got, `<img src=x onerror=`) {
		t.Errorf("the skill's text is not shown as text:\n%s", got)
	}
	if got := textOf(t, ctx, "p.desc"); !strings.Contains(got, "<script>document.title='pwned'</script>") {
		t.Errorf("the description is not shown as text: %q", got)
	}
	do(t, ctx, "open the clean candidate", chromedp.Navigate(base+"/candidate?skill=notes:hello"), chromedp.WaitVisible(chromedp.CSS("#col-base")))
	buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#accept, #reject, #edit").length`))
	if err != nil {
		t.Fatal(err)
	}
	if buttons != 0 {
		t.Errorf("read-only page shows %d action buttons", buttons)
	}
	// The session cookie, read from the browser: with it a POST still
	// needs the form's CSRF token, and read-only refuses the action.
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
	cookies := res.Cookies
	if err != nil || len(cookies) != 1 || !cookies[0].HTTPOnly || cookies[0].SameSite != network.CookieSameSiteStrict {
		t.Fatalf("session cookie: %v %+v", err, cookies)
	}
	post := func(form url.Values, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, base+"/candidate/accept", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: cookies[0].Name, Value: cookies[0].Value})
		if origin != "" {
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(url.Values{"skill": {"notes:hello"}}, ""); code != http.StatusForbidden {
		t.Errorf("POST without CSRF token: %d, want 403", code)
	}
	if code := post(url.Values{"skill": {"notes:hello"}, "csrf": {"x"}}, "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("cross-site POST: %d, want 403", code)
	}
}

// TestRequestsWithoutToken: no token and no session is 401, a used or
// wrong token 403, a Host other than the server's own 421; the token
// works once, and its session cookie then opens every page.
func TestRequestsWithoutToken(t *testing.T) {
	f := newFixture(t)
	link := serveFixture(t, f.g, false)
	base := strings.SplitN(link, "/?", 2)[0]
	get := func(c *http.Client, u string, host string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/candidates", "/skills", "/stamp", "/static/ui.js", "/candidate?skill=notes:hello"} {
		if resp := get(plain, base+p, ""); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %d, want 401", p, resp.StatusCode)
		}
	}
	if resp := get(plain, base+"/?token=0123", ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("wrong token: %d, want 403", resp.StatusCode)
	}
	if resp := get(plain, link, "evil.example:80"); resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("Host evil.example: %d, want 421", resp.StatusCode)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp := get(browser, link, "")
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the link: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
	if resp := get(plain, link, ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the link a second time: %d, want 403", resp.StatusCode)
	}
	// The redirect after the exchange stays on this server, whatever the path.
	g := newGuard()
	for _, p := range []string{"//evil.example/x", "/\\evil.example", "/a/../../b"} {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/?token="+g.token, nil)
		req.URL.Path = p
		rec := httptest.NewRecorder()
		tok := g.token
		g.exchange(rec, req, tok)
		if loc := rec.Header().Get("Location"); !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.Contains(loc, "\\") {
			t.Errorf("path %q redirects to %q", p, loc)
		}
		g.token = tok // spent: give it back for the next path
	}
	if resp := get(browser, base+"/targets", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("with the session: %d", resp.StatusCode)
	}
}

// TestBrowserFollowsTheStore: a page open in the browser reloads itself
// when the store changes under it (here a reject from the CLI's own
// workflow, as another terminal would run it).
func TestBrowserFollowsTheStore(t *testing.T) {
	f := newFixture(t)
	ctx := newBrowser(t)
	link := serveFixture(t, f.g, true)
	do(t, ctx, "open link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#candidates")))
	if got := textOf(t, ctx, "#candidates"); !strings.Contains(got, "notes:tidy") {
		t.Fatalf("candidates before:\n%s", got)
	}
	if err := candidates.Reject(context.Background(), candidates.Options{Global: f.g, Skill: "notes:tidy"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := textOf(t, ctx, "main")
		if !strings.Contains(got, "notes:tidy") && strings.Contains(got, "notes:hello") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page did not follow the reject within 30s:\n%s", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
