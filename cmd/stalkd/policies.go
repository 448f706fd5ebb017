package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/rs/zerolog"
	"gopkg.in/yaml.v3"

	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
)

// --policies FILE: tube policies (jobs/POLICIES.md) kept in a file, read and
// checked while the command line is parsed (a bad file stops the start,
// exit 5, naming the tube and the field), and applied to the queue before
// it serves: on a single node after the journal is replayed, in a cluster
// each time this node becomes the leader. The file sets the policies of
// the tubes it names; policies of other tubes (set through the admin API)
// stay as the journal holds them.

const policiesUsage = ` --policies FILE
          tube policies to apply at start: a YAML or JSON map of tube name
          to policy (max_reserves, dead_letter, max_ready, reserve_rate,
          schedule); see cmd/stalkd/README.md
`

// policySet is the checked content of --policies: tube name -> policy.
type policySet map[string]jobs.Policy

func init() {
	longFlags["policies"] = func(o *options, v string) error {
		if v == "" {
			return usageError("--policies needs a file")
		}
		ps, err := loadPolicies(v)
		if err != nil {
			return usageError(err.Error())
		}
		o.policies = ps
		return nil
	}
}

// loadPolicies reads a policies file: JSON for a .json name or text that
// starts with '{', YAML otherwise. Every policy is decoded by the admin
// API's own rules (admin.DecodePolicy: unknown fields, types, Validate),
// so a policy the file accepts is one the API accepts, and the reverse.
func loadPolicies(name string) (policySet, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("--policies: %w", err)
	}
	raw, err := policyDocs(name, b)
	if err != nil {
		return nil, fmt.Errorf("--policies %s: %w", name, err)
	}
	out := make(policySet, len(raw))
	for _, tube := range sortedTubes(raw) {
		if !jobs.ValidTubeName([]byte(tube)) {
			return nil, fmt.Errorf("--policies %s: %q is not a valid tube name", name, tube)
		}
		p, err := admin.DecodePolicy(raw[tube])
		if err != nil {
			return nil, fmt.Errorf("--policies %s: tube %q: %s", name, tube, admin.PolicyMessage(err))
		}
		out[tube] = p
	}
	return out, nil
}

// policyDocs splits the file into one JSON document per tube.
func policyDocs(name string, b []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(b)
	if strings.EqualFold(filepath.Ext(name), ".json") || bytes.HasPrefix(trimmed, []byte("{")) {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("not a JSON object of tube name to policy: %w", err)
		}
		return raw, nil
	}
	var doc map[string]any
	if err := yaml.Unmarshal(trimmed, &doc); err != nil {
		return nil, fmt.Errorf("not a YAML map of tube name to policy: %w", err)
	}
	raw := make(map[string]json.RawMessage, len(doc))
	for tube, v := range doc {
		// YAML's values as JSON, for the one decoder of policies.
		j, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("tube %q: %w", tube, err)
		}
		raw[tube] = j
	}
	return raw, nil
}

func sortedTubes[V any](m map[string]V) []string {
	tubes := make([]string, 0, len(m))
	for t := range m {
		tubes = append(tubes, t)
	}
	slices.Sort(tubes)
	return tubes
}

// applyPolicies sets each policy of the file on q, in name order, except
// those the queue holds already (a restart, or a new term in a cluster,
// then writes nothing to the journal). The file was checked whole before,
// so a failure here is the journal's.
func applyPolicies(q *jobs.Queue, ps policySet, log zerolog.Logger) error {
	var errs []error
	for _, tube := range sortedTubes(ps) {
		if cur, ok := q.Policy(tube); ok && reflect.DeepEqual(cur, ps[tube]) {
			continue
		}
		if err := q.SetPolicy(tube, ps[tube]); err != nil {
			errs = append(errs, fmt.Errorf("--policies: tube %q: %w", tube, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if len(ps) > 0 {
		log.Info().Int("policies", len(ps)).Msg("tube policies applied")
	}
	return nil
}
