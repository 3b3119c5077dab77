package skillfs

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestWindowsNames(t *testing.T) {
	for _, name := range []string{"CON", "con", "Nul", "aux.md", "prn.tar.gz", "com1", "COM9.txt", "lpt0", "com¹", "LPT³.x", "conin$", "CONOUT$", "nul .txt", "con "} {
		if !WindowsDevice(name) {
			t.Errorf("WindowsDevice(%q) = false", name)
		}
		err := CheckWindowsPath("docs/" + name)
		var we *WindowsNameError
		if !errors.As(err, &we) || we.Name != name || we.Path != "docs/"+name || !strings.Contains(err.Error(), "rename it") {
			t.Errorf("CheckWindowsPath(docs/%s) = %v, want a WindowsNameError naming it", name, err)
		}
	}
	for _, name := range []string{"a.", "a ", "a:b", "q?", "x*y", `say"hi"`, "a|b", "<a>", "tab\there"} {
		if err := CheckWindowsName(name); err == nil {
			t.Errorf("CheckWindowsName(%q) accepted it", name)
		}
	}
	for _, ok := range []string{"SKILL.md", "console.md", "nullable", "auxiliary", "com10", "lpt", "com", "coma.txt", ".hidden", "é.md", "a b.md", "con-fig"} {
		if err := CheckWindowsName(ok); err != nil {
			t.Errorf("CheckWindowsName(%q) = %v", ok, err)
		}
	}
	err := CheckLocalPath("scripts/nul.sh")
	if got := err != nil; got != (runtime.GOOS == "windows") {
		t.Errorf("CheckLocalPath(scripts/nul.sh) on %s = %v", runtime.GOOS, err)
	}
}
