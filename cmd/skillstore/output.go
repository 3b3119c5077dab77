package main

import (
	"encoding/json"
	"io"
)

// writeJSON writes v as indented JSON followed by a newline. Every --json
// output goes through here so scripts see one consistent format.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(rawWriter(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
