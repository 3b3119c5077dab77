package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	addScriptCmd("fileserver", cmdFileServer)
	addScriptCmd("mkarchive", cmdMkArchive)
	addScriptCmd("npmpublish", cmdNPMPublish)
}

// cmdFileServer serves the files of DIR over http for the scenario, as a
// web site, a release page or a package registry does: GET /PATH answers
// DIR/PATH (an npm package document /@scope/name is DIR/@scope/name),
// 404 for what is not there. In every
// file served, {{URL}} reads as the server's own URL, so a registry's
// document can name its tarballs. Its URL is in $NAME.
//
//	fileserver NAME DIR
func cmdFileServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fileserver NAME DIR")
	}
	dir := ts.MkAbs(args[1])
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	base := "http://" + ln.Addr().String()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(bytes.ReplaceAll(data, []byte("{{URL}}"), []byte(base)))
	})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	ts.Defer(func() { hs.Close() })
	ts.Setenv(args[0], base)
}

// cmdMkArchive writes the files under DIR into an archive, .zip or
// .tar.gz by FILE's name, each path under PREFIX/ when one is given (as
// GitHub's archives and npm's tarballs put everything in one folder);
// files whose name ends in .sh are executable.
//
//	mkarchive FILE DIR [PREFIX]
func cmdMkArchive(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: mkarchive FILE.zip|FILE.tar.gz DIR [PREFIX]")
	}
	dir := ts.MkAbs(args[1])
	prefix := ""
	if len(args) == 3 {
		prefix = args[2] + "/"
	}
	var buf bytes.Buffer
	var add func(name string, mode os.FileMode, data []byte)
	var finish func()
	if strings.HasSuffix(args[0], ".zip") {
		zw := zip.NewWriter(&buf)
		add = func(name string, mode os.FileMode, data []byte) {
			fh := &zip.FileHeader{Name: name, Method: zip.Deflate}
			fh.SetMode(mode)
			w, err := zw.CreateHeader(fh)
			ts.Check(err)
			w.Write(data)
		}
		finish = func() { ts.Check(zw.Close()) }
	} else {
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		add = func(name string, mode os.FileMode, data []byte) {
			ts.Check(tw.WriteHeader(&tar.Header{Name: name, Mode: int64(mode), Size: int64(len(data)), Typeflag: tar.TypeReg}))
			tw.Write(data)
		}
		finish = func() { ts.Check(tw.Close()); ts.Check(zw.Close()) }
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		add(prefix+filepath.ToSlash(rel), mode, data)
		return nil
	})
	ts.Check(err)
	finish()
	out := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(out), 0o755))
	ts.Check(os.WriteFile(out, buf.Bytes(), 0o644))
}

// cmdNPMPublish publishes PKGDIR to a registry served from DIR (see
// fileserver), in the shape of the npm registry: the tarball (every file
// under package/) at DIR/tarballs/, and the package's document DIR/NAME
// (a scoped @s/n at DIR/@s/n) listing every version published with its
// dist {tarball, integrity, shasum}, the "latest" dist-tag moved to
// VERSION unless it is a pre-release.
//
//	npmpublish DIR NAME VERSION PKGDIR
func cmdNPMPublish(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: npmpublish DIR NAME VERSION PKGDIR")
	}
	dir, name, version := ts.MkAbs(args[0]), args[1], args[2]
	file := strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-") + "-" + version + ".tgz"
	tgz := filepath.Join(dir, "tarballs", file)
	cmdMkArchive(ts, false, []string{tgz, args[3], "package"})
	data, err := os.ReadFile(tgz)
	ts.Check(err)
	s512 := sha512.Sum512(data)
	s1 := sha1.Sum(data)
	docPath := filepath.Join(dir, filepath.FromSlash(name))
	doc := map[string]any{"name": name, "dist-tags": map[string]any{}, "versions": map[string]any{}}
	if old, err := os.ReadFile(docPath); err == nil {
		ts.Check(json.Unmarshal(old, &doc))
	}
	doc["versions"].(map[string]any)[version] = map[string]any{
		"name": name, "version": version,
		"dist": map[string]any{
			"tarball":   "{{URL}}/tarballs/" + file,
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
			"shasum":    hex.EncodeToString(s1[:]),
		},
	}
	if !strings.Contains(version, "-") {
		doc["dist-tags"].(map[string]any)["latest"] = version
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	ts.Check(err)
	ts.Check(os.MkdirAll(filepath.Dir(docPath), 0o755))
	ts.Check(os.WriteFile(docPath, out, 0o644))
}
