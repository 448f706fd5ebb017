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
//	go test ./engine/robustness/                                  # the short pass: each fault once (~1-2 min)
//	STALKD_ROBUST_MINUTES=30 nice go test -timeout 0 -run TestRobustness -v ./engine/robustness/
//	STALKD_ROBUST_SEED=N STALKD_ROBUST_FAULTS=kill-leader go test -run TestRobustness -v ./engine/robustness/
//	STALKD_ROBUST_RECHECK=DIR/history.jsonl go test -run TestRecheck -v ./engine/robustness/
//
// A failing history is saved (seed, every operation as sent and heard,
// porcupine's HTML rendering, the nodes' logs) in a directory the test
// prints; the seed replays its traffic choices and fault schedule (not the
// scheduling of the processes). What each fault must give is written in
// the cluster guide, wal/raft/README.md ("Robustness").
package robustness
