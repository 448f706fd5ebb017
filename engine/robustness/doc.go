// Package robustness is stalkd's robustness suite, after etcd's: random
// concurrent clients against real stalkd processes - a single node with a
// job log (-b) and a three-node cluster with node TLS - while faults are
// injected one at a time and in mixes (SIGKILL and restart, SIGSTOP and
// SIGCONT, partitions and one-way loss through enginetest.FaultProxy, a
// stalled or failing disk, a full disk, a stepped wall clock, a torn raft
// log), every history then checked for linearizability against the
// queue's model (package model) with porcupine. It is test code only: this
// file is its documentation, the rest are _test.go files.
//
// Faults inside a process (disk, clock) go through failpoints: the suite
// builds cmd/stalkd with -tags failpoints, which compiles hooks into wal
// and wal/raft that read a control file (package wal/failpoint). A
// production build carries none of it (TestProductionBuildHasNoFailpoints).
//
//	go test -timeout 10m ./engine/robustness/                    # the short pass (in make test)
//	STALKD_ROBUST_MINUTES=30 nice go test -timeout 0 -run 'TestRobustness$' -v ./engine/robustness/
//	STALKD_ROBUST_SEED=N STALKD_ROBUST_FAULTS=kill-leader go test -timeout 10m -run 'TestRobustness$' -v ./engine/robustness/
//	STALKD_ROBUST_RECHECK=DIR/history.jsonl go test -timeout 15m -run TestRecheck -v ./engine/robustness/
//
// The short pass runs each fault once on small histories (two groups of
// three clients, about 1.5 s of traffic around each fault): about two
// dozen histories, 100-1200 operations each, each checked in well under a
// second. The single node, two cluster shards and the planted bug's
// cluster run side by side (TestMain raises -test.parallel's default).
// STALKD_ROBUST_MINUTES=N goes round the faults for N minutes with larger
// histories.
//
// # Bounded checks
//
// porcupine keeps every state it reaches, and the outcomes not known can
// make very many: a check is bounded (model.Limits: 30 s and 128 MB of
// states in the short pass, 3 min and 512 MB in a long run; one check at a
// time in the process). A check stopped by a bound is undecided: it fails
// the history (it is not a pass) and is counted apart in summary.json
// (undecided_checks) beside the histories, operations, faults, violations,
// the longest check and the most possible queues one state held.
//
// # The planted bug
//
// A failpoints build started with STALKD_PLANTED_BUG=ack-before-commit
// answers put before the journal commits the job (engine/plantedbug_on.go;
// production builds hold a constant false). TestPlantedBugIsCaught runs a
// cluster so, cuts its leader off, and requires the checker to find the
// history not linearizable: a suite that cannot fail proves nothing.
//
// A failing history is saved (seed, every operation as sent and heard,
// porcupine's HTML rendering, the nodes' logs) in a directory the test
// prints; the seed replays its traffic choices and fault schedule (not the
// scheduling of the processes). What each fault must give is written in
// the cluster guide, wal/raft/README.md ("Robustness").
package robustness
