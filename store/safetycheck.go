package store

import "github.com/skillstore/skillstore/store/safety"

// WithPluginFindings adds what a plugin's parts declare to run (hooks,
// MCP and LSP servers, safety.PluginFindings) to the safety report of the
// parts' new tree. previous are the published parts (IDs only): the
// declaration files among them are read here.
func (r *Reader) WithPluginFindings(rep safety.Report, files, previous []File) safety.Report {
	prev := make([]File, len(previous))
	copy(prev, previous)
	for i, f := range prev {
		if f.Data == nil && safety.IsPluginConfig(f.Path) {
			if data, err := r.Blob(f.ID); err == nil {
				prev[i].Data = data
			}
		}
	}
	rep.Findings = append(rep.Findings, safety.PluginFindings(files, prev)...)
	return safety.NewReport(rep.Findings)
}

// FilesOrNil lists a stored tree's files (hashes only), nil on error: the
// safety check uses them only to spot changed scripts.
func (r *Reader) FilesOrNil(tree Hash) []File {
	files, err := r.Files(tree)
	if err != nil {
		return nil
	}
	return files
}
