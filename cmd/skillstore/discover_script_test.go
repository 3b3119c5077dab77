package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillstore/skillstore/discover"
)

func init() {
	addScriptCmd("copyfixture", cmdCopyFixture)
	addScriptCmd("mkskill", cmdMkSkill)
	addScriptCmd("skillids", cmdSkillIDs)
	addScriptCmd("expandenv", cmdExpandEnv)
}

// cmdExpandEnv copies SRC to DST with $VAR and ${VAR} replaced by the
// scenario's variables, for files that must hold absolute paths (Claude
// Code's installed_plugins.json): expandenv SRC DST.
func cmdExpandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expandenv SRC DST")
	}
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

// cmdSkillIDs writes "qualified-name layer id" per skill of the last
// 'discover --json' output to FILE, so two runs' ids can be compared
// with cmp, and fails when two skills share an id: skillids FILE.
func cmdSkillIDs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: skillids FILE")
	}
	var out struct {
		Skills []struct {
			ID            string `json:"id"`
			QualifiedName string `json:"qualified_name"`
			Layer         string `json:"layer"`
		} `json:"skills"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &out))
	var b strings.Builder
	seen := map[string]string{}
	for _, s := range out.Skills {
		if other, dup := seen[s.ID]; dup {
			ts.Fatalf("skillids: %s and %s share the id %s", other, s.QualifiedName, s.ID)
		}
		seen[s.ID] = s.QualifiedName
		fmt.Fprintf(&b, "%s %s %s\n", s.QualifiedName, s.Layer, s.ID)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// cmdCopyFixture copies a fixture tree from testdata/skills into the
// scenario: copyfixture NAME DIR.
func cmdCopyFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: copyfixture NAME DIR")
	}
	src := filepath.Join("..", "..", "testdata", "skills", args[0])
	dst := ts.MkAbs(args[1])
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	ts.Check(err)
}

// skillKinds are SKILL.md files whose bytes a txtar cannot hold or
// should not (invalid UTF-8, CRLF, a BOM, megabytes).
var skillKinds = map[string]func(name string) []byte{
	"bom": func(name string) []byte {
		return []byte("\ufeff---\nname: " + name + "\ndescription: Saved by an editor that writes a byte order mark.\n---\nbody\n")
	},
	"crlf": func(name string) []byte {
		return []byte("---\r\nname: " + name + "\r\ndescription: Saved on Windows.\r\n---\r\n# Body\r\n")
	},
	"nonutf8": func(name string) []byte {
		return []byte("---\nname: " + name + "\ndescription: Saved as Latin-1, caf\xe9.\n---\nbody\n")
	},
	"utf16": func(name string) []byte {
		return []byte("\xff\xfe-\x00-\x00-\x00\n\x00")
	},
	"big": func(name string) []byte {
		head := "---\nname: " + name + "\ndescription: Far too big.\n---\n"
		return append([]byte(head), bytes.Repeat([]byte("All work and no play.\n"), discover.MaxFileSize/22+1)...)
	},
	"aliasbomb": func(name string) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nname: %s\ndescription: A billion laughs.\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n", name)
		for i := 1; i < 10; i++ {
			fmt.Fprintf(&b, "a%d: &a%d [", i, i)
			for j := 0; j < 9; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "*a%d", i-1)
			}
			b.WriteString("]\n")
		}
		b.WriteString("---\nboom\n")
		return []byte(b.String())
	},
}

// cmdMkSkill writes DIR/SKILL.md of a kind a txtar cannot carry:
// mkskill bom|crlf|nonutf8|utf16|big|aliasbomb DIR. The skill's name is
// DIR's base name.
func cmdMkSkill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mkskill bom|crlf|nonutf8|utf16|big|aliasbomb DIR")
	}
	gen, ok := skillKinds[args[0]]
	if !ok {
		ts.Fatalf("mkskill: unknown kind %q", args[0])
	}
	dir := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.WriteFile(filepath.Join(dir, "SKILL.md"), gen(filepath.Base(dir)), 0o644))
}
