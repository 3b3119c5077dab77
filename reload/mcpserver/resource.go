package mcpserver

import (
	"context"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// uriScheme starts every resource URI: skill:///NAME/PATH. The qualified
// name is the first path element (PLUGIN:SKILL holds a colon, which a URI
// host cannot).
const uriScheme = "skill:///"

func skillURI(name, path string) string { return uriScheme + name + "/" + path }

// parseURI splits a resource URI into a skill name and a file path.
func parseURI(uri string) (name, path string, ok bool) {
	rest, ok := strings.CutPrefix(uri, uriScheme)
	if !ok {
		return "", "", false
	}
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	name, path, ok = strings.Cut(rest, "/")
	return name, path, ok && name != "" && path != ""
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, p, ok := parseURI(uri)
	if !ok || checkPath(p) != "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	v, res := s.open(ctx, "resources/read", name)
	if res != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	f := v.file(p)
	if f == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if p == "SKILL.md" {
		s.audit(req.Session, req.Extra, v.Skill, nil, "resources/read")
	}
	c := &mcp.ResourceContents{URI: uri}
	if utf8.Valid(f.Data) {
		c.Text, c.MIMEType = string(f.Data), "text/plain"
		if strings.HasSuffix(p, ".md") {
			c.MIMEType = "text/markdown"
		}
	} else {
		c.Blob, c.MIMEType = f.Data, "application/octet-stream"
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}
