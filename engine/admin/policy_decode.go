package admin

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

	"github.com/stalkd/stalkd/jobs"
)

// DecodePolicy reads one tube policy in the JSON the admin API takes (the
// fields of jobs.Policy by their json names) and validates it. It refuses
// what is not exactly one JSON object, an unknown field (at any depth:
// "schedule[1].crn"), a value of the wrong type, and whatever
// jobs.Policy.Validate refuses. Every error is a *jobs.PolicyError naming
// the field ("" when the document as a whole is wrong), so that the API,
// the daemon's --policies file and stalkctl report the same words.
//
// It is a pure function, safe for concurrent use.
func DecodePolicy(b []byte) (jobs.Policy, error) {
	p, err := decodeFields(b)
	if err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// decodeFields is DecodePolicy short of Validate: one JSON object of known
// fields with the right types (null leaves a field at its zero value).
func decodeFields(b []byte) (jobs.Policy, error) {
	var p jobs.Policy
	var generic any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return p, &jobs.PolicyError{Reason: "not JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return p, &jobs.PolicyError{Reason: "want one JSON object, found more after it"}
	}
	if _, ok := generic.(map[string]any); !ok {
		return p, &jobs.PolicyError{Reason: "want a JSON object of policy fields"}
	}
	if err := knownFields(generic, reflect.TypeFor[jobs.Policy](), ""); err != nil {
		return p, err
	}
	strict := json.NewDecoder(bytes.NewReader(b))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&p); err != nil {
		return p, typeError(err)
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
				continue // shown by GET, ignored when sent back (policy_view.go)
			}
			if !ok {
				return &jobs.PolicyError{Field: join(path, key), Reason: "unknown field"}
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

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
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

// typeError turns the decoder's error into a PolicyError naming the field.
func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &jobs.PolicyError{Field: te.Field, Reason: "want " + kindWord(te.Type) + ", not " + te.Value}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &jobs.PolicyError{Field: strings.Trim(f, `"`), Reason: "unknown field"}
	}
	return &jobs.PolicyError{Reason: strings.TrimPrefix(err.Error(), "json: ")}
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

// PolicyMessage says what is wrong with a refused policy in the API's
// words: "field: reason", or the reason alone when no field is at fault
// (the body as a whole is wrong). Other errors are their Error().
func PolicyMessage(err error) string {
	var pe *jobs.PolicyError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	if pe.Field == "" {
		return pe.Reason
	}
	return pe.Field + ": " + pe.Reason
}
