package node

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/jobs"
)

// Applying the policy file: at start, at each election in a cluster, and on
// Reload. The file's set replaces the server's policies in one change (one
// journal record, jobs.Queue.ReplacePoliciesSeq; a cluster forwards it to
// the leader), and each tube's change is logged with its policy before and
// after.

// replaceFunc makes a set the server's policies exactly and reports what
// changed: an embedded queue's ReplacePolicies (waiting for the commit),
// a new leader's queue, or a cluster node's ForwardReplacePolicies.
type replaceFunc func(set map[string]jobs.Policy) ([]jobs.PolicyChange, error)

// commitWait bounds how long a policy change waits for its journal commit
// (an fsync at most, normally).
const commitWait = 30 * time.Second

// queueReplace is replaceFunc for a queue this process serves: it returns
// once the change is committed (as durable as the fsync policy promises).
func queueReplace(q *embed.Queue) replaceFunc {
	return func(set map[string]jobs.Policy) ([]jobs.PolicyChange, error) {
		ctx, cancel := context.WithTimeout(context.Background(), commitWait)
		defer cancel()
		return q.ReplacePolicies(ctx, set)
	}
}

// applyPolicyFile makes the file's set the server's policies with replace
// and logs each change (tube, before, after) and a summary. why says what
// applies it ("start", "reload", "leader").
func applyPolicyFile(f *policyFile, set map[string]jobs.Policy, replace replaceFunc, why string, log zerolog.Logger) error {
	changes, err := replace(set)
	if err != nil {
		c := Config{Names: f.names}
		return fmt.Errorf("%s: %w", c.say("{PolicyFile} %s", f.path), err)
	}
	for _, ch := range changes {
		log.Info().Str("file", f.path).Str("tube", ch.Tube).RawJSON("before", policyJSON(ch.Before)).
			RawJSON("after", policyJSON(ch.After)).Msg("tube policy changed by the policy file")
	}
	log.Info().Str("file", f.path).Str("on", why).Int("policies", len(set)).Int("changed", len(changes)).
		Msg("policy file applied")
	return nil
}

// policyJSON is a policy as the log shows it (null: none).
func policyJSON(p *jobs.Policy) []byte {
	if p == nil {
		return []byte("null")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return []byte("null")
	}
	return b
}

// reloadPolicyFile is Reload's policy half: read the file again and, if
// it passes the checks, apply it; a bad file, or a change the queue
// refuses, is logged, changes nothing (the server keeps its policies and
// the last good content of the file) and is returned.
func reloadPolicyFile(f *policyFile, replace replaceFunc, log zerolog.Logger) error {
	set, err := f.reload()
	if err == nil {
		err = applyPolicyFile(f, set, replace, "reload", log)
	}
	if err != nil {
		log.Error().Err(err).Str("file", f.path).Msg("policy file not applied: the policies are unchanged")
	}
	return err
}
