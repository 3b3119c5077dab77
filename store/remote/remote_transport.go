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

	"github.com/skillstore/skillstore/store"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// A remote is reached with go-git's transports: file (and plain paths),
// git://, http(s):// and ssh. Credentials come from where git keeps them
// and are never written anywhere by skillstore:
//   - http(s): the user and password of the URL, else `git credential
//     fill` (credential helpers, ~/.git-credentials, the OS keychain)
//     once the server asks for them;
//   - ssh: the ssh agent ($SSH_AUTH_SOCK), else an unencrypted
//     ~/.ssh/id_ed25519, id_ecdsa or id_rsa; host keys are checked against
//     known_hosts.

// remoteConn is an endpoint and the credentials to reach it.
type remoteConn struct {
	rem    Remote
	ep     *transport.Endpoint
	client transport.Transport
	auth   transport.AuthMethod
	// helperTried records that git's credential helpers were asked.
	helperTried bool
}

func dialRemote(rem Remote) (*remoteConn, error) {
	ep, err := transport.NewEndpoint(rem.URL)
	if err != nil {
		return nil, fmt.Errorf("remote %s (%s): %s", rem.Name, rem.Redacted(), redactIn(err.Error(), rem.URL))
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return nil, fmt.Errorf("remote %s (%s): %s", rem.Name, rem.Redacted(), redactIn(err.Error(), rem.URL))
	}
	rc := &remoteConn{rem: rem, ep: ep, client: c}
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
	msg := redactIn(err.Error(), c.rem.URL)
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%s %s (%s): %w", what, c.rem.Name, c.rem.Redacted(), transport.ErrRepositoryNotFound)
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%s %s (%s): %s: %w", what, c.rem.Name, c.rem.Redacted(), msg, ErrRemoteAuth)
	}
	return fmt.Errorf("%s %s (%s): %s", what, c.rem.Name, c.rem.Redacted(), msg)
}

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
	user, pass, ok := gitCredentialFill(ctx, c.ep)
	if !ok {
		return err
	}
	c.auth = &githttp.BasicAuth{Username: user, Password: pass}
	return fn()
}

// gitCredentialFill asks `git credential fill` for the endpoint's
// credentials, without prompting on a terminal.
func gitCredentialFill(ctx context.Context, ep *transport.Endpoint) (user, pass string, ok bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", false
	}
	host := ep.Host
	if ep.Port != 0 {
		host = fmt.Sprintf("%s:%d", ep.Host, ep.Port)
	}
	in := fmt.Sprintf("protocol=%s\nhost=%s\npath=%s\n", ep.Protocol, host, strings.TrimPrefix(ep.Path, "/"))
	if ep.User != "" {
		in += "username=" + ep.User + "\n"
	}
	cmd := exec.CommandContext(ctx, "git", "credential", "fill")
	cmd.Stdin = strings.NewReader(in + "\n")
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
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

// uploadPack opens a fetch session and reads the remote's refs.
func (c *remoteConn) uploadPack(ctx context.Context) (transport.UploadPackSession, *packp.AdvRefs, error) {
	var sess transport.UploadPackSession
	var ar *packp.AdvRefs
	err := c.retryAuth(ctx, func() error {
		var err error
		if sess, err = c.client.NewUploadPackSession(c.ep, c.auth); err != nil {
			return err
		}
		if ar, err = sess.AdvertisedReferencesContext(ctx); err != nil {
			sess.Close()
			return err
		}
		return nil
	})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, c.wrap("fetch from", err)
	}
	return sess, ar, nil
}

// receivePack opens a push session and reads the remote's refs. An empty
// remote repository advertises no refs.
func (c *remoteConn) receivePack(ctx context.Context) (transport.ReceivePackSession, *packp.AdvRefs, error) {
	var sess transport.ReceivePackSession
	var ar *packp.AdvRefs
	err := c.retryAuth(ctx, func() error {
		var err error
		if sess, err = c.client.NewReceivePackSession(c.ep, c.auth); err != nil {
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
