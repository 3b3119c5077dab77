package cliout

import (
	"encoding/json"
	"io"
)

// JSON writes v as indented JSON followed by a newline. Every --json
// output goes through here so scripts see one consistent format.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(Raw(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
