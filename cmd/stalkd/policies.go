package main

import (
	"github.com/stalkd/stalkd/engine/node"
	"github.com/stalkd/stalkd/jobs"
)

// --policies FILE: the tube policies, kept in a file that is the truth
// (node.Config.PolicyFile, jobs/POLICIES.md). The file is read and
// checked whole while the command line is parsed (node.LoadPolicyFile); a
// bad file stops the start, exit 5, naming the file, the tube and the
// field. The node reads it again as it starts, on SIGHUP and, in a
// cluster, at each election.

const policiesUsage = ` --policies FILE
          the tube policies: a YAML or JSON map of tube name to policy
          (max_reserves, dead_letter, max_ready, overflow, reserve_rate,
          schedule). The server's policies are exactly the file's; SIGHUP
          re-reads it; the admin API may not change them. See
          cmd/stalkd/README.md
`

// policySet is the checked content of --policies: tube name -> policy.
type policySet = map[string]jobs.Policy

// policyFlag is --policies: the file and what it held, checked, when the
// command line was parsed.
type policyFlag struct {
	path string
	set  policySet
}

// current is the file's content as parsed (the caller must not modify it).
func (f *policyFlag) current() policySet { return f.set }

// configError is a bad configuration file: exit 5 with the message, but
// without the usage text (the command line itself was fine).
type configError string

func (e configError) Error() string { return string(e) }

func init() {
	longFlags["policies"] = func(o *options, v string) error {
		if v == "" {
			return usageError("--policies needs a file")
		}
		set, err := node.LoadPolicyFile(v, flagName)
		if err != nil {
			return configError(err.Error())
		}
		o.policies = &policyFlag{path: v, set: set}
		return nil
	}
}
