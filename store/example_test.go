package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// Example records two versions of a skill folder and reads them back.
func Example() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "skillstore-example-")
	defer os.RemoveAll(tmp)

	s, err := store.Init(ctx, filepath.Join(tmp, "store"), store.Options{
		Actor: store.Signature{Name: "Ada", Email: "ada@example.com"},
		Now:   func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	skill := filepath.Join(tmp, "greet")
	os.MkdirAll(skill, 0o755)
	write := func(body string) {
		os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: greet\ndescription: Greet people.\n---\n"+body), 0o644)
	}
	opts := store.AddOptions{AllowRisk: safety.DefaultAllowedRisk, Reason: "first"}

	write("Say hello.\n")
	res, _ := s.Add(ctx, []string{skill}, opts)
	fmt.Println(res[0].Version.Name(), res[0].Unchanged)

	res, _ = s.Add(ctx, []string{skill}, opts)
	fmt.Println(res[0].Version.Name(), res[0].Unchanged)

	write("Say hello, warmly.\n")
	opts.Reason = "warmer"
	s.Add(ctx, []string{skill}, opts)

	versions, _ := s.Log(ctx, "greet")
	for _, v := range versions {
		fmt.Printf("v%d %s (%s)\n", v.Number, v.Reason, v.Actor)
	}
	data, _ := s.Cat(ctx, "greet@v1", "SKILL.md")
	fmt.Printf("%s", data[len(data)-11:])
	// Output:
	// greet@v1 false
	// greet@v1 true
	// v2 warmer (Ada <ada@example.com>)
	// v1 first (Ada <ada@example.com>)
	// Say hello.
}
