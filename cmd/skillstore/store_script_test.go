package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("mkbigfile", cmdMkBigFile)
	addScriptCmd("mkfiles", cmdMkFiles)
}

// mkbigfile PATH BYTES writes a file of BYTES bytes (for the size cap).
func cmdMkBigFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mkbigfile PATH BYTES")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	data := make([]byte, n)
	for i := range data {
		data[i] = 'a' + byte(i%26)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// mkfiles DIR N writes N small files into DIR (for the file-count cap).
func cmdMkFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mkfiles DIR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	for i := 0; i < n; i++ {
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), []byte(strconv.Itoa(i)), 0o644))
	}
}
