package safety_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
)

// TestCatalogRate measures how many skills of real catalogs the safety
// check holds (high) or refuses (critical): SKILLSTORE_CATALOGS names a
// folder whose subfolders are catalogs (checkouts of public skill
// repositories), and every folder holding a SKILL.md in them is checked
// as a new skill with all its files. It prints the share per catalog and
// one line per held or refused skill with its findings at that level.
// docs/design/security.md gives the catalogs and the figures. Without the
// variable it is skipped: the catalogs are not part of this repository.
func TestCatalogRate(t *testing.T) {
	root := os.Getenv("SKILLSTORE_CATALOGS")
	if root == "" {
		t.Skip("SKILLSTORE_CATALOGS is not set (a folder of catalog checkouts)")
	}
	catalogs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var total, totalHeld, totalRefused int
	for _, c := range catalogs {
		if !c.IsDir() {
			continue
		}
		dir := filepath.Join(root, c.Name())
		var skills []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() && d.Name() == "SKILL.md" {
				skills = append(skills, filepath.Dir(p))
			}
			return nil
		})
		sort.Strings(skills)
		held, refused, rejected := 0, 0, 0
		var lines []string
		for _, sk := range skills {
			files := readSkill(t, sk)
			rep, err := safety.Check(filepath.Base(sk), files, nil, skillfs.DefaultLimits)
			if err != nil {
				rejected++
				continue
			}
			if rep.Risk < safety.RiskHigh {
				continue
			}
			if rep.Risk == safety.RiskCritical {
				refused++
			} else {
				held++
			}
			rel, _ := filepath.Rel(dir, sk)
			var worst []string
			for _, f := range rep.Findings {
				if f.Level == rep.Risk {
					worst = append(worst, f.String())
				}
			}
			lines = append(lines, fmt.Sprintf("  %s %s: %s", c.Name(), rel, strings.Join(worst, " | ")))
		}
		n := len(skills) - rejected
		total, totalHeld, totalRefused = total+n, totalHeld+held, totalRefused+refused
		fmt.Printf("catalog %s: %d skills (%d rejected outright), %d held (high, %.1f%%), %d refused (critical, %.1f%%)\n",
			c.Name(), n, rejected, held, pct(held, n), refused, pct(refused, n))
		for _, l := range lines {
			fmt.Println(l)
		}
	}
	fmt.Printf("all catalogs: %d skills, %d held (%.1f%%), %d refused (%.1f%%)\n", total, totalHeld, pct(totalHeld, total), totalRefused, pct(totalRefused, total))
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// readSkill reads a skill folder's files as the store would take them
// (regular files and executables; links and nested .git skipped).
func readSkill(t *testing.T, dir string) []skillfs.File {
	var files []skillfs.File
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		f := skillfs.File{Path: filepath.ToSlash(rel), Mode: skillfs.Regular, Size: info.Size()}
		if info.Mode()&0o111 != 0 {
			f.Mode = skillfs.Executable
		}
		if info.Size() <= skillfs.DefaultLimits.MaxFileSize {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f.Data = data
		}
		files = append(files, f.WithID())
		return nil
	})
	return files
}
