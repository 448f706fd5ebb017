package main

import (
	"encoding/json"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// The output of the policy command (policy.go).

// policiesResult prints tube -> policy as a --policies file (YAML), or as
// JSON: for one tube (get, set) the policy itself, as the API answered
// (get: with each schedule's last_run and next_run, which PUT ignores);
// for list the same tube -> policy map as the YAML, so that list --json
// is a --policies file too. In YAML a schedule's runs are a comment above
// it: what get prints can be set again as it is.
type policiesResult struct {
	all map[string]json.RawMessage
	one bool
}

func (r policiesResult) json() any {
	if r.one {
		for _, p := range r.all {
			return p
		}
	}
	return r.all
}

func (r policiesResult) print(w io.Writer) {
	if len(r.all) == 0 {
		io.WriteString(w, "# no tube has a policy\n{}\n")
		return
	}
	doc := make(map[string]yaml.Node, len(r.all))
	for tube, raw := range r.all {
		var n yaml.Node
		// JSON is YAML: decoding the API's object keeps its keys and
		// values; re-encoding prints them in block style, in API order.
		if err := yaml.Unmarshal(raw, &n); err != nil || len(n.Content) == 0 {
			continue
		}
		blockStyle(n.Content[0])
		runsAsComments(n.Content[0])
		doc[tube] = *n.Content[0]
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	_ = enc.Encode(doc)
	_ = enc.Close()
}

// blockStyle turns JSON's flow style into YAML's block style, keeping
// strings quoted only where YAML needs it.
func blockStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		n.Style &^= yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// removedResult is policy rm's output.
type removedResult struct{ tube string }

func (r removedResult) print(w io.Writer) { fmt.Fprintf(w, "removed the policy of tube %q\n", r.tube) }
func (r removedResult) json() any {
	return map[string]any{"tube": r.tube, "removed": true}
}

// runsAsComments turns each schedule's last_run and next_run (GET of one
// policy) into a comment above the schedule: read-only facts, not fields
// to set.
func runsAsComments(policy *yaml.Node) {
	sched := mapValue(policy, "schedule")
	if sched == nil || sched.Kind != yaml.SequenceNode {
		return
	}
	for _, item := range sched.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		last, next := mapValue(item, "last_run"), mapValue(item, "next_run")
		if last == nil && next == nil {
			continue
		}
		item.HeadComment = "last run " + runText(last, "never") + ", next run " + runText(next, "none")
		var kept []*yaml.Node
		for i := 0; i+1 < len(item.Content); i += 2 {
			if k := item.Content[i].Value; k != "last_run" && k != "next_run" {
				kept = append(kept, item.Content[i], item.Content[i+1])
			}
		}
		item.Content = kept
	}
}

// mapValue returns the value of key in a YAML mapping node, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func runText(n *yaml.Node, none string) string {
	if n == nil || n.Tag == "!!null" || n.Value == "" {
		return none
	}
	return n.Value
}
