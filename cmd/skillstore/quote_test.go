package main

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// A name holding a newline or a tab is printed quoted as git quotes a path,
// on one line; the format's own newlines and tabs stay.
func TestPrintfQuotesArguments(t *testing.T) {
	var b bytes.Buffer
	printf(&b, "%s\t%s\n", "evil\nadded x@v9: forged.md", "tab\tname")
	printf(&b, "%d %s %v\n", 3, errors.New("read a\nb: no"), []string{"ok", "x\ry"})
	printLine(&b, "plain", "quote\"and\\backslash")
	printf(&b, "%s\n", quoted("kept\n  as it is"))
	want := `"evil\nadded x@v9: forged.md"` + "\t" + `"tab\tname"` + "\n" +
		`3 "read a\nb: no" [ok "x\ry"]` + "\n" +
		`plain quote"and\backslash` + "\n" +
		"kept\n  as it is\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// Every human-readable output of the CLI goes through printf or printLine
// (or a table, or quoteText): a fmt.Fprint call in the commands
// may only write to a strings.Builder or a buffer (&b), or to rawWriter's
// stream after quoting what it prints itself.
func TestOutputGoesThroughPrintf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || file == "quote.go" {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Fprint") {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "fmt" {
				return true
			}
			if !rawDestination(call.Args[0]) {
				t.Errorf("%s: fmt.%s to %s: print with printf or printLine, which quote names", fset.Position(call.Pos()), sel.Sel.Name, exprText(call.Args[0]))
			}
			return true
		})
	}
}

// rawDestination reports whether w, a fmt.Fprint call's writer, is a
// buffer being built (&b) or the raw stream under the escaping (rawWriter
// of a writer, or a variable named raw holding it).
func rawDestination(w ast.Expr) bool {
	switch w := w.(type) {
	case *ast.UnaryExpr:
		return w.Op == token.AND
	case *ast.Ident:
		return w.Name == "raw" || w.Name == "b"
	case *ast.CallExpr:
		fn, ok := w.Fun.(*ast.Ident)
		return ok && fn.Name == "rawWriter"
	}
	return false
}

func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		return exprText(e.Fun) + "(...)"
	}
	return "a writer"
}
