// Package admin is stalkd's admin listener: one net/http server, off the
// command path, that serves
//
//   - /metrics: Prometheus metrics, read from the queue's own counters at
//     scrape time by a custom collector (no metric is incremented on the
//     command path);
//   - /healthz and /readyz: liveness and readiness;
//   - /v1/...: a JSON API to inspect tubes and jobs and to kick, delete,
//     pause and clear, to redrive a dead-letter tube and move a job
//     (redrive.go; a follower forwards both through a MoveForwarder), and to
//     read, set, merge (PATCH, policy_patch.go) and remove tube policies
//     (policy.go; DecodePolicy is the one decoder of a policy, which the
//     daemon's --policies file shares; each schedule is shown with its last
//     and next run, policy_view.go); for a cluster member (Options.Cluster), /v1/cluster
//     and its membership calls, and 421 not_leader from the queue endpoints
//     of a follower (cluster.go);
//   - /: a dashboard (embedded HTML, CSS and JavaScript; no CDN).
//
// # Usage
//
//	a, err := admin.Start(admin.Options{Addr: "127.0.0.1:11380", Queue: q})
//	if err != nil { ... }
//	defer a.Stop(context.Background())
//
// # Safety
//
// Tube names and job bodies are attacker-controlled. The JSON API encodes a
// body as base64 plus a UTF-8-safe text preview, bounded by a limit; the
// dashboard renders all data with textContent (never as HTML) under a strict
// Content-Security-Policy. Mutating calls are refused (403) unless
// allowMutation accepts the request: today that needs a loopback or Unix
// socket listener, a Host header naming a loopback address (against DNS
// rebinding) and, when a browser sends an Origin, one matching the Host
// (against cross-site requests). A call that changes tube policies also
// passes policyGuard (guard.go: every route declared with policyRoute):
// while a policy file owns them (Options.PolicyFile) it is refused with
// 409 managed_by_file.
//
// # Imports and concurrency
//
// admin imports jobs, net/http, prometheus/client_golang and zerolog; never
// gnet or engine (the daemon hands it functions for what only those know).
// A Server's methods are safe for concurrent use; every handler reads the
// queue through its concurrency-safe methods, and actions run on a
// short-lived jobs.Session of their own (so each action counts as one
// connection in total-connections, as a protocol client would).
package admin
