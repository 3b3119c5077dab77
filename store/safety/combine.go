package safety

import (
	"bytes"
	"fmt"
	"regexp"
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
	sigRelease  = "release-download"
	sigRunWord  = "run-word"
	sigSocket   = "socket"
	sigDup      = "dup"
	sigShell    = "shell"
)

func (s *scan) signals(n int, line, low []byte, ctx lineContext) {
	check := func(name string, re *regexp.Regexp) []int {
		m := re.FindIndex(line)
		if m == nil || ctx.discussed(m[0]) != "" {
			return nil
		}
		s.signal(name, n)
		return m
	}
	if m := check(sigSecret, secretRe()); m != nil {
		s.add(n, ruleSecretRead, ruleSecretRead.Level, ruleSecretRead.Reason+": "+excerpt(line, m))
	}
	if m := check(sigEnv, envDumpRe()); m != nil {
		s.add(n, ruleEnvDump, ruleEnvDump.Level, ruleEnvDump.Reason+": "+excerpt(line, m))
	}
	if m := check(sigHost, exfilHostRe()); m != nil {
		s.add(n, ruleExfilHost, ruleExfilHost.Level, ruleExfilHost.Reason+": "+excerpt(line, m))
	}
	check(sigNet, netSendRe())
	check(sigSettings, settingsPathRe())
	check(sigRelease, releaseDownloadRe())
	check(sigRunWord, runWordsRe())
	check(sigSocket, socketRe())
	check(sigDup, dupRe())
	check(sigShell, shellRe())
	if containsAny(low, pipeWords) {
		if m := check(sigDownRun, downloadRunRe()); m != nil {
			r := ruleDownloadRun
			if vendorInstaller(line) {
				r = ruleVendorPipe
			}
			s.add(n, r, r.Level, r.Reason+": "+excerpt(line, m))
		}
	}
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
	if secret && send {
		line, close := 0, false
		for _, a := range []string{sigSecret, sigEnv} {
			for _, b := range []string{sigNet, sigHost} {
				if l, ok := s.near(a, b, 3); ok && !close {
					line, close = l, true
				}
			}
		}
		switch {
		case close || s.has(sigHost):
			if line == 0 {
				line = s.first(sigSecret, sigEnv)
			}
			s.add(line, ruleExfilNear, ruleExfilNear.Level, "")
		default:
			s.add(s.first(sigSecret, sigEnv), ruleExfil, ruleExfil.Level, "")
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
	if s.has(ruleArchivePass.ID) && s.has(sigRelease) && s.has(sigRunWord) {
		s.add(s.first(ruleArchivePass.ID), ruleArchiveRun, ruleArchiveRun.Level, "")
	}
}

// agentWords in an HTML comment of a Markdown file speak to the agent:
// a comment is not shown when the file is rendered, but the agent reads
// the raw text. Lint directives, TODOs and licence headers hold none.
var agentWords = []string{
	"ignore", "instruction", "assistant", "the agent", "claude", "codex", "copilot", "gemini",
	"you must", "you are", "you should", "do not tell", "don't tell", "do not mention", "don't mention",
	"secretly", "silently", "system prompt", "curl ", "wget ", "execute", "~/.ssh", "~/.aws",
	"password", "api key", "base64", "webhook", "exfiltrat", "important:", "ai model", "language model",
	"upload", "send the", "send it", "send all", "the user's",
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
