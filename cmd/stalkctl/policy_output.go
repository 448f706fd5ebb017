package main

import (
	"encoding/json"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// The output of the policy command (policy.go).

// policiesResult prints tube -> policy as a --policies file (YAML), or as
// JSON: for one tube (get, set) the policy itself, as PUT takes it; for
// list the API's {"policies": {tube: policy}}.
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
	return map[string]any{"policies": r.all}
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
