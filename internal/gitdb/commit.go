package gitdb

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signature is a commit's author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s Signature) encode() string {
	return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, s.When.Unix(), s.When.Format("-0700"))
}

func parseSignature(line string) Signature {
	lt := strings.IndexByte(line, '<')
	gt := strings.LastIndexByte(line, '>')
	if lt < 0 || gt < lt {
		return Signature{Name: line}
	}
	s := Signature{Name: strings.TrimSpace(line[:lt]), Email: line[lt+1 : gt]}
	fields := strings.Fields(line[gt+1:])
	if len(fields) >= 1 {
		sec, _ := strconv.ParseInt(fields[0], 10, 64)
		s.When = time.Unix(sec, 0)
		if len(fields) >= 2 {
			if t, err := time.Parse("-0700", fields[1]); err == nil {
				s.When = s.When.In(t.Location())
			}
		}
	}
	return s
}

// Commit is a decoded commit object.
type Commit struct {
	Hash      ID
	Tree      ID
	Parents   []ID
	Author    Signature
	Committer Signature
	Message   string
}

// Encode returns the commit object's content as git writes it (c.Hash is
// not part of it).
func (c *Commit) Encode() []byte {
	var b strings.Builder
	b.WriteString("tree " + c.Tree.String() + "\n")
	for _, p := range c.Parents {
		b.WriteString("parent " + p.String() + "\n")
	}
	b.WriteString("author " + c.Author.encode() + "\n")
	b.WriteString("committer " + c.Committer.encode() + "\n\n")
	b.WriteString(c.Message)
	return []byte(b.String())
}

// ParseCommit decodes the content of commit object h. Headers it does not
// know (gpgsig, encoding, ...) are skipped; a commit without a tree is an
// error.
func ParseCommit(h ID, data []byte) (*Commit, error) {
	c := &Commit{Hash: h}
	header, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(header), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			t, ok := parseID(val)
			if !ok {
				return nil, fmt.Errorf("commit %s: bad tree %q", h, val)
			}
			c.Tree = t
		case "parent":
			p, ok := parseID(val)
			if !ok {
				return nil, fmt.Errorf("commit %s: bad parent %q", h, val)
			}
			c.Parents = append(c.Parents, p)
		case "author":
			c.Author = parseSignature(val)
		case "committer":
			c.Committer = parseSignature(val)
		}
	}
	if c.Tree.IsZero() {
		return nil, fmt.Errorf("commit %s: no tree", h)
	}
	return c, nil
}

// Subject is the first line of the commit message.
func (c *Commit) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

// Trailer is one "Key: value" line at the end of a commit message.
type Trailer struct {
	Key   string
	Value string
}

// Trailers returns the trailers of the message's last paragraph.
func (c *Commit) Trailers() []Trailer {
	msg := strings.TrimRight(c.Message, "\n")
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return nil
	}
	var out []Trailer
	for _, line := range strings.Split(msg[i+2:], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil // not a trailer paragraph
		}
		out = append(out, Trailer{Key: k, Value: v})
	}
	return out
}

// Trailer returns the value of the last trailer named key.
func (c *Commit) Trailer(key string) string {
	v := ""
	for _, t := range c.Trailers() {
		if strings.EqualFold(t.Key, key) {
			v = t.Value
		}
	}
	return v
}

// Body is the message without its subject and trailer paragraph.
func (c *Commit) Body() string {
	msg := strings.TrimRight(c.Message, "\n")
	_, rest, _ := strings.Cut(msg, "\n")
	rest = strings.TrimLeft(rest, "\n")
	if len(c.Trailers()) > 0 {
		if i := strings.LastIndex(rest, "\n\n"); i >= 0 {
			rest = rest[:i]
		} else {
			rest = ""
		}
	}
	return strings.TrimSpace(rest)
}

// BuildMessage assembles a commit message from a subject, an optional body
// and trailers. Newlines inside trailer values are folded to spaces so every
// trailer stays one line.
func BuildMessage(subject, body string, trailers []Trailer) string {
	var b strings.Builder
	b.WriteString(OneLine(subject))
	b.WriteString("\n")
	if body = strings.TrimSpace(body); body != "" {
		b.WriteString("\n" + body + "\n")
	}
	if len(trailers) > 0 {
		b.WriteString("\n")
		for _, t := range trailers {
			if t.Value == "" {
				continue
			}
			b.WriteString(t.Key + ": " + OneLine(t.Value) + "\n")
		}
	}
	return b.String()
}

// OneLine folds s to one line: runs of white space, newlines included,
// become one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
