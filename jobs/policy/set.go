package policy

import (
	"slices"
	"strings"

	"github.com/stalkd/stalkd/jobs/internal/tubename"
)

// A set of policies, by tube name, is checked whole by CheckSet: each
// policy alone (Validate), then the rules that only a whole set can break.
// The queue's SetPolicy checks its current set plus the change, a policy
// file is checked before anything of it is applied, and the admin API
// answers with the same *Error.

// CheckSet reports the first thing wrong with set as an *Error naming the
// tube (Tube) and the field, or nil. Tubes are checked in name order, so
// the same set always gets the same answer. It checks, in order:
//
//   - every name is a valid tube name (Field "tube");
//   - every policy passes Validate;
//   - the cross-tube rules of setRules: no dead_letter naming its own
//     tube, no dead-letter cycle of any length (the error spells the
//     cycle: "emails → emails-dead → emails").
//
// It is a pure function: it only reads set.
func CheckSet(set map[string]Policy) error {
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !tubename.Valid([]byte(name)) {
			return &Error{Tube: name, Field: "tube", Reason: "not a valid tube name"}
		}
		if err := set[name].Validate(); err != nil {
			e := *err.(*Error) // Validate returns only *Error
			e.Tube = name
			return &e
		}
	}
	for _, rule := range setRules {
		if err := rule(set, names); err != nil {
			return err
		}
	}
	return nil
}

// setRules are the checks that need the whole set: each gets the set and
// its names in order, and returns an *Error naming a tube and a field.
// Every policy in the set has passed Validate. A new cross-tube rule is a
// function added here; issue 31's name patterns add theirs ("a pattern
// and a name that disagree") the same way, and CheckSet's callers (the
// queue, the policy file, the admin API) need no change.
var setRules = []func(set map[string]Policy, names []string) error{
	deadLetterSelf,
	deadLetterCycle,
}

// deadLetterSelf refuses a dead_letter that names its own tube.
func deadLetterSelf(set map[string]Policy, names []string) error {
	for _, name := range names {
		if set[name].DeadLetter == name {
			return &Error{Tube: name, Field: "dead_letter", Reason: "is the tube itself"}
		}
	}
	return nil
}

// deadLetterCycle refuses dead-letter chains that come back to a tube
// they left (a → b → a: a job would move round for ever). Each tube has
// at most one dead letter, so following the chain from each tube finds
// every cycle; the error names the cycle from its first tube in name
// order, the one whose dead_letter is reported.
func deadLetterCycle(set map[string]Policy, names []string) error {
	done := make(map[string]bool, len(names)) // chains known to end
	for _, start := range names {
		var path []string
		at := make(map[string]int)
		for name := start; ; {
			if done[name] {
				break
			}
			if i, seen := at[name]; seen {
				return cycleError(path[i:])
			}
			p, ok := set[name]
			if !ok || p.DeadLetter == "" {
				break
			}
			at[name] = len(path)
			path = append(path, name)
			name = p.DeadLetter
		}
		for _, name := range path {
			done[name] = true
		}
	}
	return nil
}

// cycleError spells a cycle, rotated to start at its least name.
func cycleError(cycle []string) error {
	first := 0
	for i, name := range cycle {
		if name < cycle[first] {
			first = i
		}
	}
	spelled := append(append([]string(nil), cycle[first:]...), cycle[:first]...)
	spelled = append(spelled, spelled[0])
	return &Error{Tube: spelled[0], Field: "dead_letter",
		Reason: "dead letters form a cycle: " + strings.Join(spelled, " → ")}
}
