package projectlock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	commitA = "0123456789abcdef0123456789abcdef01234567"
	treeA   = "fe18a69067bf7387dcf92c40cf78708c96c97ff3"
	treeB   = "ce99d0007a93ae59a0f5eedf67a7827c27c27212"
)

// goodLock is a lock as 'skillstore lock' writes it.
func goodLock() *Lock {
	return &Lock{
		Version: FormatVersion,
		Remote:  &Remote{Name: "origin", URL: "git@git.example.com:team/skills.git"},
		Plugins: []Plugin{{ID: "acme", Kind: "git", URL: "https://github.com/acme/skills.git", Ref: "main", Path: "plugins/acme", Commit: commitA, Select: []string{"hello", "!old-*"}}},
		Skills:  []Skill{{Name: "notes", Version: "v2", Tree: treeB, Local: true}, {Name: "acme:hello", Version: "v1", Tree: treeA}},
		Targets: []Target{{Name: "app-claude", Dir: ".claude/skills", Skills: []string{"notes", "acme:hello"}}},
	}
}

// TestRoundTrip checks that what Marshal writes Parse reads back whole,
// sorted, and that marshalling is deterministic.
func TestRoundTrip(t *testing.T) {
	data, err := goodLock().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := goodLock().Marshal()
	if string(data) != string(again) {
		t.Fatal("two marshals of one lock differ")
	}
	l, problems, err := Parse("lock.json", data)
	if err != nil || len(problems) > 0 {
		t.Fatalf("Parse = %v, %v", problems, err)
	}
	if l.Skills[0].Name != "acme:hello" || l.Targets[0].Skills[0] != "acme:hello" {
		t.Errorf("lists not sorted: %+v", l)
	}
	if l.Plugins[0].Commit != commitA || !l.Skills[1].Local || l.Remote.URL != "git@git.example.com:team/skills.git" {
		t.Errorf("fields lost: %+v", l)
	}
}

// TestParseRefusesTheSmallestPart checks each bad entry alone: it is
// refused with its file, line and field, and the rest of the lock is kept.
func TestParseRefusesTheSmallestPart(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(l *Lock)
		want  string // in the problem
		keeps func(l *Lock) bool
	}{
		{"ext URL", func(l *Lock) { l.Plugins[0].URL = "ext::sh -c touch% /tmp/pwned" }, `url: "ext::sh -c touch% /tmp/pwned" is not an absolute git URL or path`, nil},
		{"option URL", func(l *Lock) { l.Plugins[0].URL = "--upload-pack=touch /tmp/pwned" }, "starts with '-'", nil},
		{"control URL", func(l *Lock) { l.Plugins[0].URL = "https://github.com/acme/x\n.git" }, "control character", nil},
		{"relative URL", func(l *Lock) { l.Plugins[0].URL = "../secrets" }, "not an absolute git URL", nil},
		{"scheme", func(l *Lock) { l.Plugins[0].URL = "ftp://host/x" }, `scheme "ftp"`, nil},
		{"short commit", func(l *Lock) { l.Plugins[0].Commit = "0123abc" }, "commit: ", nil},
		{"ref", func(l *Lock) { l.Plugins[0].Ref = "--exec=x" }, "ref: ", nil},
		{"ref dots", func(l *Lock) { l.Plugins[0].Ref = "main/../x" }, "ref: ", nil},
		{"path leaves", func(l *Lock) { l.Plugins[0].Path = "../../etc" }, "path: folder", nil},
		{"plugin id", func(l *Lock) { l.Plugins[0].ID = "Acme/../x" }, "id: ", nil},
		{"select", func(l *Lock) { l.Plugins[0].Select = []string{"[z-a"} }, "select: ", nil},
		{"folder kind with commit", func(l *Lock) { l.Plugins[0].Kind = "folder"; l.Plugins[0].URL = "/srv/x" }, "a folder source has no ref", nil},
		{"target up", func(l *Lock) { l.Targets[0].Dir = "../outside" }, `dir: "../outside"`, func(l *Lock) bool { return len(l.Skills) == 2 }},
		{"target absolute", func(l *Lock) { l.Targets[0].Dir = "/home/me/.claude/skills" }, "dir: ", nil},
		{"target git", func(l *Lock) { l.Targets[0].Dir = ".git/hooks" }, `path component ".git"`, nil},
		{"target GIT", func(l *Lock) { l.Targets[0].Dir = "x/.GIT/y" }, "path component", nil},
		{"target root", func(l *Lock) { l.Targets[0].Dir = "." }, "not its root", nil},
		{"target unclean", func(l *Lock) { l.Targets[0].Dir = "./.claude//skills" }, "not a clean", nil},
		{"target name", func(l *Lock) { l.Targets[0].Name = "App Claude" }, "name: target name", nil},
		{"skill tree", func(l *Lock) { l.Skills[1].Tree = "HEAD" }, "tree: ", func(l *Lock) bool { return len(l.Skills) == 1 && len(l.Plugins) == 1 }},
		{"skill name", func(l *Lock) { l.Skills[0].Name = "../notes" }, "name: ", nil},
		{"skill parts", func(l *Lock) { l.Skills[1].Name = "acme:_plugin" }, "plugin's parts", nil},
		{"skill of no plugin", func(l *Lock) { l.Skills[1].Name = "other:hello" }, "not in the lock's plugins", nil},
		{"version", func(l *Lock) { l.Skills[0].Version = "v0" }, "version: ", nil},
		{"remote password", func(l *Lock) { l.Remote.URL = "https://bob:s3cret@git.example.com/x.git" }, "holds a password", func(l *Lock) bool { return l.Remote == nil && len(l.Plugins) == 1 }},
		{"remote name", func(l *Lock) { l.Remote.Name = "-x" }, "remote name", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := goodLock()
			c.edit(l)
			data, err := l.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			got, problems, err := Parse("proj/skillstore-lock.json", data)
			if err != nil {
				t.Fatalf("the whole file was refused: %v", err)
			}
			if len(problems) == 0 {
				t.Fatalf("nothing refused; want %q", c.want)
			}
			msg := problems[0].Error()
			if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "proj/skillstore-lock.json:") || problems[0].Line < 2 {
				t.Errorf("problem %q: want it to name the file and line and say %q", msg, c.want)
			}
			if c.keeps != nil && !c.keeps(got) {
				t.Errorf("more than the bad part was refused: %+v", got)
			}
		})
	}
}

// TestParseDependents checks that a skill of a refused plugin, and a
// target's skill that is refused, go too, each saying why.
func TestParseDependents(t *testing.T) {
	l := goodLock()
	l.Plugins[0].URL = "ext::evil"
	data, _ := l.Marshal()
	got, problems, err := Parse("lock.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`plugin "acme": url:`, `skill "acme:hello": name: its plugin acme is refused`, `target "app-claude", skill "acme:hello": skills: not a skill of the lock`} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if len(got.Targets) != 1 || len(got.Targets[0].Skills) != 1 || got.Targets[0].Skills[0] != "notes" {
		t.Errorf("the target should keep notes alone: %+v", got.Targets)
	}
}

// TestParseWholeFile checks what refuses the whole file: not JSON (with
// its line), another version, too many entries; and unknown fields,
// which are refused alone.
func TestParseWholeFile(t *testing.T) {
	for name, c := range map[string]struct{ data, want string }{
		"syntax":  {"{\n  \"version\": 1,\n  \"plugins\": [,]\n}\n", "lock.json:3: not valid JSON"},
		"version": {`{"version": 2, "plugins": []}`, "lock file version 2 is not one this skillstore reads"},
		"none":    {`{"plugins": []}`, `no "version"`},
		"array":   {`[]`, "a lock file is a JSON object"},
		"list":    {`{"version": 1, "skills": {}}`, `"skills" must be a list`},
		"many":    {`{"version": 1, "skills": [` + strings.Repeat(`{},`, maxEntries) + `{}]}`, "more than 20000 entries"},
	} {
		_, _, err := Parse("lock.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
	l, problems, err := Parse("lock.json", []byte("{\"version\": 1,\n \"skils\": [],\n \"plugins\": [{\"id\": \"a\", \"kind\": \"git\", \"url\": \"https://x/y\", \"commit\": \""+commitA+"\", \"selct\": [\"x\"]}]}"))
	if err != nil || len(problems) != 2 || len(l.Plugins) != 0 {
		t.Fatalf("unknown fields: %v, %v, %+v", problems, err, l)
	}
	if problems[0].Line != 2 || !strings.Contains(problems[0].Error(), `field "skils"`) || !strings.Contains(problems[1].Error(), `plugin "a": selct: not a field of the format`) || problems[1].Line != 3 {
		t.Errorf("unknown fields: %v", problems)
	}
}

// TestReadBounds checks that Read never reads more than MaxSize, nor a
// file that is not a regular file, and says when there is no lock.
func TestReadBounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(big); err == nil || !strings.Contains(err.Error(), "big.json") {
		t.Errorf("a lock over MaxSize: %v", err)
	}
	if _, _, err := Read(dir); err == nil {
		t.Error("a folder was read as a lock file")
	}
	if _, _, err := Read(filepath.Join(dir, "none.json")); !errors.Is(err, ErrNoLock) {
		t.Errorf("no lock: %v, want ErrNoLock", err)
	}
}
