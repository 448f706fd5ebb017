package policy

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestDecode: the one strict decoder accepts a policy as GET shows it
// (last_run and next_run ignored) and refuses, with an *Error naming the
// field, an unknown field at any depth, a wrong type, a value Validate
// refuses, and a document that is not exactly one object.
func TestDecode(t *testing.T) {
	p, err := Decode([]byte(`{"max_reserves": 3, "dead_letter": "dead",
		"schedule": [{"cron": "@daily", "body": "x", "last_run": null, "next_run": "2026-01-01T00:00:00Z"}]}`))
	if err != nil {
		t.Fatalf("a policy as shown: %v", err)
	}
	if p.MaxReserves != 3 || p.DeadLetter != "dead" || len(p.Schedule) != 1 || p.Schedule[0].TTR != DefaultTTR {
		t.Fatalf("decoded %+v", p)
	}
	for _, c := range []struct{ doc, field, message string }{
		{`{"max_redy": 3}`, "max_redy", "max_redy: unknown field"},
		{`{"schedule": [{"cron": "@daily", "body": "x"}, {"crn": "@daily"}]}`, "schedule[1].crn", "schedule[1].crn: unknown field"},
		{`{"max_ready": "many"}`, "max_ready", "max_ready: want a whole number from 0 to 4294967295, not string"},
		{`{"max_ready": -1}`, "max_ready", ""},
		{`{"reserve_rate": -1}`, "reserve_rate", ""},
		{`{"dead_letter": "dead"}`, "dead_letter", ""},
		{`{"overflow": "drop", "max_ready": 1}`, "overflow", ""},
		{`[1]`, "", "want a JSON object of policy fields"},
		{`{} {}`, "", "want one JSON object, found more after it"},
		{`{"max_ready": `, "", ""},
	} {
		_, err := Decode([]byte(c.doc))
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want an *Error", c.doc, err)
			continue
		}
		if pe.Field != c.field {
			t.Errorf("%s: field %q (%v), want %q", c.doc, pe.Field, err, c.field)
		}
		if c.message != "" && Message(err) != c.message {
			t.Errorf("%s: message %q, want %q", c.doc, Message(err), c.message)
		}
	}
	if err := CheckPatch([]byte(`{"max_ready": null, "schedule": null}`)); err != nil {
		t.Errorf("a patch of nulls: %v", err)
	}
	if err := CheckPatch([]byte(`{"dead_letter": "x"}`)); err != nil {
		t.Errorf("CheckPatch validated a patch that is valid once merged: %v", err)
	}
}

// TestDecodeSet: a set is decoded policy by policy, the refusal naming the
// tube, then checked whole (a dead-letter cycle); null is no policy.
func TestDecodeSet(t *testing.T) {
	docs := func(m map[string]string) map[string]json.RawMessage {
		out := make(map[string]json.RawMessage, len(m))
		for k, v := range m {
			out[k] = json.RawMessage(v)
		}
		return out
	}
	set, err := DecodeSet(docs(map[string]string{"a": `{"max_ready": 2}`, "b": `null`}))
	if err != nil || set["a"].MaxReady != 2 || !set["b"].IsZero() {
		t.Fatalf("DecodeSet = %+v, %v", set, err)
	}
	for _, c := range []struct {
		docs        map[string]string
		tube, field string
	}{
		{map[string]string{"a": `{}`, "b": `{"max_ready": "x"}`}, "b", "max_ready"},
		{map[string]string{"bad name!": `{}`}, "bad name!", "tube"},
		{map[string]string{"a": `{"max_reserves": 1, "dead_letter": "b"}`, "b": `{"max_reserves": 1, "dead_letter": "a"}`}, "a", "dead_letter"},
	} {
		_, err := DecodeSet(docs(c.docs))
		var pe *Error
		if !errors.As(err, &pe) || pe.Tube != c.tube || pe.Field != c.field {
			t.Errorf("%v: %v, want tube %q field %q", c.docs, err, c.tube, c.field)
		}
	}
}
