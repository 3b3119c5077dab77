package app

import (
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/safety"
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

// CapRisk applies the policy's max-risk line (plugins.SourcePolicy.MaxRisk)
// to the highest risk a command takes in: an organisation's cap wins over
// the default, and a flag that asks for more is a usage error naming the
// file. explicit says the user gave --allow-risk.
func CapRisk(level safety.RiskLevel, explicit bool) (safety.RiskLevel, error) {
	max, file, ok := loadSourcePolicy().MaxRisk()
	if !ok || level <= max {
		return level, nil
	}
	if explicit {
		return 0, UsageErrorf("--allow-risk %s is above the max-risk %s that %s sets for every user: give %s or lower, or ask whoever manages that file", level, max, file, max)
	}
	return max, nil
}

// RiskCap is the policy's max-risk, 0 for none: what a recorded
// acceptance ('plugin trust') cannot raise a skill's allowed risk above.
func RiskCap() safety.RiskLevel {
	max, _, _ := loadSourcePolicy().MaxRisk()
	return max
}
