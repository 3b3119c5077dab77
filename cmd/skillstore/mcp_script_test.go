package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("mcpcall", mcpCall)
}

// mcpCall starts 'skillstore mcp' (the binary on the scenario's PATH, on
// $SKILLSTORE_DIR, with any flags before --) as an agent does, speaks MCP
// to it with the official SDK's client (named mcp-script) and makes the
// calls given as TOOL JSON pairs, printing each result as
//
//	== TOOL (error)?
//	TEXT
//
// so a scenario can check what an agent gets:
//
//	mcpcall [FLAG...] -- TOOL JSON [TOOL JSON]...
func mcpCall(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! mcpcall")
	}
	var flags []string
	for i, a := range args {
		if a == "--" {
			flags, args = args[:i], args[i+1:]
			break
		}
	}
	if len(args) == 0 || len(args)%2 != 0 {
		ts.Fatalf("usage: mcpcall [FLAG...] -- TOOL JSON [TOOL JSON]...")
	}
	bin, err := exec.LookPath("skillstore")
	ts.Check(err)
	cmd := exec.Command(bin, append([]string{"--store", ts.Getenv("SKILLSTORE_DIR"), "mcp"}, flags...)...)
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "TZ", "NO_COLOR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	cmd.Stderr = ts.Stderr()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "mcp-script", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	ts.Check(err)
	defer session.Close()
	for i := 0; i < len(args); i += 2 {
		var in map[string]any
		if err := json.Unmarshal([]byte(args[i+1]), &in); err != nil {
			ts.Fatalf("mcpcall %s: arguments %s: %v", args[i], args[i+1], err)
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: args[i], Arguments: in})
		if err != nil {
			fmt.Fprintf(ts.Stdout(), "== %s (protocol error)\n%v\n", args[i], err)
			continue
		}
		mark := ""
		if res.IsError {
			mark = " (error)"
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		fmt.Fprintf(ts.Stdout(), "== %s%s\n%s\n", args[i], mark, strings.TrimRight(text.String(), "\n"))
	}
}
