package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/lockfile"
)

// Tokens are the bearer tokens of the HTTP transport: one per client or
// person, named by its holder. The file keeps each token's SHA-256 only,
// so reading it gives no token; a token is shown once, when made. The
// file is read again whenever it changes, so a token removed by
// 'skillstore mcp token rm' is refused at its next request, without a
// restart.
type Tokens struct {
	path string

	mu    sync.Mutex
	stamp statStamp
	bySum map[[sha256.Size]byte]string // token hash -> holder
}

// Token is one token's record (never the token itself).
type Token struct {
	Name    string    `json:"name"`
	SHA256  string    `json:"sha256"`
	Created time.Time `json:"created"`
}

type tokenFile struct {
	Tokens []Token `json:"tokens"`
}

// tokenPrefix starts every token, so one found in a log or a file is
// recognised as ours.
const tokenPrefix = "sst_"

// NewTokens is the token file at path (it need not exist: no token is
// valid then).
func NewTokens(path string) *Tokens { return &Tokens{path: path} }

func (t *Tokens) read() (tokenFile, error) {
	var f tokenFile
	data, err := os.ReadFile(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("read the token file %s: %w", t.path, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("the token file %s is not valid JSON (%v): remove it and make the tokens again", t.path, err)
	}
	return f, nil
}

// List returns the tokens' records, by name.
func (t *Tokens) List() ([]Token, error) {
	f, err := t.read()
	return f.Tokens, err
}

// change edits the file under its lock.
func (t *Tokens) change(ctx context.Context, fn func(*tokenFile) error) error {
	l, err := lockfile.Acquire(ctx, t.path+".lock", lockfile.Exclusive, 10*time.Second)
	if err != nil {
		return err
	}
	defer l.Release()
	f, err := t.read()
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	sort.Slice(f.Tokens, func(i, j int) bool { return f.Tokens[i].Name < f.Tokens[j].Name })
	data, _ := json.MarshalIndent(f, "", "  ")
	return atomicfile.WriteFile(t.path, append(data, '\n'), 0o600)
}

// Add makes a token for name and returns it: the only time it is shown.
func (t *Tokens) Add(ctx context.Context, name string, now time.Time) (string, error) {
	if name == "" || len(name) > MaxClientField || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "", fmt.Errorf("a token's name is its holder (a person or a client): 1 to %d printable characters", MaxClientField)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	sum := sha256.Sum256([]byte(token))
	err := t.change(ctx, func(f *tokenFile) error {
		for _, tk := range f.Tokens {
			if tk.Name == name {
				return fmt.Errorf("a token named %q exists: remove it first ('skillstore mcp token rm %s') or choose another name", name, name)
			}
		}
		f.Tokens = append(f.Tokens, Token{Name: name, SHA256: hex.EncodeToString(sum[:]), Created: now.UTC()})
		return nil
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// ErrNoToken is wrapped by Remove for a name no token has.
var ErrNoToken = errors.New("no token of that name")

// Remove revokes name's token.
func (t *Tokens) Remove(ctx context.Context, name string) error {
	return t.change(ctx, func(f *tokenFile) error {
		for i, tk := range f.Tokens {
			if tk.Name == name {
				f.Tokens = append(f.Tokens[:i], f.Tokens[i+1:]...)
				return nil
			}
		}
		return fmt.Errorf("%q: %w ('skillstore mcp token list' lists them)", name, ErrNoToken)
	})
}

// Holder returns the name of the holder of token, false when no token
// of the file is it.
func (t *Tokens) Holder(token string) (string, bool) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 100 {
		return "", false
	}
	sum := sha256.Sum256([]byte(token))
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := statOf(t.path); st != t.stamp || t.bySum == nil {
		f, err := t.read()
		if err != nil {
			return "", false // an unreadable file accepts no token
		}
		t.bySum = map[[sha256.Size]byte]string{}
		for _, tk := range f.Tokens {
			var h [sha256.Size]byte
			if b, err := hex.DecodeString(tk.SHA256); err == nil && len(b) == len(h) {
				copy(h[:], b)
				t.bySum[h] = tk.Name
			}
		}
		t.stamp = st
	}
	// Every token's hash is compared, each in constant time.
	for h, name := range t.bySum {
		if subtle.ConstantTimeCompare(h[:], sum[:]) == 1 {
			return name, true
		}
	}
	return "", false
}
