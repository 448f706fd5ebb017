package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

// clusterNodeArgs turn a single-node template into a cluster node's (see
// loadgen's cluster templates). --raft-timeout 1s: on a loaded 2-core box
// the default 300 ms lets a starved leader lose its lease mid-run.
const clusterNodeArgs = " -b {dir} --raft-id {id} --raft-addr {raft} --raft-peers {peers} --raft-timeout 1s"

// clusterPair is one comparison of cluster-all: A against B.
type clusterPair struct{ a, b, labelA, labelB string }

// clusterMatrix is the case list of cluster-all: put with one client, 100
// clients and 10 connections x 64 pipelined - a worker, a busy service and
// a bulk loader - each measured against one -b -f0 node (clusterPairs).
func clusterMatrix(d time.Duration) []matrixCase {
	timed := func(c loadgen.Config) loadgen.Config {
		c.Warmup, c.Duration = time.Second, d
		return c
	}
	const put = loadgen.ScenarioPut
	return []matrixCase{
		{name: "cluster-put-1conn", cfg: timed(loadgen.Config{Scenario: put, Conns: 1})},
		{name: "cluster-put-100conns", cfg: timed(loadgen.Config{Scenario: put, Conns: 100})},
		{name: "cluster-put-pipelined", cfg: timed(loadgen.Config{Scenario: put, Conns: 10, Pipeline: 64})},
	}
}

// clusterPairs are the comparisons of every cluster case, built from the
// single-node template t: through the leader against one `-b -f0` node,
// and through a follower against through the leader.
func clusterPairs(t string) []clusterPair {
	single := t + " -b {dir} -f0"
	node := t + clusterNodeArgs
	return []clusterPair{
		{a: "cluster:leader " + node, b: single, labelA: "cluster via leader", labelB: "single -b -f0"},
		{a: "cluster:follower " + node, b: "cluster:leader " + node, labelA: "cluster via follower", labelB: "cluster via leader"},
	}
}

// runClusterMatrix runs cluster-all: every cluster case (those whose name
// contains --only), each comparison in alternating rounds, all in this run.
func runClusterMatrix(o *options, stdout, stderr io.Writer) error {
	if o.server == "" || !strings.Contains(o.server, "{port}") {
		return fmt.Errorf("cluster-all needs --server: a stalkd command with {port} and without -b, e.g. './bin/stalkd -l 127.0.0.1 -p {port}'")
	}
	d := o.cfg.Duration
	if d <= 0 {
		d = 5 * time.Second
	}
	var failed []string
	for _, mc := range clusterMatrix(d) {
		if !strings.Contains(mc.name, o.only) {
			continue
		}
		for _, p := range clusterPairs(o.server) {
			sub := *o
			sub.server, sub.serverA, sub.serverB = "", p.a, p.b
			sub.labelA, sub.labelB = p.labelA, p.labelB
			sub.scenario, sub.cfg = mc.cfg.Scenario, mc.cfg
			sub.cfg.Progress, sub.cfg.TLS = o.cfg.Progress, o.cfg.TLS
			sub.cfg.NoDrain = true // every run has fresh servers
			fmt.Fprintf(stdout, "\n## %s: %s / %s\n$ %s %s\n", mc.name, p.labelA, p.labelB,
				commandLine(sub.cfg), sub.targetFlags())
			if err := runCompare(&sub, stdout, stderr); err != nil {
				failed = append(failed, mc.name)
				fmt.Fprintf(stderr, "stalkd-bench: %s: %v\n", mc.name, err)
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed: %s", strings.Join(failed, ", "))
	}
	return nil
}
