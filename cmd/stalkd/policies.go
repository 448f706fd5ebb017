package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
)

// --policies FILE: the tube policies (jobs/POLICIES.md), kept in a file
// that is the truth. The file is read and checked whole while the command line
// is parsed (each policy by the admin API's rules, then the rules across
// tubes: a dead letter naming its own tube, dead-letter cycles); a bad
// file stops the start, exit 5, naming the file, the tube and the field.
// The server's policies are then exactly the file's: applied as one
// change (one journal record) before it serves, on a single node after
// the journal is replayed, in a cluster each time this node becomes the
// leader; tubes no longer in the file lose their policy. SIGHUP reads the
// file again and applies it the same way, or, if it is bad, logs why and
// changes nothing (policyreload.go). While a file is in force the admin
// API refuses to change policies (409 managed_by_file).

const policiesUsage = ` --policies FILE
          the tube policies: a YAML or JSON map of tube name to policy
          (max_reserves, dead_letter, max_ready, overflow, reserve_rate,
          schedule). The server's policies are exactly the file's; SIGHUP
          re-reads it; the admin API may not change them. See
          cmd/stalkd/README.md
`

// policySet is the checked content of --policies: tube name -> policy.
type policySet map[string]jobs.Policy

// policyFile is --policies: the file's path and the last content read
// from it that passed the checks. Safe for concurrent use.
type policyFile struct {
	path string
	mu   sync.Mutex
	set  policySet
}

// name is the file's path ("" for a nil policyFile: no file).
func (f *policyFile) name() string {
	if f == nil {
		return ""
	}
	return f.path
}

// current returns the last good content (the caller must not modify it).
func (f *policyFile) current() policySet {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set
}

// reload reads and checks the file again; on success its content becomes
// current and is returned, otherwise current is left as it was.
func (f *policyFile) reload() (policySet, error) {
	set, err := loadPolicies(f.path)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.set = set
	f.mu.Unlock()
	return set, nil
}

// configError is a bad configuration file: exit 5 with the message, but
// without the usage text (the command line itself was fine).
type configError string

func (e configError) Error() string { return string(e) }

func init() {
	longFlags["policies"] = func(o *options, v string) error {
		if v == "" {
			return usageError("--policies needs a file")
		}
		f := &policyFile{path: v}
		if _, err := f.reload(); err != nil {
			return configError(err.Error())
		}
		o.policies = f
		return nil
	}
}

// loadPolicies reads a policies file: JSON for a .json name or text that
// starts with '{', YAML otherwise. Every policy is decoded by the admin
// API's own rules (admin.DecodePolicy: unknown fields, types, Validate),
// so a policy the file accepts is one the API accepts, and the reverse;
// then the whole set is checked (jobs.CheckPolicies: no dead letter
// naming its own tube, no dead-letter cycle). Every error names the file,
// and the tube and the field at fault when there is one.
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
	if err := jobs.CheckPolicies(out); err != nil {
		var pe *jobs.PolicyError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("--policies %s: tube %q: %s", name, pe.Tube, admin.PolicyMessage(err))
		}
		return nil, fmt.Errorf("--policies %s: %w", name, err)
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
