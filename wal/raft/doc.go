// Package raft replicates stalkd's queue on a cluster with
// github.com/hashicorp/raft (v1.8.0): a second implementation of the
// jobs.Journal seam whose records are committed on a majority before any
// reply that reports them is sent, and a raft FSM that applies the same
// records on every node.
//
// It may import jobs, hashicorp/raft, hashicorp/raft-wal and zerolog; never
// engine or codec (the network edge uses it, not the other way round).
//
// # Shape
//
//	leader:   session ─► jobs.Queue (Replicated) ─► Journal.Append ─► batcher ─► raft.Apply
//	every node:                         raft log ─► FSM.Apply ─► state (the replicated image)
//	new leader: Barrier, then a fresh jobs.Queue restored from the image
//
// Only the leader runs a queue. Its commands change the queue at once (as a
// single node does) and every change becomes a record; the Journal numbers
// the records, a batcher goroutine packs everything pending into one raft
// entry (group commit: while earlier entries are in flight - at most
// Config.MaxInflight, by default one - new records pile up for the next), and Committed
// advances when raft reports the entry applied, which is after a majority
// stored it. The edge acknowledges a change only then, exactly as with the
// disk journal. Every node's FSM (the leader's too) applies each committed
// entry to its state: the latest whole record of every live job and the
// highest id ever logged. Snapshots are that state, written as records.
// On the leader the state shares each job's body with the queue (the
// journal hands the FSM the queue's slice for the puts it sent), so a job
// body is held once per node.
//
// Followers keep no queue: every command a follower receives is carried out
// by the leader (see Forwarding). When a node becomes leader it waits for
// raft's Barrier (every entry of earlier terms applied), builds a queue
// from its state with jobs.Queue.Restore, makes ids continue above the
// highest id in the log, starts the queue's timers, and only then serves.
// When it loses leadership its queue, its sessions and every reply still
// waiting for a commit are discarded: Committed reports ErrLeadershipLost,
// and such a change may or may not have been committed (as when a single
// server dies between write and reply). Building the queue costs O(jobs)
// at promotion (BenchmarkPromote: about 100 ms per 100k jobs on the
// development box, a third of it sorting); keeping a live queue on
// followers would make promotion instant, at the price of a second apply
// path - left for later. A snapshot holds the FSM while it copies the job
// table (BenchmarkSnapshotCopy: about 4 ms per 100k jobs); the records
// themselves are immutable and written out off the FSM goroutine.
//
// # Membership and stats
//
// AddVoter and RemoveServer change the voter set on the leader (a node
// that lost its disk: remove it, start it empty, add it back; it catches
// up from a snapshot). A node with no state bootstraps from Config.Peers
// only if no other peer answers a probe with the term of a cluster that
// has elected a leader (bootstrap.go):
// a wiped node restarted with its usual flags waits to be added instead of
// founding a second cluster. ForwardAddVoter and ForwardRemoveServer
// may be asked of any node: a follower sends the change to the leader
// over its raft port (forward.go). Stats is the node's view: state,
// leader, term, indexes, entries and records proposed (their ratio is the
// group-commit factor) and the peers; the stats-cluster command shows it.
//
// # Node traffic inside mutual TLS
//
// With Config.TLS the transport on Addr is hashicorp/raft's
// NetworkTransport over a StreamLayer of ours (tls.go) that accepts and
// dials inside TLS: a peer without a certificate the cluster's CA signed
// never reaches raft. The daemon builds both tls.Configs from
// tlscert.NodeTLS (TLS 1.3, the chain verified against the CA, no name
// check, reloaded on SIGHUP); README.md is the operator's guide.
//
// # Time is the cluster's
//
// Delays, TTRs, pauses and reserve timeouts are timers of the leader's
// queue, at a single node's precision (jobs' timing wheels). Their effects
// that matter to others are records: a TTR running out is logged (the job
// back to ready, timeouts+1); a delay ending is not, because a delayed
// record whose deadline has passed restores as ready, which is the same
// state. Deadlines are absolute Unix-epoch nanoseconds of the leader that
// set them; a new leader re-arms every timer from its state. Every node
// notes the leader time the records it applies carry (clock.go), and a new
// leader whose own clock is off from it (a stepped wall clock) runs its
// queue on the cluster's time instead, with a warning. Reserve timeouts
// belong to connections, which do not survive a failover. A tube pause is
// a record (jobs.RecPause: tube, length, end); PAUSED waits for its commit
// and a new leader re-arms it for what is left.
//
// # Read fences
//
// A leader cut off from its followers keeps its queue until it notices,
// and that queue holds changes not yet committed. A command that only
// shows jobs therefore waits for a read fence (Journal.Fence, fence.go):
// it commits after every record appended before it and after proof that
// this node still leads (the next entry, or a VerifyLeader round when no
// record is pending); if leadership is lost first, the read is answered
// INTERNAL_ERROR.
//
// # Reservations
//
// The queue runs in jobs' replicated mode: a reservation is a record with
// state reserved and the TTR's deadline, RESERVED (and TOUCHED) is sent
// only once that record is committed (Session.LastSeq), and a connection
// that closes logs its jobs back to ready. On a new leader a job reserved
// in the state comes back reserved by no session (an orphan) until its
// deadline, and then times out to ready as usual: a job is never handed to
// a second worker while the first one's TTR still runs, even when the node
// holding the worker's connection died. The worker, reconnected to any
// node, may still delete, release, bury or touch it by id: any session
// adopts an orphan it names.
//
// # Ids
//
// Ids are allocated by the leader's queue only; records carry them, the
// state keeps the highest, and a new leader continues above it after its
// Barrier, so ids stay unique across failovers. An id spent on a put that
// was never committed (refused, or lost with the old leader before any
// reply) may be handed out again; no client was ever told it.
//
// # Forwarding
//
// Every node accepts beanstalk clients on its client port, a front.Front (package engine/front):
// each connection's commands are carried to the engine the leader runs for
// its term (bound on the raft host, port 0) and the replies carried back,
// so a client of any node gets the leader's exact replies. Config.OnLeader
// starts that engine and returns its address; the node commits it to the
// log (announce.go) and followers find it with LeaderAddr. When the leader
// dies or steps down, the front answers the commands in flight
// INTERNAL_ERROR (their outcome is unknown), carries the connection to the
// next leader, replays its use and watch list and goes on: a worker keeps
// its connection, and its reservations (orphans until their TTR) can be
// finished. Commands that arrive while there is no leader wait (bounded:
// the front's Wait, 10 s) and are then answered INTERNAL_ERROR, and the
// connection closes. If a term cannot start while raft says this node
// leads, it is retried every 100 ms.
//
// # Timeouts (LAN)
//
// hashicorp/raft's defaults (1 s heartbeat and election timeouts) suit a
// WAN. DefaultTiming halves the time to notice a dead leader while staying
// far above a LAN's round trip (well under 1 ms) and an fsync (a few ms):
// heartbeat and election timeouts 300 ms, leader lease 150 ms, commit
// timeout 5 ms. A follower notices a silent leader after 300-600 ms and an
// election takes a few round trips, so a put through a surviving node
// succeeds well within a second or two of the kill. Lower values start
// spurious elections under GC pauses or a slow disk; raise them (Config.Timing)
// for a cross-datacenter cluster.
//
// # Storage
//
// Under DIR/raft: the raft log and stable store on hashicorp/raft-wal
// (segment files with per-entry checksums, torn-tail recovery, O(1) front
// truncation), and hashicorp/raft's file snapshot store (CRC-checked, 2
// kept). Measured on the 2-core development box (one run, loaded): storing
// batches of 1/16/64 entries of 512 B with an fsync each, raft-wal did
// 3366/1687/1592 calls per second, raft-boltdb v2 1549/926/454; deleting
// the front half of the log took raft-wal under 1 ms and boltdb 3-63 ms,
// growing with the entries deleted (compaction would stall the leader). A
// LogStore on tidwall/wal would need its own checksums, torn-tail repair
// and a way to start at any index after a snapshot install (tidwall/wal
// starts at 1); raft-wal already does all three. It must be v0.4.1 or
// later: v0.4.0 cannot reopen a log whose tail raft truncated (raft-wal
// issue 31, "sealed segment has no index block"), which the real-process
// test hit on its first restart of a killed leader. hashicorp/raft reads
// every entry it replicates back from the log store: a LogCache of the
// latest 64 entries answers those reads from memory (node.go).
//
// # Concurrency
//
// Node's methods are safe for concurrent use. The Journal follows the
// jobs.Journal contract: Append never waits (it takes Journal.mu, a leaf,
// under the queue's tube locks). The FSM is called by raft's FSM goroutine
// only; its state is guarded by fsm.mu, which Snapshot takes to copy the
// job table and Node takes to build a queue. Leadership changes are handled
// by one goroutine, in order.
package raft
