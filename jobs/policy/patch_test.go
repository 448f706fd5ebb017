package policy

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// TestMergePatch: RFC 7386 on a policy: a key sets its field, null
// removes it, absent keys stay, a schedule list is replaced whole and its
// entries get the defaults they leave out; a bad result is an *Error
// naming the field, and the input is not changed.
func TestMergePatch(t *testing.T) {
	base := Policy{MaxReserves: 5, DeadLetter: "dead", MaxReady: 10,
		Schedule: []Schedule{{Cron: "@every 1m", Body: "a", Priority: 7, TTR: 9}}}
	for _, c := range []struct {
		name, patch string
		want        Policy
		field       string // the refusal's field; "-" for a refusal of the whole patch
	}{
		{"one field", `{"max_ready": 100}`, Policy{MaxReserves: 5, DeadLetter: "dead", MaxReady: 100, Schedule: base.Schedule}, ""},
		{"null removes", `{"max_ready": null, "schedule": null}`, Policy{MaxReserves: 5, DeadLetter: "dead"}, ""},
		{"empty changes nothing", `{}`, base, ""},
		{"schedule replaced, defaults", `{"schedule": [{"cron": "@daily", "body": "b", "tz": "Europe/Berlin"}]}`,
			Policy{MaxReserves: 5, DeadLetter: "dead", MaxReady: 10,
				Schedule: []Schedule{{Cron: "@daily", TZ: "Europe/Berlin", Body: "b", Priority: DefaultPriority, TTR: DefaultTTR}}}, ""},
		{"explicit zero priority stays", `{"schedule": [{"cron": "@daily", "body": "b", "priority": 0, "ttr": 0}]}`,
			Policy{MaxReserves: 5, DeadLetter: "dead", MaxReady: 10, Schedule: []Schedule{{Cron: "@daily", Body: "b"}}}, ""},
		{"the result is validated", `{"max_reserves": null}`, Policy{}, "dead_letter"},
		{"unknown field", `{"max_redy": 3}`, Policy{}, "max_redy"},
		{"wrong type", `{"max_ready": "many"}`, Policy{}, "max_ready"},
		{"not an object", `[1]`, Policy{}, "-"},
		{"not JSON", `{"max_ready": `, Policy{}, "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := base.Clone()
			got, err := MergePatch(base, []byte(c.patch))
			if !reflect.DeepEqual(base, before) {
				t.Fatalf("the input changed: %+v", base)
			}
			if c.field == "" {
				if err != nil || !reflect.DeepEqual(got, c.want) {
					t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || (c.field != "-" && pe.Field != c.field) || (c.field == "-" && pe.Field != "") {
				t.Fatalf("got %+v, %v; want a refusal on %q", got, err, c.field)
			}
		})
	}
}

// TestScheduleJSONPresence: priority and ttr left out of a schedule's JSON
// are the defaults; given, even as 0, they are kept; the value marshals
// back to what it read.
func TestScheduleJSONPresence(t *testing.T) {
	var p Policy
	in := `{"schedule": [{"cron": "@hourly", "body": "x"}, {"cron": "0 9 * * MON", "tz": "Europe/Berlin", "body": "y", "priority": 0, "ttr": 0}]}`
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	want := []Schedule{{Cron: "@hourly", Body: "x", Priority: 1024, TTR: 60},
		{Cron: "0 9 * * MON", TZ: "Europe/Berlin", Body: "y"}}
	if !reflect.DeepEqual(p.Schedule, want) {
		t.Fatalf("got %+v, want %+v", p.Schedule, want)
	}
	b, _ := json.Marshal(p)
	var back Policy
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("round trip: %s -> %+v, %v", b, back, err)
	}
}
