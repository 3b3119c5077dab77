package gitfetch

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// URLError refuses a git URL (or local path) that holds a control
// character in one of its parts ([CheckURL]), or that has no one
// canonical form ([CanonicalURL]). Such a URL is never used: git's
// credential protocol is one "key=value" per line, so a user name holding
// "%0ahost=github.com" would ask the credential helpers for another
// host's token, and a printed URL could rewrite what a terminal shows; a
// path a server could resolve otherwise than the policy read it would
// fetch another repository than the one allowed.
type URLError struct {
	// URL is the URL as given, control characters escaped and any
	// password hidden: the part at fault is never masked.
	URL string
	// Part is where the control character is: "scheme", "user",
	// "password", "host", "path", "query" or "fragment".
	Part string
	// Value is the part, decoded and escaped ("" for a password).
	Value string
	// Reason is what is wrong with the part when it is not a control
	// character ("" when it is): "starts with '-', ...".
	Reason string
}

func (e *URLError) Error() string {
	at := ""
	if e.Value != "" {
		at = " " + e.Value
	}
	if e.Reason != "" {
		if e.Part == "url" {
			return fmt.Sprintf("URL %s %s: refused", e.URL, e.Reason)
		}
		return fmt.Sprintf("URL %s: its %s%s %s: refused", e.URL, e.Part, at, e.Reason)
	}
	return fmt.Sprintf("URL %s: its %s%s holds a control character: refused (give the URL without it)", e.URL, e.Part, at)
}

// urlPart is one part of a URL as written, and whether git decodes its
// %XX escapes before use.
type urlPart struct {
	name, raw string
	decoded   bool
}

// CheckURL refuses a URL or local path holding a control character
// (U+0000–U+001F, U+007F–U+009F) in any part, written as it is or
// %-encoded: the user, the password, the host, the path, the query and
// the fragment. It is the one check every place that takes a git URL
// runs before using it (remotes, clone, pull, push, plugin and
// marketplace sources), and every fetch runs it again.
func CheckURL(raw string) error {
	for _, p := range splitURL(raw) {
		bad := hasControl(p.raw)
		value := p.raw
		if !bad && p.decoded {
			value = percentDecode(p.raw)
			bad = hasControl(value)
		}
		if !bad {
			continue
		}
		e := &URLError{URL: escapeURL(raw), Part: p.name, Value: strconv.QuoteToASCII(value)}
		if p.name == "password" {
			e.Value = ""
		}
		return e
	}
	return nil
}

// splitURL cuts a URL into its parts: scheme://user:password@host/path?query#fragment,
// the scp-like user@host:path, or else a local path. Escapes are decoded
// in a URL with a scheme, as go-git and git decode them; the scp-like
// form and local paths are used as written.
func splitURL(raw string) []urlPart {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/@:") {
		if user, hostPath, ok := strings.Cut(raw, "@"); ok && !strings.Contains(user, "/") {
			if host, path, ok := strings.Cut(hostPath, ":"); ok && !strings.Contains(host, "/") {
				return []urlPart{{"user", user, false}, {"host", host, false}, {"path", path, false}}
			}
		}
		return []urlPart{{"path", raw, false}}
	}
	parts := []urlPart{{"scheme", scheme, false}}
	rest, fragment, hasFragment := strings.Cut(rest, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	authority, path := rest, ""
	if i := strings.Index(rest, "/"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	host := authority
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		userinfo := authority[:i]
		host = authority[i+1:]
		user, password, hasPassword := strings.Cut(userinfo, ":")
		parts = append(parts, urlPart{"user", user, true})
		if hasPassword {
			parts = append(parts, urlPart{"password", password, true})
		}
	}
	parts = append(parts, urlPart{"host", host, true}, urlPart{"path", path, true})
	if hasQuery {
		parts = append(parts, urlPart{"query", query, true})
	}
	if hasFragment {
		parts = append(parts, urlPart{"fragment", fragment, true})
	}
	return parts
}

// hasControl reports whether s holds a control character, or bytes that
// are not UTF-8 (which a terminal may read as one).
func hasControl(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unicode.IsControl(r) {
			return true
		}
		i += n
	}
	return false
}

// percentDecode decodes the %XX escapes of s, leaving a '%' that starts
// no escape as it is (the check only needs what a decoder could make).
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escapeURL is raw for a message: control characters escaped as in a Go
// string, and the password of a URL with a scheme hidden.
func escapeURL(raw string) string {
	if scheme, rest, ok := strings.Cut(raw, "://"); ok {
		authority := rest
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			authority = rest[:i]
		}
		if at := strings.LastIndex(authority, "@"); at >= 0 {
			if user, _, hasPassword := strings.Cut(authority[:at], ":"); hasPassword {
				raw = scheme + "://" + user + ":***" + rest[at:]
			}
		}
	}
	q := strconv.QuoteToASCII(raw)
	return q[1 : len(q)-1]
}
