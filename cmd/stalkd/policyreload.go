package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// Applying a policy file: at start, at each election in a cluster, and on
// SIGHUP. The file's set replaces the server's policies in one change (one
// journal record, jobs.Queue.ReplacePoliciesSeq; a cluster forwards it to
// the leader), and each tube's change is logged with its policy before and
// after.

// replaceFunc makes a set the server's policies exactly and reports what
// changed: the queue's ReplacePoliciesSeq (waiting for the commit), or a
// cluster node's ForwardReplacePolicies.
type replaceFunc func(set map[string]jobs.Policy) ([]jobs.PolicyChange, error)

// commitWait bounds how long a policy change waits for its journal commit
// (an fsync at most, normally).
const commitWait = 30 * time.Second

// queueReplace is replaceFunc for a queue this process serves: it returns
// once the change is committed (as durable as -f promises).
func queueReplace(q *jobs.Queue) replaceFunc {
	return func(set map[string]jobs.Policy) ([]jobs.PolicyChange, error) {
		changes, seq, err := q.ReplacePoliciesSeq(set)
		if err != nil {
			return nil, err
		}
		return changes, waitCommitted(q, seq, commitWait)
	}
}

// waitCommitted waits until journal record seq of q is committed. A policy
// change is rare: a short poll is simpler than a subscription here.
func waitCommitted(q *jobs.Queue, seq uint64, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		done, err := q.Committed(seq)
		if done {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("the journal did not commit the change in time")
		}
		time.Sleep(time.Millisecond)
	}
}

// applyPolicyFile makes the file's set the server's policies with replace
// and logs each change (tube, before, after) and a summary. why says what
// applies it ("start", "reload", "leader").
func applyPolicyFile(f *policyFile, set policySet, replace replaceFunc, why string, log zerolog.Logger) error {
	changes, err := replace(set)
	if err != nil {
		return fmt.Errorf("--policies %s: %w", f.path, err)
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

// reloadPolicyFile is SIGHUP's policy half: read the file again and, if it
// passes the checks, apply it; a bad file, or a change the queue refuses,
// is logged and changes nothing (the server keeps its policies and the
// last good content of the file).
func reloadPolicyFile(f *policyFile, replace replaceFunc, log zerolog.Logger) {
	set, err := f.reload()
	if err == nil {
		err = applyPolicyFile(f, set, replace, "reload", log)
	}
	if err != nil {
		log.Error().Err(err).Str("file", f.path).Msg("policy file not applied: the policies are unchanged")
	}
}
