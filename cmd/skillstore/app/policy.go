package app

import (
	"github.com/skillstore/skillstore/store/plugins"
	"os"
	"path/filepath"
)

// The source policy's files (see plugins.SourcePolicy): the system's, then
// the user's. Each can be moved by an environment variable, which the
// scenarios use to stay off the machine's own /etc; the policy is a guard
// against sources nobody approved, not a lock against the user, who can
// always run another build.
const (
	// SystemPolicyEnv names the system policy file (default
	// /etc/skillstore/policy).
	SystemPolicyEnv = "SKILLSTORE_SYSTEM_POLICY"
	// UserPolicyEnv names the user's policy file (default
	// $XDG_CONFIG_HOME/skillstore/policy, the user's configuration
	// folder).
	UserPolicyEnv = "SKILLSTORE_POLICY"
	// DefaultSystemPolicy is the system policy file when SystemPolicyEnv
	// is unset.
	DefaultSystemPolicy = "/etc/skillstore/policy"
)

// PolicyPaths are the source policy files skillstore reads, system first.
// A path whose variable is set to "" is not read.
func PolicyPaths() []string {
	system, ok := os.LookupEnv(SystemPolicyEnv)
	if !ok {
		system = DefaultSystemPolicy
	}
	user, ok := os.LookupEnv(UserPolicyEnv)
	if !ok {
		if dir, err := os.UserConfigDir(); err == nil {
			user = filepath.Join(dir, "skillstore", "policy")
		}
	}
	return []string{system, user}
}

// loadSourcePolicy reads the policy files in force; nil when there are
// none.
func loadSourcePolicy() *plugins.SourcePolicy {
	return plugins.LoadSourcePolicy(PolicyPaths()...)
}
