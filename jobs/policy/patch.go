package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// MergePatch returns p changed by patch, a JSON merge patch (RFC 7386):
// each key of the patch object sets that field ("schedule" replaces the
// whole list), a null removes it (back to its zero value: no limit, no
// schedule), and keys left out keep p's value. A schedule given in the
// patch gets DefaultPriority and DefaultTTR where it leaves them out. The
// result is validated; any error is an *Error naming the field ("" when
// the patch as a whole is wrong), and p is not changed (it is a value).
//
// It is a pure function, safe for concurrent use; the queue calls it
// under its policy lock to apply a patch atomically (Queue.UpdatePolicySeq).
func MergePatch(p Policy, patch []byte) (Policy, error) {
	pv, err := decodeGeneric(patch)
	if err != nil {
		return Policy{}, &Error{Reason: "not JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	pm, ok := pv.(map[string]any)
	if !ok {
		return Policy{}, &Error{Reason: "a merge patch is a JSON object of policy fields"}
	}
	cur, err := json.Marshal(p)
	if err != nil {
		return Policy{}, &Error{Reason: err.Error()}
	}
	doc, err := decodeGeneric(cur)
	if err != nil {
		return Policy{}, &Error{Reason: err.Error()}
	}
	merged, err := json.Marshal(mergeValue(doc, pm))
	if err != nil {
		return Policy{}, &Error{Reason: err.Error()}
	}
	var out Policy
	dec := json.NewDecoder(bytes.NewReader(merged))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return Policy{}, decodeError(err)
	}
	if err := out.Validate(); err != nil {
		return Policy{}, err
	}
	return out, nil
}

// mergeValue is RFC 7386's MergePatch(target, patch). It may change target.
func mergeValue(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergeValue(tm[k], v)
	}
	return tm
}

// decodeGeneric reads exactly one JSON value, numbers kept as text.
func decodeGeneric(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("want one JSON value, found more after it")
	}
	return v, nil
}

// decodeError names the field of a decoding error.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &Error{Field: te.Field, Reason: "want " + te.Type.String() + ", not " + te.Value}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &Error{Field: strings.Trim(f, `"`), Reason: "unknown field"}
	}
	return &Error{Reason: strings.TrimPrefix(err.Error(), "json: ")}
}
