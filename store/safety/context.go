package safety

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// A skill that teaches safety quotes what it warns against: a security
// checklist lists `curl … | sh` under "Red flags", a script's comment
// says why it never evals a download. Such a line is told from an
// instruction only where the text leaves no doubt (see discussed); the
// finding is then medium, shown, never dropped.

// lineContext is a line with what discussed needs around it.
type lineContext struct {
	line, low     []byte
	prev, heading []byte // lowercased: the last non-empty line, the last Markdown heading
	script        bool
	markdown      bool
}

// discussWords say that a line, the line before it or its section's
// heading talks about something rather than asks for it.
var discussWords = []string{
	"never", "do not", "don't", "avoid", "beware", "watch for", "watch out", "warn", "such as",
	"e.g.", "for example", "example of", "red flag", "malicious", "attack", "attacker", "dangerous",
	"suspicious", "untrusted", "detect", "flag ", "block", "deny", "forbid", "prohibit", "refuse",
	"reject", "anti-pattern", "unsafe", "risky", "threat", "exploit", "look for", "check for", "scan for",
	"instead of", "bad:", "❌", "injection", "no ",
}

var headingWords = []string{
	"warning", "security", "red flag", "danger", "avoid", "anti-pattern", "don't", "do not", "never",
	"malicious", "attack", "threat", "detect", "unsafe", "risk", "what not to", "pitfall", "bad example",
}

// discussed says why the match at byte start of the line is quoted rather
// than asked for, or "" when it is not plainly so:
//   - in a script, the match is inside a comment (comments do not run);
//   - elsewhere, the match is inside inline code or double quotes, and a
//     discussing word comes before the quote on the line, ends the line
//     before it, or names its section.
func (c lineContext) discussed(start int) string {
	if c.script && inComment(c.line, start) {
		return "in a code comment"
	}
	open := quoteOpen(c.line, start)
	if open < 0 {
		return ""
	}
	if containsAnyString(c.low[:open], discussWords) {
		return "quoted in a warning"
	}
	if bytes.HasSuffix(bytes.TrimSpace(c.prev), []byte(":")) && containsAnyString(c.prev, discussWords) {
		return "quoted in a warning"
	}
	if c.markdown && containsAnyString(c.heading, headingWords) {
		return "quoted under a warning heading"
	}
	return ""
}

// quoteOpen finds where the inline code span or double-quoted string
// holding byte start opens, -1 when start is in neither.
func quoteOpen(line []byte, start int) int {
	for _, q := range []string{"`", "\"", "“"} {
		before := line[:start]
		if q == "“" {
			if i := bytes.LastIndex(before, []byte(q)); i >= 0 && !bytes.Contains(before[i:], []byte("”")) {
				return i
			}
			continue
		}
		if bytes.Count(before, []byte(q))%2 == 1 {
			return bytes.LastIndex(before, []byte(q))
		}
	}
	return -1
}

// inComment reports whether byte start of data is inside a line comment
// (#, //, --, REM, ::) or a block comment's continuation line (* …).
func inComment(data []byte, start int) bool {
	ls := bytes.LastIndexByte(data[:start], '\n') + 1
	lead := data[ls:start]
	t := bytes.TrimLeft(lead, " \t")
	for _, p := range []string{"#", "//", "/*", "* ", "--", "rem ", "REM ", "::", "\"\"\"", "'''"} {
		if bytes.HasPrefix(t, []byte(p)) && !bytes.HasPrefix(t, []byte("#!")) {
			return true
		}
	}
	// A trailing comment: " # " or " // " before the match, outside quotes.
	for _, p := range []string{" # ", " // ", "\t# "} {
		if i := bytes.Index(lead, []byte(p)); i >= 0 && quoteOpen(lead, i) < 0 {
			return true
		}
	}
	return false
}

// excerpt is the matched text, clipped and quoted as Go quotes a string
// (so that no control character reaches a terminal).
func excerpt(line []byte, m []int) string {
	return fmt.Sprintf("%q", clipString(string(line[m[0]:m[1]]), 80))
}

func clipString(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func pipeMessage(r Rule, line []byte, m []int) string {
	if r.ID == rulePipe.ID {
		return rulePipe.Reason // the message earlier versions wrote: stored findings compare equal
	}
	return r.Reason + ": " + excerpt(line, m)
}

func containsAnyString(b []byte, words []string) bool {
	for _, w := range words {
		if bytes.Contains(b, []byte(w)) {
			return true
		}
	}
	return false
}

// vendorHosts serve installers that their vendor documents as `curl … |
// sh` (or PowerShell's iwr | iex) from its own domain: running one is
// what the vendor's install page says, a medium finding rather than
// high. A path prefix narrows a shared host to the vendor's repository.
var vendorHosts = []string{
	"aka.ms", "aspire.dev", "neon.tech", "cli.coderabbit.ai", "static.heygen.ai", "hf.co", "huggingface.co", "install.boltz.bio", "nvidia.com", "run.linkerd.io", "fluxcd.io", "code-server.dev", "raw.githubusercontent.com/render-oss/", "sh.rustup.rs", "get.docker.com", "deno.land", "bun.sh", "astral.sh",
	"install.python-poetry.org", "get.pnpm.io", "fnm.vercel.app", "sdk.cloud.google.com",
	"claude.ai", "ollama.com", "tailscale.com", "get.k3s.io", "opencode.ai", "cursor.com",
	"foundry.paradigm.xyz", "starship.rs", "fly.io", "cli.doppler.com", "install.determinate.systems",
	"nixos.org", "get.sdkman.io", "get.pulumi.com", "get.volta.sh", "mise.run", "pixi.sh",
	"get.jetify.com", "railway.com", "railway.app", "supabase.com", "vercel.com", "get.helm.sh",
	"cli.github.com", "dot.net", "dotnet.microsoft.com", "packages.microsoft.com", "azurecliprod.blob.core.windows.net",
	"sh.brew.sh", "raw.githubusercontent.com/homebrew/install/", "raw.githubusercontent.com/nvm-sh/nvm/",
	"raw.githubusercontent.com/helm/helm/", "get.rvm.io", "rye.astral.sh", "uv.astral.sh", "gh.io",
	"cli.codecov.io", "get.trunk.io", "goreleaser.com", "moonrepo.dev", "get.tur.so", "turso.tech",
	"install.pulumi.com", "docs.anthropic.com", "code.visualstudio.com", "cli.vercel.com",
	"chezmoi.io", "get.chezmoi.io", "install.lunarvim.org", "spacetimedb.com",
	"min.io", "dl.min.io", "get.gitpod.io", "modular.com", "get.modular.com", "tea.xyz", "pkgx.sh",
	"mintlify.com", "stripe.com", "get.stripe.com", "flox.dev", "install.flox.dev", "release.ariga.io",
	"atlasgo.sh", "get.keploy.io", "encore.dev", "wasmtime.dev", "wasmer.io", "get.wasmer.io", "sh.vector.dev",
	"install.speakeasy.com", "raw.githubusercontent.com/speakeasy-api/", "install.mondoo.com",
	"downloads.nordcdn.com", "cli.coder.com", "coder.com", "get.openziti.io", "app.warp.dev",
	"setup.inngest.com", "static.rust-lang.org", "apt.llvm.org", "sh.rustup.rs", "golangci-lint.run",
	"raw.githubusercontent.com/golangci/golangci-lint/", "raw.githubusercontent.com/microsoft/",
	"raw.githubusercontent.com/azure/", "raw.githubusercontent.com/aws/", "raw.githubusercontent.com/github/",
	"raw.githubusercontent.com/anthropics/", "raw.githubusercontent.com/openai/",
}

var urlRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https://[^\s"'|)>]+`) })

// vendorInstaller reports a pipe into a shell whose URLs are all https
// on a vendor's own host (vendorHosts).
func vendorInstaller(line []byte) bool {
	urls := urlRe().FindAll(line, -1)
	if len(urls) == 0 || bytes.Contains(bytes.ToLower(line), []byte("http://")) {
		return false
	}
	for _, raw := range urls {
		u, err := url.Parse(string(raw))
		if err != nil || u.User != nil {
			return false
		}
		hostPath := strings.ToLower(u.Host + u.EscapedPath())
		ok := false
		for _, h := range vendorHosts {
			if strings.HasSuffix(h, "/") {
				ok = ok || strings.HasPrefix(hostPath, h)
				continue
			}
			host := strings.ToLower(u.Hostname())
			ok = ok || host == h || strings.HasSuffix(host, "."+h)
		}
		if !ok {
			return false
		}
	}
	return true
}

// negated reports a "not" just before byte start ("did not silently
// execute" describes, it does not ask).
func negated(low []byte, start int) bool {
	before := low[max(0, start-12):start]
	return bytes.Contains(before, []byte("not ")) || bytes.Contains(before, []byte("n't ")) || bytes.Contains(before, []byte("never "))
}
