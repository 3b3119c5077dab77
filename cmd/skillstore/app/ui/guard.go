package ui

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
)

// cookieName holds the session, set from the one-time token.
const cookieName = "skillstore_ui"

// csp allows the page its own script and style files and nothing else:
// no inline script or style, no other origin, no frames, no plugins.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// guard is what every request passes before a page: the Host check, the
// token or session, and for a POST the CSRF token and the cross-origin
// check.
type guard struct {
	mu sync.Mutex
	// token is the one-time secret of the printed URL ("" once used).
	token string
	// session is the cookie's value; csrf the token every form carries.
	session, csrf string
	// hosts are the Host headers accepted (nil: any, --allow-remote).
	hosts map[string]bool
	cross *http.CrossOriginProtection
}

func randomHex() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return hex.EncodeToString(b)
}

func newGuard() *guard {
	g := &guard{token: randomHex(), session: randomHex(), cross: http.NewCrossOriginProtection()}
	mac := hmac.New(sha256.New, []byte(g.session))
	mac.Write([]byte("csrf"))
	g.csrf = hex.EncodeToString(mac.Sum(nil))
	return g
}

// allowHosts accepts the Host headers that name the listener: its
// address, and localhost with its port when it listens on loopback.
func (g *guard) allowHosts(addr net.Addr) {
	_, port, _ := net.SplitHostPort(addr.String())
	g.hosts = map[string]bool{addr.String(): true, "localhost:" + port: true, "127.0.0.1:" + port: true, "[::1]:" + port: true}
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// wrap guards next.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if g.hosts != nil && !g.hosts[r.Host] {
			http.Error(w, "skillstore ui: this server answers only at its own address (Host "+r.Host+" refused)", http.StatusMisdirectedRequest)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
			http.Error(w, "skillstore ui: method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet {
			g.exchange(w, r, tok)
			return
		}
		if c, err := r.Cookie(cookieName); err != nil || !equal(c.Value, g.session) {
			http.Error(w, "skillstore ui: open the link skillstore ui printed (it holds the token); this request has neither token nor session",
				http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			if err := g.cross.Check(r); err != nil {
				http.Error(w, "skillstore ui: cross-origin request refused", http.StatusForbidden)
				return
			}
			if !equal(r.PostFormValue("csrf"), g.csrf) {
				http.Error(w, "skillstore ui: the form's CSRF token is missing or wrong: reload the page", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// exchange turns the one-time token into the session cookie and sends
// the browser to the same page without the token, so it stays in no
// history or referrer. A used or wrong token is refused.
func (g *guard) exchange(w http.ResponseWriter, r *http.Request, tok string) {
	g.mu.Lock()
	ok := g.token != "" && equal(tok, g.token)
	if ok {
		g.token = ""
	}
	g.mu.Unlock()
	if !ok {
		http.Error(w, "skillstore ui: this link's token is wrong or was used already: restart skillstore ui for a new link", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: g.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	q := r.URL.Query()
	q.Del("token")
	// Back to the same page of this server: a path such as //host would
	// be read by the browser as another host's address.
	to := url.URL{Path: path.Clean("/" + r.URL.Path), RawQuery: q.Encode()}
	if strings.HasPrefix(to.Path, "//") || strings.Contains(to.Path, "\\") {
		to.Path = "/"
	}
	http.Redirect(w, r, to.String(), http.StatusSeeOther)
}
