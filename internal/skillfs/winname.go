package skillfs

import (
	"fmt"
	"runtime"
	"strings"
)

// Names Windows cannot hold. Windows (the Win32 layer every program goes
// through) reads some names as devices in every folder, whatever follows
// the first dot: NUL.md opens the null device, CON.txt the console, so a
// write there is lost and a read waits for the keyboard. It also drops a
// name's trailing dots and spaces (so "a." is "a") and refuses the
// characters < > : " | ? * and control characters (":" names an NTFS
// alternate data stream: "a:b" writes a hidden stream b of the file a).
//
// Where each rule applies, and why:
//   - A skill's name and a plugin id become files of the store's own git
//     repository (refs/heads/skills/NAME) and folders in agents' skills
//     folders, and a store is shared by push, pull and clone across
//     platforms; so CheckName refuses device names on every platform (the
//     other rules cannot arise there: a name is lowercase letters, digits,
//     '.', '_' and '-', and never ends with a dot).
//   - A file inside a skill is only data in the store (a git tree entry,
//     the same on every platform) and becomes a file only when export or
//     checkout writes the skill out. It is refused there, on Windows only
//     ([CheckLocalPath]): that skill fails to export, with an error naming
//     the file, and every other skill goes out; on Linux and macOS the name
//     is a file like any other (git behaves the same way).

// WindowsNameError refuses a path holding a component Windows cannot hold
// as a file or folder name.
type WindowsNameError struct {
	// Path is the whole path as given, Name the component refused.
	Path, Name string
	Reason     string
}

func (e *WindowsNameError) Error() string {
	return fmt.Sprintf("%s: %s cannot be a file or folder name on Windows (%s): rename it in the skill's source", QuotePath(e.Path), QuotePath(e.Name), e.Reason)
}

// WindowsDevice reports whether name is one Windows reads as a device in
// any folder: CON, PRN, AUX, NUL, COM0-COM9, LPT0-LPT9 (and COM and LPT
// with a superscript 1, 2 or 3), CONIN$ and CONOUT$, in any letter case,
// alone or followed by a dot and anything ("nul.md", "Con.tar.gz"), with
// or without spaces before that dot.
func WindowsDevice(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if rest, ok := strings.CutPrefix(base, "COM"); ok {
		return isDeviceDigit(rest)
	}
	if rest, ok := strings.CutPrefix(base, "LPT"); ok {
		return isDeviceDigit(rest)
	}
	return false
}

// isDeviceDigit reports whether s is the number of a COM or LPT device:
// one digit, or a superscript one, two or three.
func isDeviceDigit(s string) bool {
	switch s {
	case "¹", "²", "³":
		return true
	}
	return len(s) == 1 && s[0] >= '0' && s[0] <= '9'
}

// CheckWindowsName refuses one path component (a file or folder name)
// that Windows cannot hold: a device name ([WindowsDevice]), a name ending
// in a dot or a space, or one holding < > : " / \ | ? * or a control
// character.
func CheckWindowsName(name string) error {
	return CheckWindowsPath(name)
}

// CheckWindowsPath is CheckWindowsName of every component of the
// slash-separated path p.
func CheckWindowsPath(p string) error {
	for part := range strings.SplitSeq(p, "/") {
		if reason := windowsReason(part); reason != "" {
			return &WindowsNameError{Path: p, Name: part, Reason: reason}
		}
	}
	return nil
}

// windowsReason says why Windows cannot hold name; "" when it can.
func windowsReason(name string) string {
	switch {
	case WindowsDevice(name):
		return "a device name"
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return "Windows drops a trailing dot or space"
	}
	for _, r := range name {
		if r < 0x20 || strings.ContainsRune(`<>:"\|?*`, r) {
			return fmt.Sprintf("holds %q, which Windows does not allow in a name", r)
		}
	}
	return ""
}

// CheckLocalPath refuses the slash-separated path p of a file that is
// about to be written on this system when the system cannot hold it: on
// Windows, CheckWindowsPath; elsewhere nothing is refused. Export and
// checkout call it before they write each file of a skill.
func CheckLocalPath(p string) error {
	if runtime.GOOS != "windows" {
		return nil
	}
	return CheckWindowsPath(p)
}
