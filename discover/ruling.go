package discover

// A ruling is how each Mode reports one kind of finding (a zero Severity:
// not at all). The lenient policy is what agents load: it warns only where
// an agent would skip or cut the skill, and the message says which agent
// (agents.go); the strict policy is the Agent Skills spec and Anthropic's
// validators.
type ruling struct{ lenient, strict Severity }

var (
	// ruleBroken: no agent reads the skill as written (a description that
	// is a list, a name that is not one).
	ruleBroken = ruling{SeverityError, SeverityError}
	// ruleSkipped: an agent skips or cuts the skill, which the spec
	// forbids; the message names the agent.
	ruleSkipped = ruling{SeverityWarning, SeverityError}
	// ruleIgnored: an agent ignores part of what the author wrote (a
	// spelling, a value it cannot read); the message names the agent.
	ruleIgnored = ruling{SeverityWarning, SeverityWarning}
	// ruleSpec: the spec forbids it and every agent loads it as meant.
	ruleSpec = ruling{0, SeverityError}
	// ruleSpecNote: the spec advises against it; every agent loads it.
	ruleSpecNote = ruling{0, SeverityWarning}
)

// in is the severity of r in mode m (zero: not reported).
func (r ruling) in(m Mode) Severity {
	if m == Strict {
		return r.strict
	}
	return r.lenient
}
