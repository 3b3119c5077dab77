package pluginsync

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
)

// BenchmarkSyncUnchangedParts is the cost plugin parts add to an unchanged
// sync: the superpowers-shaped plugin as a git source (parts: 9 files) and
// as a local folder, against the reference of the same plugin without its
// parts (only its skills and a README, so no unit).
func BenchmarkSyncUnchangedParts(b *testing.B) {
	for _, c := range []struct {
		name  string
		git   bool
		parts bool
	}{
		{"git/with-parts", true, true},
		{"git/reference-no-parts", true, false},
		{"folder/with-parts", false, true},
		{"folder/reference-no-parts", false, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			up := filepath.Join(b.TempDir(), "powers")
			storetest.WriteFixture(b, up, superpowersShaped)
			if !c.parts {
				for _, p := range []string{".claude-plugin", "hooks", "commands", "agents", ".mcp.json", "lib", "LICENSE"} {
					if err := os.RemoveAll(filepath.Join(up, p)); err != nil {
						b.Fatal(err)
					}
				}
			}
			url := up
			if c.git {
				storetest.GitCommitAll(b, up, "one")
				url = "file://" + up
			}
			src, err := plugins.ParseSource(url, map[bool]string{true: "main"}[c.git])
			if err != nil {
				b.Fatal(err)
			}
			s := storetest.NewStore(b)
			rep, err := Add(context.Background(), s, src, AddOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if has := rep.Plugins[0].Parts != nil; has != c.parts {
				b.Fatalf("parts unit: %v, want %v", has, c.parts)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := Run(context.Background(), s, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
