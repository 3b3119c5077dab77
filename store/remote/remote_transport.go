package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// A remote is reached with gitfetch's transports: a local path or file://
// (git upload-pack and receive-pack run as helpers in the store, killed
// and reaped when a session ends early), git://, http(s):// (a fetch with
// connect and response deadlines) and ssh. Every URL is put in canonical
// form first (gitfetch.CanonicalURL). Credentials come from where git keeps them and are never
// written anywhere by skillstore:
//   - http(s): the user and password of the URL, else `git credential
//     fill` (credential helpers, ~/.git-credentials, the OS keychain)
//     once the server asks for them;
//   - ssh: the ssh agent ($SSH_AUTH_SOCK), else an unencrypted
//     ~/.ssh/id_ed25519, id_ecdsa or id_rsa; host keys are checked against
//     known_hosts.

// remoteConn is an endpoint and the credentials to reach it.
type remoteConn struct {
	rem  Remote
	ep   *transport.Endpoint
	opts gitfetch.Options // deadlines, and where git helpers run
	auth transport.AuthMethod
	// helperTried records that git's credential helpers were asked.
	helperTried bool
}

// dialRemote checks the remote's URL and puts it in canonical form
// ([gitfetch.CanonicalURL]: the URL in the git config may have been
// written by hand, not by Add) and prepares to reach it; nothing is sent
// yet.
func dialRemote(rem Remote, opts gitfetch.Options) (*remoteConn, error) {
	canon, err := gitfetch.CanonicalURL(rem.URL)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", rem.Name, err)
	}
	rem.URL = canon
	ep, err := transport.NewEndpoint(rem.URL)
	if err != nil {
		return nil, fmt.Errorf("remote %s (%s): %s", rem.Name, rem.Redacted(), redactIn(err.Error(), rem.URL))
	}
	rc := &remoteConn{rem: rem, ep: ep, opts: opts}
	if ep.Protocol == "ssh" {
		rc.auth = sshAuth(ep.User)
	}
	return rc, nil
}

// sshAuth picks the agent when one runs, else the first unencrypted
// default key; nil lets go-git try its default (the agent).
func sshAuth(user string) transport.AuthMethod {
	if user == "" {
		user = "git"
	}
	if os.Getenv("SSH_AUTH_SOCK") != "" {
		if a, err := gitssh.NewSSHAgentAuth(user); err == nil {
			return a
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		if k, err := gitssh.NewPublicKeysFromFile(user, filepath.Join(home, ".ssh", name), ""); err == nil {
			return k
		}
	}
	return nil
}

// wrap names the remote in an error and hides any credential in it.
func (c *remoteConn) wrap(what string, err error) error {
	e := &Error{Remote: c.rem.Name, err: err}
	prefix := fmt.Sprintf("%s %s (%s): ", what, c.rem.Name, c.rem.Redacted())
	msg := redactIn(err.Error(), c.rem.URL)
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		e.msg = prefix + transport.ErrRepositoryNotFound.Error()
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		e.msg = prefix + msg + ": " + ErrRemoteAuth.Error()
		e.err = fmt.Errorf("%w: %w", err, ErrRemoteAuth)
	default:
		e.msg = prefix + msg
	}
	return e
}

// Error is a failure to reach a remote, or one the remote reported. Its
// text names the remote with its URL's credentials hidden; errors.Is and
// errors.As still see what it wraps (transport.ErrRepositoryNotFound, a
// *gitfetch.TimeoutError).
type Error struct {
	Remote string
	msg    string
	err    error
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.err }

// ErrRemoteAuth is wrapped when the remote refuses the credentials (or
// there are none).
var ErrRemoteAuth = errors.New("the remote needs credentials skillstore could not find")

// retryAuth runs fn, and once more with credentials from git's credential
// helpers when an http(s) server asks for them.
func (c *remoteConn) retryAuth(ctx context.Context, fn func() error) error {
	err := fn()
	if err == nil || c.helperTried || !strings.HasPrefix(c.ep.Protocol, "http") {
		return err
	}
	if !errors.Is(err, transport.ErrAuthenticationRequired) && !errors.Is(err, transport.ErrAuthorizationFailed) {
		return err
	}
	c.helperTried = true
	user, pass, ok := gitCredentialFill(ctx, c.ep, c.opts.HelperDir)
	if !ok {
		return err
	}
	c.auth = &githttp.BasicAuth{Username: user, Password: pass}
	return fn()
}

// gitCredentialFill asks `git credential fill` for the endpoint's
// credentials, without prompting on a terminal. git runs as a helper
// (gitfetch.Command): in the store, with only the user's global and
// system configuration, never the caller's folder's. A field holding a
// line break or another control character is never sent: it could add
// lines to the request (CheckURL refuses such URLs before this).
func gitCredentialFill(ctx context.Context, ep *transport.Endpoint, dir string) (user, pass string, ok bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", false
	}
	host := ep.Host
	if ep.Port != 0 {
		host = fmt.Sprintf("%s:%d", ep.Host, ep.Port)
	}
	fields := [][2]string{{"protocol", ep.Protocol}, {"host", host}, {"path", strings.TrimPrefix(ep.Path, "/")}}
	if ep.User != "" {
		fields = append(fields, [2]string{"username", ep.User})
	}
	var in strings.Builder
	for _, f := range fields {
		if strings.ContainsFunc(f[1], isControl) {
			return "", "", false
		}
		in.WriteString(f[0] + "=" + f[1] + "\n")
	}
	cmd := gitfetch.Command(ctx, dir, "credential", "fill")
	cmd.Stdin = strings.NewReader(in.String() + "\n")
	cmd.Env = append(cmd.Env, "GIT_ASKPASS=", "SSH_ASKPASS=")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", "", false
	}
	for _, line := range strings.Split(out.String(), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "username":
			user = v
		case "password":
			pass = v
		}
	}
	return user, pass, user != "" || pass != ""
}

// isControl reports a character that must never reach a line protocol.
func isControl(r rune) bool { return unicode.IsControl(r) }

// openFetch opens a fetch session (gitfetch.Open: connect and list the
// refs within the fetch deadline), once more with git's credentials when
// an http(s) server asks for them. An empty repository gives a nil
// session.
func (c *remoteConn) openFetch(ctx context.Context) (*gitfetch.Session, error) {
	var sess *gitfetch.Session
	err := c.retryAuth(ctx, func() error {
		var err error
		sess, err = gitfetch.Open(ctx, c.rem.URL, c.auth, c.opts)
		return err
	})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, nil
	}
	if err != nil {
		return nil, c.wrap("fetch from", err)
	}
	return sess, nil
}

// receivePack opens a push session and reads the remote's refs. An empty
// remote repository advertises no refs.
func (c *remoteConn) receivePack(ctx context.Context) (transport.ReceivePackSession, *packp.AdvRefs, error) {
	var sess transport.ReceivePackSession
	var ar *packp.AdvRefs
	tr, err := gitfetch.PushTransport(c.ep, c.opts)
	if err != nil {
		return nil, nil, c.wrap("push to", err)
	}
	err = c.retryAuth(ctx, func() error {
		var err error
		if sess, err = tr.NewReceivePackSession(c.ep, c.auth); err != nil {
			return err
		}
		if ar, err = sess.AdvertisedReferencesContext(ctx); err != nil {
			sess.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return nil, nil, c.wrap("push to", err)
	}
	return sess, ar, nil
}

// advertisedRefs flattens advertised references to name → id, skipping
// symbolic refs (HEAD) and peeled tag values.
func advertisedRefs(ar *packp.AdvRefs) map[string]store.Hash {
	out := map[string]store.Hash{}
	if ar == nil {
		return out
	}
	for name, h := range ar.References {
		out[name] = fromGit(h)
	}
	return out
}
