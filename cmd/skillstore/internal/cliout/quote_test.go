package cliout

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

// A name holding a newline or a tab is printed Quoted as git quotes a path,
// on one line; the format's own newlines and tabs stay.
func TestPrintfQuotesArguments(t *testing.T) {
	var b bytes.Buffer
	Printf(&b, "%s\t%s\n", "evil\nadded x@v9: forged.md", "tab\tname")
	Printf(&b, "%d %s %v\n", 3, errors.New("read a\nb: no"), []string{"ok", "x\ry"})
	Println(&b, "plain", "quote\"and\\backslash")
	Printf(&b, "%s\n", Quoted("kept\n  as it is"))
	want := `"evil\nadded x@v9: forged.md"` + "\t" + `"tab\tname"` + "\n" +
		`3 "read a\nb: no" [ok "x\ry"]` + "\n" +
		`plain quote"and\backslash` + "\n" +
		"kept\n  as it is\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// Every human-readable output of the CLI goes through Printf or Println
// (or a table, or Quote): a fmt.Fprint call in the commands
// (cmd/skillstore), the workflows (cmd/skillstore/app) or here may only
// write to a strings.Builder or a buffer (&b), or to Raw's stream after
// quoting what it prints itself.
func TestOutputGoesThroughPrintf(t *testing.T) {
	var files []string
	for _, dir := range []string{".", filepath.Join("..", ".."), filepath.Join("..", "..", "app")} {
		found, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
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
				t.Errorf("%s: fmt.%s to %s: print with cliout.Printf or Println, which quote names", fset.Position(call.Pos()), sel.Sel.Name, exprText(call.Args[0]))
			}
			return true
		})
	}
}

// rawDestination reports whether w, a fmt.Fprint call's writer, is a
// buffer being built (&b) or the raw stream under the escaping (Raw of a
// writer, or a variable named raw holding it).
func rawDestination(w ast.Expr) bool {
	switch w := w.(type) {
	case *ast.UnaryExpr:
		return w.Op == token.AND
	case *ast.Ident:
		return w.Name == "raw" || w.Name == "b"
	case *ast.CallExpr:
		switch fn := w.Fun.(type) {
		case *ast.Ident:
			return fn.Name == "Raw"
		case *ast.SelectorExpr:
			return fn.Sel.Name == "Raw"
		}
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
