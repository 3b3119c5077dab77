//go:build windows

package cliout

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalFile reports whether f is a console that interprets the escape
// sequences skillstore writes (colour, the progress line's erase). A
// console of Windows 10 and later does once virtual terminal processing is
// on (Windows Terminal turns it on itself; the classic console window
// needs it asked for, which is done here and stays for that console). An
// older console, or one that refuses, is treated as no terminal: plain
// output, no progress line. Output to a pipe or a file (GetConsoleMode
// fails) is no terminal either.
func terminalFile(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}

// terminalColumns returns the width of the console window f writes to, if
// it is one.
func terminalColumns(f *os.File) (int, bool) {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0, false
	}
	n := int(info.Window.Right-info.Window.Left) + 1
	return n, n > 0
}
