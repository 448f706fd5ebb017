package policy

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateNamesTheField checks that each rule refuses with an *Error
// naming the offending field, and that a good policy passes.
func TestValidateNamesTheField(t *testing.T) {
	cases := []struct {
		p     Policy
		field string // "" for valid
	}{
		{Policy{}, ""},
		{Policy{MaxReserves: 3, DeadLetter: "dead", MaxReady: 10, ReserveRate: 2.5,
			Schedule: []Schedule{{Cron: "@every 30s", Body: "x"}}}, ""},
		{Policy{MaxReserves: 1, DeadLetter: "-bad"}, "dead_letter"},
		{Policy{DeadLetter: "dead"}, "dead_letter"},
		{Policy{MaxReady: 1, Overflow: OverflowDeadLetter, DeadLetter: "dead"}, ""},
		{Policy{MaxReady: 1, Overflow: OverflowReject}, ""},
		{Policy{MaxReady: 1, Overflow: OverflowBury}, ""},
		{Policy{MaxReady: 1, Overflow: "drop"}, "overflow"},
		{Policy{Overflow: OverflowBury}, "overflow"},
		{Policy{MaxReady: 1, Overflow: OverflowDeadLetter}, "overflow"},
		{Policy{ReserveRate: -1}, "reserve_rate"},
		{Policy{ReserveRate: MaxReserveRate * 2}, "reserve_rate"},
		{Policy{Schedule: make([]Schedule, MaxSchedules+1)}, "schedule"},
		{Policy{Schedule: []Schedule{{Cron: "@every 1m"}, {Cron: "nope"}}}, "schedule[1].cron"},
		{Policy{Schedule: []Schedule{{Cron: "* * * * *", Body: strings.Repeat("b", MaxScheduleBody+1)}}}, "schedule[0].body"},
		{Policy{Schedule: []Schedule{{Cron: "0 0 31 2 *"}}}, "schedule[0].cron"},
		{Policy{Schedule: []Schedule{{Cron: "0 9 * * MON-FRI", TZ: "Europe/Berlin"}, {Cron: "@weekly"}}}, ""},
		{Policy{Schedule: []Schedule{{Cron: "0 9 * * *", TZ: "Nowhere/Special"}}}, "schedule[0].tz"},
		{Policy{Schedule: []Schedule{{Cron: "@every 1h", TZ: "Europe/Berlin"}}}, "schedule[0].tz"},
	}
	for i, c := range cases {
		err := c.p.Validate()
		if c.field == "" {
			if err != nil {
				t.Errorf("case %d: want valid, got %v", i, err)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Field != c.field {
			t.Errorf("case %d: want *Error on %q, got %v", i, c.field, err)
		}
	}
}

// TestCloneOwnsSchedule checks that a clone's Schedule slice is its own.
func TestCloneOwnsSchedule(t *testing.T) {
	p := Policy{Schedule: []Schedule{{Cron: "@every 1s", Body: "a"}}}
	c := p.Clone()
	c.Schedule[0].Body = "b"
	if p.Schedule[0].Body != "a" || c.IsZero() || !(Policy{}).IsZero() {
		t.Fatalf("clone shares its schedule or IsZero is wrong: %+v %+v", p, c)
	}
}
