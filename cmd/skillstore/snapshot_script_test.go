package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// snapshot DIR... > FILE lists every file, folder and symlink under each
// DIR with its mode and a hash of its content (or link target), so a
// scenario can show, with cmp, that a command wrote nothing: refs, state,
// objects, caches and target folders byte for byte.
func init() { addScriptCmd("snapshot", cmdSnapshot) }

func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! snapshot")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: snapshot DIR...")
	}
	var b strings.Builder
	for _, arg := range args {
		root := ts.MkAbs(arg)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == root {
					fmt.Fprintf(&b, "%s: absent\n", arg)
					return nil
				}
				return err
			}
			rel, _ := filepath.Rel(root, p)
			info, err := d.Info()
			if err != nil {
				return err
			}
			var sum string
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				sum = "-> " + target
			case d.Type().IsRegular():
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				sum = fmt.Sprintf("%x", sha256.Sum256(data))
			}
			fmt.Fprintf(&b, "%s/%s %s %s\n", arg, filepath.ToSlash(rel), info.Mode(), sum)
			return nil
		})
		ts.Check(err)
	}
	ts.Stdout().Write([]byte(b.String()))
}
