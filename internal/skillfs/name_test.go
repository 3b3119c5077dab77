package skillfs

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"deploy", "a", "0x", "web-search", "v1.2_beta", strings.Repeat("a", 64), "console", "com10", "null"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Deploy", "-x", ".x", "a/b", "a b", "a..b", "x.", "x.lock", "plugin:skill", strings.Repeat("a", 65), "con", "nul", "aux.md", "com1", "lpt9.x"} {
		err := CheckName(bad)
		var inv *InvalidNameError
		if !errors.As(err, &inv) || inv.Name != bad {
			t.Errorf("CheckName(%q) = %v, want an InvalidNameError", bad, err)
		}
	}
}
