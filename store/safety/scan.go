package safety

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

var scriptExts = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".py": true, ".js": true, ".mjs": true, ".ts": true, ".rb": true, ".pl": true, ".ps1": true, ".php": true}

func isScript(f skillfs.File) bool {
	return f.Executable() || isScriptPath(f.Path, f.Data)
}

// isScriptPath reports a script by its name or its #! line.
func isScriptPath(p string, data []byte) bool {
	return scriptExts[path.Ext(p)] || bytes.HasPrefix(data, []byte("#!"))
}

func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".mdc":
		return true
	}
	return false
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	pipeToShell = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]*\|\s*(sudo\s+)?(ba|z|k|da|fi)?sh\b|\b(ba)?sh\s+<\(\s*(curl|wget)\b|\b(python3?|node|perl|ruby)\s+<\(\s*(curl|wget)\b|\b(curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]*\|\s*(sudo\s+)?(python3?|node|perl|ruby|iex|invoke-expression|pwsh|powershell)\b|\b(iex|invoke-expression)\b\s*[(&]?\s*\(?\s*(iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)\b`)
	})
	ignorePrior = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|preceding|system)\s+(instructions|prompts?|rules|messages|directions)`)
	})
	// Cheap keyword tests in front of the regular expressions, which are
	// run only on lines that could match: a bulk import scans megabytes.
	pipeWords   = [][]byte{[]byte("curl"), []byte("wget"), []byte("iwr"), []byte("irm"), []byte("invoke-"), []byte("fetch"), []byte("webclient")}
	ignoreWords = [][]byte{[]byte("ignore"), []byte("disregard"), []byte("forget"), []byte("override")}
)

const minBase64Run = 200

// scanText flags risky text. Invisible and bidirectional-control
// characters are checked in SKILL.md, which the agent reads as
// instructions, and in scripts, where they hide code from a reviewer
// (elsewhere they are legitimate in right-to-left text); Unicode tag
// characters, which smuggle whole ASCII instructions, and terminal control
// characters, which rewrite what a person sees, in every text file. The
// rules of rules.go run on every text file, and again on what an encoded
// string in it decodes to (decode.go). A finding repeated on many lines
// or characters is one finding with a count.
func scanText(p string, data []byte, isSkillMD bool) []Finding {
	sc := newScan(p, data, isSkillMD || isScriptPath(p, data))
	sc.lines()
	sc.injections()
	if isMarkdown(p) {
		sc.htmlComments()
	}
	sc.decoded()
	sc.combine()
	return collapse(sc.out)
}

// scan is one file's pass: the findings so far and the signals (facts
// that are not findings alone) that combine.
type scan struct {
	path        string
	data, lower []byte
	careful     bool // invisible characters matter here
	script      bool // a script: comments are not run
	markdown    bool
	out         []Finding
	sig         map[string][]int // signal name → lines
}

func newScan(p string, data []byte, careful bool) *scan {
	return &scan{path: p, data: data, lower: asciiLower(data), careful: careful,
		script: isScriptPath(p, data) && !isMarkdown(p), markdown: isMarkdown(p), sig: map[string][]int{}}
}

func (s *scan) add(line int, r Rule, level RiskLevel, msg string) {
	if msg == "" {
		msg = r.Reason
	}
	s.out = append(s.out, Finding{Level: level, Path: s.path, Line: line, Message: msg, Rule: r.ID})
}

func (s *scan) signal(name string, line int) { s.sig[name] = append(s.sig[name], line) }

// lines runs the line rules and the character checks.
func (s *scan) lines() {
	data, lower := s.data, s.lower
	var wrapped base64Lines
	var heading, prev []byte
	for n, off := 1, 0; off < len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line, low := data[off:end], lower[off:end]
		off = end + 1
		ctx := lineContext{line: line, low: low, prev: prev, heading: heading, script: s.script, markdown: s.markdown}
		if containsAny(low, pipeWords) {
			if m := pipeToShell().FindIndex(line); m != nil {
				r := rulePipe
				if vendorInstaller(line) {
					r = ruleVendorPipe
				}
				s.ruleHit(n, r, ctx, m, pipeMessage(r, line, m))
			}
		}
		for i, lr := range lineRules {
			re := compiledLineRules()[i]
			if re == nil || !containsAnyString(low, lr.words) {
				continue
			}
			if m := re.FindIndex(line); m != nil && !(lr.ID == ruleStealth.ID && negated(low, m[0])) {
				s.ruleHit(n, lr.Rule, ctx, m, "")
			}
		}
		s.signals(n, line, low, ctx)
		if hasBase64Run(line) {
			s.add(n, ruleBase64, RiskMedium, "")
		} else if first := wrapped.next(n, line); first > 0 {
			s.add(first, ruleBase64, RiskMedium, "long base64 blob wrapped over several lines (hidden payload?)")
		}
		if c, ok := controlByte(line); ok {
			if c == "0x1B" || bytes.IndexByte(line, 0x1b) >= 0 { // ESC starts what a terminal acts on
				s.add(n, ruleControl, RiskHigh, "terminal control character 0x1B (can rewrite what a terminal shows)")
			} else {
				s.add(n, ruleControl, RiskMedium, fmt.Sprintf("control character %s (unusual in text; a terminal may act on it)", c))
			}
		}
		if !isASCII(line) {
			s.runes(n, line)
		}
		if s.markdown && bytes.HasPrefix(line, []byte("#")) {
			heading = low
		}
		if len(bytes.TrimSpace(line)) > 0 {
			prev = low
		}
	}
}

// ruleHit records a line rule's match, lowered to medium where the line
// discusses it rather than asks for it.
func (s *scan) ruleHit(n int, r Rule, ctx lineContext, m []int, msg string) {
	if msg == "" {
		msg = r.Reason + ": " + excerpt(ctx.line, m)
	}
	level := r.Level
	if r.ID == rulePersist.ID && setsEnvironmentOnly(ctx.low) {
		r, level, msg = ruleProfileEnv, ruleProfileEnv.Level, ruleProfileEnv.Reason+": "+excerpt(ctx.line, m)
	}
	if why := ctx.discussed(m[0]); why != "" && level > RiskMedium {
		level, msg = RiskMedium, msg+" ("+why+"; not an instruction, check it)"
	} else if level >= RiskHigh {
		s.signal(r.ID, n)
	}
	s.add(n, r, level, msg)
}

// setsEnvironmentOnly reports a line appending to a shell profile only
// an export, a PATH, an alias or a tool's documented init line, with
// nothing fetched or run from elsewhere: what install guides tell you to
// add, not a way back in.
func setsEnvironmentOnly(low []byte) bool {
	if !containsAnyString(low, []string{"export ", "path=", "alias ", "eval \"$(", "eval '$(", "source ", ". \"$home", "completion"}) {
		return false
	}
	return !containsAnyString(low, []string{"curl", "wget", "http", "/tmp/", "base64", "/dev/tcp", "nc ", "python -c", "python3 -c", "nohup"})
}

// runes checks a line's non-ASCII characters: invisible ones (where they
// matter), tag characters (everywhere; a run of them is decoded and
// reported once), C1 controls. The parts of emoji sequences (a joiner
// between two emoji, the tags of a subdivision flag) are not invisible.
func (s *scan) runes(n int, line []byte) {
	var prev rune
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		if r == 0x1F3F4 { // black flag: the tags after it spell a region
			if j := flagTags(line[i+size:]); j > 0 {
				i += size + j
				prev = r
				continue
			}
		}
		if r >= 0xE0000 && r <= 0xE007F {
			j, hidden := tagRun(line[i:])
			s.add(n, ruleTags, RiskCritical, fmt.Sprintf("%d Unicode tag characters hide text the agent reads and a person does not see: %q", utf8.RuneCount(line[i:i+j]), clipString(hidden, 80)))
			i += j
			continue
		}
		if r == 0x200D && isEmoji(prev) {
			if next, _ := utf8.DecodeRune(line[i+size:]); isEmoji(next) {
				i += size
				prev = r
				continue
			}
		}
		level, name := invisibleRune(r, n == 1 && i == 0)
		if name != "" && s.careful {
			s.add(n, ruleInvisible, level, fmt.Sprintf("invisible or bidirectional-control character U+%04X (%s)", r, name))
		}
		if name == "" && r >= 0x80 && r <= 0x9f {
			level := RiskMedium // C1 controls that open a sequence are what terminals act on
			if r == 0x9b || r == 0x9d || r == 0x90 || r == 0x9e || r == 0x9f {
				level = RiskHigh
			}
			s.add(n, ruleControl, level, fmt.Sprintf("terminal control character U+%04X (can rewrite what a terminal shows)", r))
		}
		prev = r
		i += size
	}
}

// injections matches prompt injections over the whole text, so that a
// line break between the words does not hide one.
func (s *scan) injections() {
	if !containsAny(s.lower, ignoreWords) {
		return
	}
	for _, m := range ignorePrior().FindAllIndex(s.data, -1) {
		line := 1 + bytes.Count(s.data[:m[0]], []byte("\n"))
		switch {
		case quotedWarning(s.data, s.lower, m[0], m[1]):
			s.add(line, ruleIgnore, RiskMedium, "quotes a prompt-injection phrase in a warning (not an instruction; check the quote)")
		case s.script && inComment(s.data, m[0]):
			s.add(line, ruleIgnore, RiskMedium, "quotes a prompt-injection phrase in a code comment (not an instruction; check it)")
		default:
			s.signal(ruleIgnore.ID, line)
			s.add(line, ruleIgnore, RiskCritical, "")
		}
	}
}

// collapse makes the findings of one rule at one level in one file a
// single finding (the first, with a count), in line order.
func collapse(in []Finding) []Finding {
	sort.SliceStable(in, func(i, j int) bool { return in[i].Line < in[j].Line })
	type key struct {
		rule  string
		level RiskLevel
		msg   string
	}
	idx := map[key]int{}
	counts := map[int]int{}
	var out []Finding
	for _, f := range in {
		k := key{f.Rule, f.Level, ""}
		if f.Rule == "" {
			k.msg = f.Message
		}
		if i, ok := idx[k]; ok {
			counts[i]++
			continue
		}
		idx[k] = len(out)
		counts[len(out)] = 1
		out = append(out, f)
	}
	for i := range out {
		if n := counts[i]; n > 1 {
			out[i].Message += fmt.Sprintf(" (%d times in this file)", n)
		}
	}
	return out
}

// base64Lines follows consecutive lines made only of base64 characters, as
// base64 -w 76 and MIME wrap a payload, so that a blob split over lines is
// flagged like one long run.
type base64Lines struct {
	first, chars int
	reported     bool
}

// minWrappedLine is the shortest line counted as part of a wrapped blob
// (encoders wrap at 60, 64 or 76 columns; the last line may be shorter but
// a blob long enough to flag has full lines before it).
const minWrappedLine = 40

// next takes line n and returns the first line of a wrapped blob when it
// has just grown to minBase64Run characters, else 0.
func (b *base64Lines) next(n int, line []byte) int {
	line = bytes.TrimRight(line, "\r")
	if len(line) < minWrappedLine || !isBase64Line(line) {
		*b = base64Lines{}
		return 0
	}
	if b.chars == 0 {
		b.first = n
	}
	b.chars += len(line)
	if b.chars >= minBase64Run && !b.reported {
		b.reported = true
		return b.first
	}
	return 0
}

func isBase64Line(line []byte) bool {
	letters := 0
	for _, c := range bytes.TrimRight(line, "=") {
		switch {
		case 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
			letters++
		case '0' <= c && c <= '9' || c == '+' || c == '/':
		default:
			return false
		}
	}
	return letters > 0
}

// controlByte finds an ASCII control character other than tab, line feed,
// carriage return and form feed: ESC starts the escape sequences that
// clear a screen, move the cursor or (OSC 52) write the clipboard.
func controlByte(line []byte) (string, bool) {
	for _, c := range line {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f {
			return fmt.Sprintf("0x%02X", c), true
		}
	}
	return "", false
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func containsAny(b []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasBase64Run reports a run of at least minBase64Run base64 characters.
func hasBase64Run(line []byte) bool {
	if len(line) < minBase64Run {
		return false
	}
	run := 0
	for _, c := range line {
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' {
			if run++; run >= minBase64Run {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// invisibleRune classifies characters that hide text from a human reviewer
// while the model still reads it. Unicode tag characters can smuggle whole
// ASCII instructions and are critical.
func invisibleRune(r rune, atStart bool) (RiskLevel, string) {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return RiskCritical, "tag character"
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return RiskHigh, "bidirectional control"
	case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064, r == 0x00AD, r == 0x180E:
		return RiskHigh, "zero-width"
	case r == 0xFEFF && !atStart:
		return RiskHigh, "zero-width no-break space"
	}
	return RiskNone, ""
}

// hasControlName reports a file name holding a character that a terminal
// acts on or that hides text: C0 and C1 controls, DEL, and the invisible
// and bidirectional characters invisibleRune names.
func hasControlName(name string) bool {
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return true
		}
		if _, what := invisibleRune(r, false); what != "" {
			return true
		}
	}
	return false
}

// frontmatterControls flags control characters that YAML escapes (\e,
// \x1b, \u009b) put into SKILL.md's frontmatter values, which list, show
// and prompt print: the file's text holds none, the decoded values do.
func frontmatterControls(data []byte) []Finding {
	sf, err := discover.Parse(data)
	if err != nil {
		return nil
	}
	values := fmt.Sprintf("%v", sf.Frontmatter)
	if c, ok := controlByte([]byte(values)); ok {
		return []Finding{{Level: RiskHigh, Path: skillmd.FileName, Line: sf.FrontmatterLine, Rule: ruleControl.ID,
			Message: fmt.Sprintf("frontmatter value holds terminal control character %s (can rewrite what a terminal shows)", c)}}
	}
	for _, r := range values {
		if r >= 0x80 && r <= 0x9f {
			return []Finding{{Level: RiskHigh, Path: skillmd.FileName, Line: sf.FrontmatterLine, Rule: ruleControl.ID,
				Message: fmt.Sprintf("frontmatter value holds terminal control character U+%04X (can rewrite what a terminal shows)", r)}}
		}
	}
	return nil
}

func hasKind(findings []Finding, words string) bool {
	for _, f := range findings {
		if strings.Contains(f.Message, words) {
			return true
		}
	}
	return false
}
