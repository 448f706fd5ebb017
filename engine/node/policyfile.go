package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
)

// The policy file (Config.PolicyFile; jobs/POLICIES.md): tube policies
// kept in a file that is the truth. It is read and checked whole (each
// policy by the admin API's rules, then the rules across tubes: a dead
// letter naming its own tube, dead-letter cycles); the server's policies
// are then exactly the file's, applied as one change (one journal record)
// before it serves, on a single server after the journal is replayed, in a
// cluster each time this node becomes the leader; tubes no longer in the
// file lose their policy. Reload reads it again and applies it the same
// way, or, if it is bad, logs why and changes nothing (policyapply.go).
// While a file is in force the admin API refuses to change policies (409
// managed_by_file).

// LoadPolicyFile reads and checks a policy file as Start does, and returns
// its policies by tube name: JSON for a .json name or text that starts
// with '{', YAML otherwise. Every policy is decoded by the admin API's own
// rules (admin.DecodePolicy: unknown fields, types, Validate), so a policy
// the file accepts is one the API accepts, and the reverse; then the whole
// set is checked (jobs.CheckPolicies). Every error is a *ConfigError
// naming the file (Config.PolicyFile by names: nil names it by the field),
// and the tube and the policy field at fault when there is one. It reads
// the file and nothing else; safe for concurrent use.
func LoadPolicyFile(path string, names func(field string) string) (map[string]jobs.Policy, error) {
	c := &Config{Names: names}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, c.refuse("{PolicyFile}: %v", err)
	}
	raw, err := policyDocs(path, b)
	if err != nil {
		return nil, c.refuse("{PolicyFile} %s: %v", path, err)
	}
	out := make(map[string]jobs.Policy, len(raw))
	for _, tube := range slices.Sorted(maps.Keys(raw)) {
		if !jobs.ValidTubeName([]byte(tube)) {
			return nil, c.refuse("{PolicyFile} %s: %q is not a valid tube name", path, tube)
		}
		p, err := admin.DecodePolicy(raw[tube])
		if err != nil {
			return nil, c.refuse("{PolicyFile} %s: tube %q: %s", path, tube, admin.PolicyMessage(err))
		}
		out[tube] = p
	}
	if err := jobs.CheckPolicies(out); err != nil {
		var pe *jobs.PolicyError
		if errors.As(err, &pe) {
			return nil, c.refuse("{PolicyFile} %s: tube %q: %s", path, pe.Tube, admin.PolicyMessage(err))
		}
		return nil, c.refuse("{PolicyFile} %s: %v", path, err)
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

// policyFile is Config.PolicyFile while the node runs: its path and the
// last content read from it that passed the checks. Safe for concurrent
// use; a nil *policyFile is no file.
type policyFile struct {
	path  string
	names func(string) string
	mu    sync.Mutex
	set   map[string]jobs.Policy
}

// openPolicyFile reads the file named by c (nil without one).
func openPolicyFile(c *Config) (*policyFile, error) {
	if c.PolicyFile == "" {
		return nil, nil
	}
	f := &policyFile{path: c.PolicyFile, names: c.Names}
	if _, err := f.reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// name is the file's path ("" for a nil policyFile: no file).
func (f *policyFile) name() string {
	if f == nil {
		return ""
	}
	return f.path
}

// current returns the last good content (the caller must not modify it).
func (f *policyFile) current() map[string]jobs.Policy {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set
}

// reload reads and checks the file again; on success its content becomes
// current and is returned, otherwise current is left as it was.
func (f *policyFile) reload() (map[string]jobs.Policy, error) {
	set, err := LoadPolicyFile(f.path, f.names)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.set = set
	f.mu.Unlock()
	return set, nil
}
