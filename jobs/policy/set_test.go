package policy

import (
	"errors"
	"testing"
)

// TestCheckSet checks each cross-tube rule, with the tube and field the
// error names and, for cycles, the cycle spelled from its least name.
func TestCheckSet(t *testing.T) {
	dl := func(to string) Policy { return Policy{MaxReserves: 1, DeadLetter: to} }
	cases := []struct {
		name  string
		set   map[string]Policy
		tube  string // "" for valid
		field string
		msg   string
	}{
		{"empty", nil, "", "", ""},
		{"chain", map[string]Policy{"a": dl("b"), "b": dl("c"), "c": {MaxReady: 3}}, "", "", ""},
		{"tree", map[string]Policy{"a": dl("z"), "b": dl("z"), "z": dl("end")}, "", "", ""},
		{"bad name", map[string]Policy{"ok": {}, "-bad": {}}, "-bad", "tube", ""},
		{"invalid policy", map[string]Policy{"a": {}, "b": {ReserveRate: -1}}, "b", "reserve_rate", ""},
		{"self", map[string]Policy{"emails": dl("emails")}, "emails", "dead_letter",
			`policy: tube "emails": dead_letter: is the tube itself`},
		{"two", map[string]Policy{"emails": dl("emails-dead"), "emails-dead": dl("emails")}, "emails", "dead_letter",
			`policy: tube "emails": dead_letter: dead letters form a cycle: emails → emails-dead → emails`},
		{"three, entered midway", map[string]Policy{"a": dl("q"), "q": dl("c"), "c": dl("b"), "b": dl("q")}, "b", "dead_letter",
			`policy: tube "b": dead_letter: dead letters form a cycle: b → q → c → b`},
		{"overflow edge counts", map[string]Policy{
			"x": {MaxReady: 1, Overflow: OverflowDeadLetter, DeadLetter: "y"}, "y": dl("x")}, "x", "dead_letter",
			`policy: tube "x": dead_letter: dead letters form a cycle: x → y → x`},
	}
	for _, c := range cases {
		err := CheckSet(c.set)
		if c.tube == "" {
			if err != nil {
				t.Errorf("%s: want valid, got %v", c.name, err)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Tube != c.tube || pe.Field != c.field {
			t.Errorf("%s: want *Error on tube %q field %q, got %#v", c.name, c.tube, c.field, err)
			continue
		}
		if c.msg != "" && err.Error() != c.msg {
			t.Errorf("%s: message\n got %s\nwant %s", c.name, err, c.msg)
		}
	}
}

// TestCheckSetLongCycle: a cycle of any length is found, and a long chain
// that ends is not one.
func TestCheckSetLongCycle(t *testing.T) {
	set := map[string]Policy{}
	const n = 500
	name := func(i int) string { return "t" + string(rune('a'+i%26)) + string(rune('a'+i/26)) }
	for i := 0; i < n; i++ {
		set[name(i)] = Policy{MaxReserves: 1, DeadLetter: name(i + 1)}
	}
	if err := CheckSet(set); err != nil {
		t.Fatalf("a chain of %d that ends: %v", n, err)
	}
	set[name(n)] = Policy{MaxReserves: 1, DeadLetter: name(0)}
	var pe *Error
	if err := CheckSet(set); !errors.As(err, &pe) || pe.Field != "dead_letter" {
		t.Fatalf("a cycle of %d: got %v", n+1, err)
	}
}
