package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/stalkd/stalkd/jobs/internal/tubename"
)

// The one decoder of a policy: the admin API (PUT, PATCH), the daemon's
// --policies file and stalkctl all read policies with Decode, CheckPatch
// and DecodeSet, so that they accept and refuse the same documents with
// the same words. A YAML file is turned into JSON first, by its reader
// (this package reads JSON only).

// Decode reads one tube policy in JSON (the fields of Policy by their json
// names) and validates it. It refuses what is not exactly one JSON object,
// an unknown field (at any depth: "schedule[1].crn"), a value of the wrong
// type, and whatever Validate refuses. Every error is an *Error naming the
// field ("" when the document as a whole is wrong). A schedule's last_run
// and next_run, which the admin API shows, are ignored, so that a policy
// read can be sent back as it is. Pure, safe for concurrent use.
func Decode(b []byte) (Policy, error) {
	p, err := decodeFields(b)
	if err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// CheckPatch checks a JSON merge patch of a policy as far as it can
// without the policy it applies to: one JSON object, every key a policy
// field (an unknown one is refused at any depth, naming it), every value
// of the field's type or null. MergePatch validates the result. Errors are
// *Error, as Decode's. Pure.
func CheckPatch(b []byte) error {
	_, err := decodeFields(b)
	return err
}

// DecodeSet reads a set of policies (the --policies file's shape: policy
// name to policy document, each as Decode reads it) and checks it whole
// (CheckSet). Errors are *Error naming the policy (Tube) and the field.
// null or {} is no policy. Pure.
func DecodeSet(docs map[string]json.RawMessage) (map[string]Policy, error) {
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make(map[string]Policy, len(docs))
	for _, name := range names {
		if !tubename.Valid([]byte(name)) {
			return nil, &Error{Tube: name, Field: "tube", Reason: "not a valid tube name"}
		}
		if s := strings.TrimSpace(string(docs[name])); s == "null" {
			out[name] = Policy{}
			continue
		}
		p, err := Decode(docs[name])
		if err != nil {
			e := *err.(*Error)
			e.Tube = name
			return nil, &e
		}
		out[name] = p
	}
	if err := CheckSet(nonZero(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// nonZero returns set without its zero policies (which are no policy).
func nonZero(set map[string]Policy) map[string]Policy {
	out := make(map[string]Policy, len(set))
	for name, p := range set {
		if !p.IsZero() {
			out[name] = p
		}
	}
	return out
}

// Message says what is wrong with a refused policy in the API's words:
// "field: reason", or the reason alone when no field is at fault (the
// document as a whole is wrong). Other errors are their Error().
func Message(err error) string {
	var pe *Error
	if !errors.As(err, &pe) {
		return err.Error()
	}
	if pe.Field == "" {
		return pe.Reason
	}
	return pe.Field + ": " + pe.Reason
}

// decodeFields is Decode short of Validate: one JSON object of known
// fields with the right types (null leaves a field at its zero value).
func decodeFields(b []byte) (Policy, error) {
	var p Policy
	var generic any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return p, &Error{Reason: "not JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return p, &Error{Reason: "want one JSON object, found more after it"}
	}
	if _, ok := generic.(map[string]any); !ok {
		return p, &Error{Reason: "want a JSON object of policy fields"}
	}
	if err := knownFields(generic, reflect.TypeFor[Policy](), ""); err != nil {
		return p, err
	}
	strict := json.NewDecoder(bytes.NewReader(b))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&p); err != nil {
		return Policy{}, decodeError(err)
	}
	return p, nil
}

// knownFields walks a decoded document beside the Go type it must fill and
// reports the first key no json tag names, with its path.
func knownFields(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil // a type error, reported by the decoder
		}
		for _, key := range sortedKeys(m) {
			f, ok := fieldByTag(t, key)
			if !ok && readOnlyField(t, key) {
				continue // shown by the admin API, ignored when sent back
			}
			if !ok {
				return &Error{Field: join(path, key), Reason: "unknown field"}
			}
			if err := knownFields(m[key], f.Type, join(path, key)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, e := range l {
			if err := knownFields(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// readOnlyField reports whether key, met in a decoded object of Go type t,
// is one the admin API shows but a policy does not take: a schedule's
// last_run and next_run.
func readOnlyField(t reflect.Type, key string) bool {
	return t == reflect.TypeFor[Schedule]() && (key == "last_run" || key == "next_run")
}

// fieldByTag finds the struct field whose json name is key (exactly, as
// the API documents the names; encoding/json would also accept other
// cases).
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if name == key && name != "-" && f.IsExported() {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// kindWord says what a Go type wants, in the API's words.
func kindWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		return fmt.Sprintf("a whole number from 0 to %d", uint64(1)<<(t.Bits())-1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Bool:
		return "true or false"
	}
	return t.String()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// decodeError names the field of a decoding error: an *Error as it is, a
// type error with the field's path, an unknown field by its name.
func decodeError(err error) error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &Error{Field: te.Field, Reason: "want " + kindWord(te.Type) + ", not " + te.Value}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &Error{Field: strings.Trim(f, `"`), Reason: "unknown field"}
	}
	return &Error{Reason: strings.TrimPrefix(err.Error(), "json: ")}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
