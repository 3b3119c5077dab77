package discover

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/safefile"
)

// ManifestFile lists a project's skill folders, one path per line,
// relative to the folder holding the file. Blank lines and lines starting
// with '#' are ignored. Each path is a root of the manifest layer: a skill
// folder or a folder of skills. Paths must stay inside the repository (or,
// outside one, inside the manifest's folder); absolute paths and paths
// leaving it are reported and ignored. The file is read in the working
// directory and each parent up to the repository root, nearest first.
const ManifestFile = ".skillstore-skills"

// readManifest returns the roots listed in dir's ManifestFile, if any,
// and a diagnostic for every line it ignores.
func readManifest(dir projectDir) ([]Root, []Diagnostic) {
	file := filepath.Join(dir.path, ManifestFile)
	// A cloned project's file: read only as a regular file, bounded.
	data, err := safefile.ReadFile(file, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, []Diagnostic{warningAt(file, 0, "file is over %d bytes; a skill list is one folder per line", MaxFileSize)}
	}
	if err != nil {
		return nil, []Diagnostic{warningAt(file, 0, "cannot read the project's skill list: %v; its folders are not searched", unwrapPathError(err))}
	}
	var roots []Root
	var diags []Diagnostic
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxFileSize)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := filepath.FromSlash(line)
		if filepath.IsAbs(p) {
			diags = append(diags, warningAt(file, n, "%q is an absolute path; list folders relative to %s, ignored", line, dir.path))
			continue
		}
		target := filepath.Join(dir.path, p)
		if !within(target, dir.top) {
			diags = append(diags, warningAt(file, n, "%q leaves the project %s; list folders inside it, ignored", line, dir.top))
			continue
		}
		rel, _ := filepath.Rel(dir.top, target)
		listed := warningAt(file, n, "")
		roots = append(roots, Root{Path: target, Layer: LayerManifest, Label: "<project>/" + filepath.ToSlash(rel), listedAt: &listed})
	}
	return roots, diags
}
