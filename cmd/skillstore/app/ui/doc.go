// Package ui is 'skillstore ui': a web page on 127.0.0.1 for what a
// person reviews — candidates side by side, every skill's history, every
// target's skills and listing budget, and who loaded what.
//
// The page has no data of its own. Every figure it shows is the report of
// one of the CLI's workflows run with --json into a buffer and decoded
// ([Server.produce]): 'candidates list', 'candidates show --files',
// 'candidates diff', 'list', 'search', 'show', 'log', 'diff', 'cat',
// 'target list', 'status' and 'log --loads'. So each workflow reads the
// store under its shared lock for that one request, as the command does,
// and no lock is held between requests; accept and reject run the
// candidates commands' own code, under the exclusive lock as they take
// it. Each page names the commands that print its data.
//
// What it guards (guard.go): the one-time token in the printed URL is
// exchanged for a session cookie (HttpOnly, SameSite=Strict); every
// request needs that cookie; the Host header must name the loopback
// address served (no DNS rebinding); every POST carries the session's
// CSRF token and passes net/http's cross-origin protection; no CORS
// header is ever sent; the Content-Security-Policy allows only the
// page's own script and style files (no inline script at all). Skill
// text is hostile input: html/template escapes every name and line, and
// no template.HTML is made from store data.
package ui
