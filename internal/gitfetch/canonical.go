package gitfetch

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// The canonical form of a git URL. A server resolves the path it is sent:
// nginx and most front ends decode %XX, merge "//" and resolve "." and
// ".." before they pick a repository, and go-git decodes a URL's path
// once more than a browser does (it writes the decoded path into the
// request it sends). A policy that matched the URL as text would then
// allow http://host/acme/../evil/x.git as acme's while the server serves
// evil's. So every URL is put in one form before it is checked, and that
// form is what is fetched: the path decoded once, its dot segments and
// empty segments resolved (RFC 3986, 5.2.4), and what could be read two
// ways refused.

// CanonicalURL is the one form of a git URL or local path that the source
// policy checks and a fetch uses; every place that takes a URL from a
// user, a marketplace, a lock file or a record calls it (after or as
// [CheckURL], which it runs first), and [Open] fetches its result. It is
// idempotent: CanonicalURL of its result is that result.
//
//   - scheme://[user@]host[:port]/path (http, https, ssh, git, ...): the
//     scheme and host in lower case, the port as a number, the path
//     %-decoded once, "." and ".." resolved and empty segments dropped,
//     then written escaped as a URL path is. Refused: a host that is
//     empty or starts with '-' (git and ssh read it as an option), an
//     encoded '/' or '\' (%2f, %5c) or a '\', a '%', '?' or '#' that
//     decoding made (go-git would decode or cut it again), a ".." above
//     the root, a query or a fragment.
//   - file:///path: the path decoded and cleaned the same way; a host
//     other than localhost is refused.
//   - [user@]host:path (scp-like ssh): the host checked as above, the
//     path's dot and empty segments resolved (nothing is decoded there).
//   - a local path: absolute and clean.
//
// A refusal is a *URLError naming the part and why.
func CanonicalURL(raw string) (string, error) {
	if err := CheckURL(raw); err != nil {
		return "", err
	}
	ep, err := transport.NewEndpoint(raw)
	if err != nil {
		return "", refuse(raw, "url", "", "cannot be read as a git URL or path")
	}
	switch {
	case strings.Contains(raw, "://"):
		return canonicalSchemeURL(raw)
	case ep.Protocol == "ssh":
		return canonicalSCP(raw, ep)
	}
	return filepath.Clean(ep.Path), nil // NewEndpoint made it absolute
}

// refuse is the *URLError of a URL that cannot be put in canonical form.
func refuse(raw, part, value, reason string) *URLError {
	e := &URLError{URL: escapeURL(raw), Part: part, Reason: reason}
	if value != "" {
		e.Value = strconv.QuoteToASCII(value)
	}
	return e
}

func canonicalSchemeURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return "", refuse(raw, "url", "", "cannot be read as a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if u.RawQuery != "" || u.ForceQuery {
		return "", refuse(raw, "query", u.RawQuery, "is not part of a git URL (a server reads it as part of the path)")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "", refuse(raw, "fragment", u.Fragment, "is not part of a git URL")
	}
	host := u.Hostname()
	if scheme == "file" {
		if host != "" && !strings.EqualFold(host, "localhost") {
			return "", refuse(raw, "host", host, "is not this machine: a file:// URL names a path here")
		}
		p, err := canonicalPath(raw, u, false)
		if err != nil {
			return "", err
		}
		if p == "" {
			return "", refuse(raw, "path", "", "is empty: a file:// URL names a repository's path")
		}
		return "file://" + p, nil
	}
	if err := checkHost(raw, host); err != nil {
		return "", err
	}
	host = strings.ToLower(host)
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return "", refuse(raw, "port", port, "is not a port number")
		}
		host += ":" + strconv.Itoa(n)
	}
	p, err := canonicalPath(raw, u, true)
	if err != nil {
		return "", err
	}
	user := ""
	if u.User != nil {
		user = u.User.String() + "@"
	}
	return scheme + "://" + user + host + p, nil
}

// checkHost refuses a host that names no machine, or that a program
// handed the URL (ssh, git's transports) would read as an option.
func checkHost(raw, host string) error {
	switch {
	case host == "":
		return refuse(raw, "host", "", "is empty: the URL names no server")
	case strings.HasPrefix(host, "-"):
		return refuse(raw, "host", host, "starts with '-', which ssh and git read as an option")
	case strings.ContainsAny(host, "%/\\@?#"):
		return refuse(raw, "host", host, "is not a host name")
	}
	return nil
}

// canonicalPath is the path of u decoded once, resolved and escaped
// again ("" for an empty path). network is true when a server reads it:
// a '%', '?' or '#' that decoding made is then refused, since go-git
// writes the decoded path into its request and the server would decode
// or cut it a second time.
func canonicalPath(raw string, u *url.URL, network bool) (string, error) {
	written := u.RawPath // the path as written, when it held escapes
	if written == "" {
		written = u.EscapedPath()
	}
	if strings.Contains(written, `\`) {
		return "", refuse(raw, "path", u.Path, `holds a '\', which some servers read as '/'`)
	}
	var segs []string
	for _, s := range strings.Split(written, "/") {
		dec, err := url.PathUnescape(s)
		if err != nil {
			return "", refuse(raw, "path", written, "holds a '%' that starts no escape")
		}
		switch {
		case strings.ContainsAny(dec, `/\`):
			return "", refuse(raw, "path", written, `holds an encoded '/' or '\' (%2f, %5c), which servers read apart`)
		case network && strings.ContainsAny(dec, "%?#"):
			return "", refuse(raw, "path", written, "holds an encoded '%', '?' or '#', which the server would read again")
		}
		var ok bool
		if segs, ok = addSegment(segs, dec); !ok {
			return "", refuse(raw, "path", u.Path, aboveTop)
		}
	}
	if len(segs) == 0 {
		return "", nil
	}
	return (&url.URL{Path: "/" + strings.Join(segs, "/")}).EscapedPath(), nil
}

// aboveTop is why a path with a ".." that has nothing left to remove is
// refused.
const aboveTop = "climbs above its top with '..'"

// addSegment appends one decoded segment to a path being resolved: an
// empty one ("//") and "." are dropped, ".." removes the last one (RFC
// 3986, 5.2.4); ok is false for a ".." with nothing left to remove.
func addSegment(segs []string, s string) (_ []string, ok bool) {
	switch s {
	case "", ".":
		return segs, true
	case "..":
		if len(segs) == 0 {
			return nil, false
		}
		return segs[:len(segs)-1], true
	}
	return append(segs, s), true
}

// canonicalSCP is the canonical form of an scp-like address
// ([user@]host:path, as NewEndpoint read it into ep): its path's dot and
// empty segments resolved, nothing decoded (ssh sends the path as it is).
func canonicalSCP(raw string, ep *transport.Endpoint) (string, error) {
	if err := checkHost(raw, ep.Host); err != nil {
		return "", err
	}
	prefix, ok := strings.CutSuffix(raw, ep.Path)
	if !ok || ep.Path == "" {
		return "", refuse(raw, "path", ep.Path, "cannot be read as a repository's path")
	}
	if strings.Contains(ep.Path, `\`) {
		return "", refuse(raw, "path", ep.Path, `holds a '\', which some servers read as '/'`)
	}
	var segs []string
	for _, s := range strings.Split(ep.Path, "/") {
		var ok bool
		if segs, ok = addSegment(segs, s); !ok {
			return "", refuse(raw, "path", ep.Path, aboveTop)
		}
	}
	p := strings.Join(segs, "/")
	if strings.HasPrefix(ep.Path, "/") {
		p = "/" + p
	}
	out := prefix + p
	// The resolved address must read as the same host and path (a path
	// that lost its last '/' could read as something else).
	again, err := transport.NewEndpoint(out)
	if p == "" || p == "/" || err != nil || again.Protocol != "ssh" || again.Host != ep.Host || again.User != ep.User || again.Port != ep.Port || again.Path != p {
		return "", refuse(raw, "path", ep.Path, "does not name a repository once its '.' and '..' are resolved: write the path it means")
	}
	return out, nil
}
