package discover

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// addSeeds adds every fixture SKILL.md and a few malformed inputs.
func addSeeds(f *testing.F, add func(data []byte)) {
	err := filepath.WalkDir(fixtures, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != skillmd.FileName {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil {
			add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"", "---", "---\n---\n", "\ufeff---\r\nname: x\r\n---\r\n", "---\nname: [\n---\n",
		"---\n- a\n---\n", "---\na: &a [x]\nb: *a\n---\n", "---\nname: x\nname: y\n---\n",
		"---\nmetadata:\n  k: {a: b}\nhooks: [x]\nuser-invocable: maybe\n---\n", "caf\xe9",
		"---\nname: a\n\tdescription: b\n---\n", "---\n? [a]\n: b\n---\n",
		"---\nlimits: {1: one, .inf: x}\nratio: .nan\nallowed_tools: [Read]\nallowed-tools: Write\n---\n",
	} {
		add([]byte(s))
	}
}

// FuzzParse checks that Parse never panics, returns only *skillmd.ParseError, and
// that the body it returns is the end of the input.
func FuzzParse(f *testing.F) {
	addSeeds(f, func(data []byte) { f.Add(data) })
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := Parse(data)
		if err != nil {
			var pe *skillmd.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *skillmd.ParseError: %v", err, err)
			}
			if pe.Line < 0 || pe.Msg == "" {
				t.Fatalf("bad ParseError %+v", pe)
			}
			return
		}
		if !bytes.HasSuffix(data, sf.Body) || !bytes.Contains(data, sf.RawFrontmatter) {
			t.Fatalf("body or frontmatter is not part of the input")
		}
		if sf.BodyLine < 3 || sf.FrontmatterLine != 2 {
			t.Fatalf("BodyLine %d FrontmatterLine %d", sf.BodyLine, sf.FrontmatterLine)
		}
		// Every parsed frontmatter can be written as --json output.
		if _, err := json.Marshal(sf.Frontmatter.Fields()); err != nil {
			t.Fatalf("frontmatter fields are not JSON: %v", err)
		}
		// Body agrees with Parse on where the body starts.
		if body, err := skillmd.Body(data); err != nil || !bytes.Equal(body, sf.Body) {
			t.Fatalf("Body = %q, %v; Parse's body %q", body, err, sf.Body)
		}
	})
}

// FuzzValidate checks that ValidateFile never panics and that every
// diagnostic is well formed; a file that did not parse must carry an error.
func FuzzValidate(f *testing.F) {
	addSeeds(f, func(data []byte) { f.Add("pdf", data, false); f.Add("pdf", data, true) })
	f.Fuzz(func(t *testing.T, folder string, data []byte, strict bool) {
		mode := Lenient
		if strict {
			mode = Strict
		}
		sf, diags := ValidateFile("s/SKILL.md", folder, data, mode)
		if sf == nil && !HasErrors(diags) {
			t.Fatal("unparsed file without an error diagnostic")
		}
		for _, d := range diags {
			if d.File != "s/SKILL.md" || d.Line < 0 || d.Message == "" ||
				(d.Severity != SeverityError && d.Severity != SeverityWarning) {
				t.Fatalf("malformed diagnostic %+v", d)
			}
		}
		if sf != nil {
			_ = EffectiveName(sf, folder, mode)
		}
	})
}
