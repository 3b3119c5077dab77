package safety

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Signals are facts about a file that are harmless or common alone and
// dangerous together: reading ~/.ssh is what an SSH helper does, posting
// to a URL is what an API client does; a file that does both can steal
// the key. Each is recorded with its lines by signals, and combine turns
// them into findings.
const (
	sigSecret   = "secret"
	sigEnv      = "env"
	sigNet      = "net"
	sigHost     = "capture-host"
	sigSettings = "settings-path"
	sigDownRun  = "download-run"
	sigSocket   = "socket"
	sigDup      = "dup"
	sigShell    = "shell"
)

// signalRules are the signals matched line by line, each behind a cheap
// test of words in the lowercased line (most lines hold none).
var signalRules = []struct {
	name  string
	words []string
	re    func() *regexp.Regexp
	rule  *Rule // a finding of its own, when set
}{
	{sigSecret, []string{".ssh", ".aws", ".gnupg", ".netrc", "git-credentials", ".kube", ".docker", ".azure", "gcloud", "config/gh", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".env", "security ", "keychain", "login data", "cookies.sqlite", "wallet.dat", "metamask", "exodus", "electrum"}, secretRe, &ruleSecretRead},
	{sigEnv, []string{"environ", "process.env", "printenv", "env ", "env|", "env>", "env)", "env`", "env:"}, envDumpRe, &ruleEnvDump},
	{sigHost, []string{"webhook", "requestbin", "pipedream", "ngrok", "trycloudflare", "interact.sh", "oast.", "burpcollaborator", "canarytokens", "hookbin", "beeceptor", "requestcatcher", "serveo", "localtunnel", "loca.lt", "transfer.sh", "paste.ee", "discord", "telegram"}, exfilHostRe, &ruleExfilHost},
	{sigNet, []string{"curl", "wget", ".post", ".put", "urlopen", "request", "fetch", "axios", "invoke-", "iwr", "irm", "nc ", "smtplib", "scp ", "/dev/tcp", "send", "upload", "post", "transmit", "forward", "exfiltrat", "submit"}, netSendRe, nil},
	{sigSettings, []string{".claude/", ".codex/", ".cursor/", ".vscode/", ".gemini/", ".copilot/", "github-copilot", ".windsurf", ".continue"}, settingsPathRe, nil},
	{sigSocket, []string{"socket", "net.connect", "fsockopen"}, socketRe, nil},
	{sigDup, []string{"dup2", ".pipe", "stdin", "exec "}, dupRe, nil},
	{sigShell, []string{"pty.spawn", "/bin/", "cmd.exe", "powershell", "spawn"}, shellRe, nil},
}

func (s *scan) signals(n int, line, low []byte, ctx lineContext) {
	for _, sr := range signalRules {
		if !containsAnyString(low, sr.words) {
			continue
		}
		m := sr.re().FindIndex(line)
		if m == nil || ctx.discussed(m[0]) != "" {
			continue
		}
		s.signal(sr.name, n)
		if sr.rule != nil {
			s.add(n, *sr.rule, sr.rule.Level, sr.rule.Reason+": "+excerpt(line, m))
		}
	}
	if containsAny(low, pipeWords) {
		if m := downloadRunRe().FindSubmatchIndex(line); m != nil && downloadRuns(line[m[1]:], string(line[m[4]:m[5]])) && ctx.discussed(m[0]) == "" {
			s.signal(sigDownRun, n)
			r := ruleDownloadRun
			if vendorInstaller(line) {
				r = ruleVendorPipe
			}
			s.add(n, r, r.Level, r.Reason+": "+excerpt(line, m))
		}
	}
}

var commandSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`&&|\|\||;`) })

// downloadRuns reports whether rest (what follows a download into file)
// runs file: a later command of the line is the file itself, an
// interpreter given it, chmod +x on it, or Start-Process of it.
func downloadRuns(rest []byte, file string) bool {
	base := path.Base(file)
	if base == "." || base == "/" || base == "" || base == "-" {
		return false
	}
	for _, cmd := range commandSep().Split(string(rest), -1)[1:] {
		f := strings.Fields(cmd)
		for len(f) > 0 && (f[0] == "sudo" || f[0] == "then") {
			f = f[1:]
		}
		if len(f) == 0 {
			continue
		}
		names := func(t string) bool {
			t = strings.Trim(t, `"'`)
			return t == file || t == "./"+base || path.Base(t) == base
		}
		switch strings.ToLower(f[0]) {
		case "sh", "bash", "zsh", "python", "python3", "node", "perl", "ruby", "pwsh", "powershell", "start-process", "msiexec", "source", ".":
			for _, t := range f[1:] {
				if names(t) {
					return true
				}
				if !strings.HasPrefix(t, "-") {
					break
				}
			}
		case "chmod":
			if len(f) >= 3 && strings.Contains(f[1], "x") && names(f[2]) {
				return true
			}
		default:
			if names(f[0]) {
				return true
			}
		}
	}
	return false
}

// near reports two signals within a few lines of each other.
func (s *scan) near(a, b string, within int) (int, bool) {
	for _, x := range s.sig[a] {
		for _, y := range s.sig[b] {
			if x-y <= within && y-x <= within {
				return min(x, y), true
			}
		}
	}
	return 0, false
}

// nearAny reports a secret signal and a send signal within n lines: in
// a long document (a CLI reference, a cheat sheet) the two are far apart
// and unrelated.
func (s *scan) nearAny(n int) bool {
	for _, a := range []string{sigSecret, sigEnv} {
		for _, b := range []string{sigNet, sigHost} {
			if _, ok := s.near(a, b, n); ok {
				return true
			}
		}
	}
	return false
}

func (s *scan) has(name string) bool { return len(s.sig[name]) > 0 }

func (s *scan) first(names ...string) int {
	line := 0
	for _, n := range names {
		for _, l := range s.sig[n] {
			if line == 0 || l < line {
				line = l
			}
		}
	}
	return line
}

// combine turns signals into the findings they make together.
func (s *scan) combine() {
	secret := s.has(sigSecret) || s.has(sigEnv)
	send := s.has(sigNet) || s.has(sigHost)
	if secret && send && (!s.markdown || s.nearAny(30)) {
		line, close := 0, false
		for _, a := range []string{sigSecret, sigEnv} {
			for _, b := range []string{sigNet, sigHost} {
				if l, ok := s.near(a, b, 3); ok && !close {
					line, close = l, true
				}
			}
		}
		where := fmt.Sprintf(" (reads at line %d, sends at line %d)", s.first(sigSecret, sigEnv), s.first(sigNet, sigHost))
		switch {
		case close || s.has(sigHost):
			if line == 0 {
				line = s.first(sigSecret, sigEnv)
			}
			s.add(line, ruleExfilNear, ruleExfilNear.Level, ruleExfilNear.Reason+where)
		default:
			s.add(s.first(sigSecret, sigEnv), ruleExfil, ruleExfil.Level, ruleExfil.Reason+where)
		}
	}
	// Telling the agent to hide what it does is critical when the file
	// also reads secrets, sends data or runs something dangerous.
	if s.has(ruleStealth.ID) && (secret || send || s.has(rulePipe.ID) || s.has(ruleDecodeExec.ID) || s.has(ruleReverseShell.ID)) {
		for i := range s.out {
			if s.out[i].Rule == ruleStealth.ID && s.out[i].Level == RiskHigh {
				s.out[i].Level = RiskCritical
				s.out[i].Message += " (and the same file reads secrets, sends data or runs code)"
			}
		}
	}
	if s.has(sigSocket) && s.has(sigDup) && s.has(sigShell) && !s.has(ruleReverseShell.ID) {
		s.add(s.first(sigSocket), ruleReverseShell, ruleReverseShell.Level, ruleReverseShell.Reason+": a socket connected to a shell's input and output")
	}
	if s.has(ruleAllowAll.ID) && s.has(sigSettings) {
		s.add(s.first(ruleAllowAll.ID), ruleSettingsWrite, ruleSettingsWrite.Level, "")
	}
	if s.has(ruleArchivePass.ID) && releaseDownloadRe().Match(s.data) && runWordsRe().Match(s.data) {
		s.add(s.first(ruleArchivePass.ID), ruleArchiveRun, ruleArchiveRun.Level, "")
	}
}

// agentWords in an HTML comment of a Markdown file ask the agent for
// something a person would want to see: a comment is not shown when the
// file is rendered, but the agent reads the raw text. Lint directives,
// TODOs, template prompts and licence headers hold none.
var agentWords = []string{
	"ignore previous", "ignore all", "ignore the", "disregard", "do not tell", "don't tell", "do not mention",
	"don't mention", "never mention", "without telling", "secretly", "silently", "system prompt", "curl ", "wget ",
	"~/.ssh", "~/.aws", ".ssh/", "id_rsa", ".aws/credentials", "base64",
	"webhook", "exfiltrat", "send the", "send it", "send all", "send them", "eval(", "exec(", "| sh ", "| bash ", "| sh\n",
}

var htmlCommentRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--(.*?)-->`) })

// htmlComments flags HTML comments in Markdown that speak to the agent.
func (s *scan) htmlComments() {
	if !bytes.Contains(s.data, []byte("<!--")) {
		return
	}
	for _, m := range htmlCommentRe().FindAllSubmatchIndex(s.data, -1) {
		body := s.lower[m[2]:m[3]]
		if !containsAnyString(body, agentWords) {
			continue
		}
		line := 1 + bytes.Count(s.data[:m[0]], []byte("\n"))
		text := bytes.Join(bytes.Fields(s.data[m[2]:m[3]]), []byte(" "))
		s.signal(ruleHTMLComment.ID, line)
		s.add(line, ruleHTMLComment, ruleHTMLComment.Level, fmt.Sprintf("%s: %q", ruleHTMLComment.Reason, clipString(string(text), 80)))
	}
}
