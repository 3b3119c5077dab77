package watch_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/reload/watch"
)

// A Watcher calls a reload hook once per settled change of a skill.
func ExampleWatcher() {
	root, err := os.MkdirTemp("", "reload-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	if err := os.MkdirAll(filepath.Join(root, "deploy"), 0o755); err != nil {
		log.Fatal(err)
	}
	skillMD := filepath.Join(root, "deploy", "SKILL.md")
	if err := os.WriteFile(skillMD, []byte("---\ndescription: Deploys.\n---\nv1\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	w, err := watch.NewWatcher([]string{root}, watch.WatchOptions{
		OnReload: func(ctx context.Context, ev watch.Event) error {
			fmt.Println("reload", ev.Skill, ev.Class, ev.Paths)
			return nil // an error would make the event a failure
		},
		OnEvent: func(ev watch.Event) { cancel() },
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(skillMD, []byte("---\ndescription: Deploys.\n---\nv2\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := w.Run(ctx); err != nil {
		log.Fatal(err)
	}
	// Output:
	// reload deploy hot [SKILL.md]
}
