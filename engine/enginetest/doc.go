// Package enginetest is stalkd's wire-test kit: what a test needs to talk
// the beanstalk protocol to a real server over a real socket. It is test
// code: only _test.go files import it (cmd/stalkd's architecture test
// enforces that, and that the load generator never does).
//
//   - Servers: Reference starts beanstalkd 1.12 (skipping the test where it
//     is not installed) and returns once its socket listens, without a probe
//     connection, so its counters start at zero. Build builds the stalkd
//     binary once per test binary; StartProcess runs it (StartCommand runs
//     any command that logs stalkd's "listening" line) and returns once it
//     accepts. Package inproc starts stalkd inside the test process; it is
//     apart because it imports engine, and engine's own tests use this
//     package.
//   - Clients: Conn is a raw client that fails the test on any surprise:
//     Send, Expect (exact bytes), Do (both), Line, Reply (one reply with its
//     body), Stats and Stat (the YAML stats reader), CloseWrite, Hangup,
//     ExpectEOF, ExpectClosed. ReadReply, ParseReplies, Render and
//     SplitReplies are the reply grammar for harnesses that record instead
//     of failing.
//   - Faults: FaultProxy stands on one TCP link (the process dials the
//     proxy instead of its peer) and, per direction, passes, delays or
//     drops the bytes, or cuts the link (closes its connections and
//     refuses new ones) until Heal. cmd/stalkd's fault scenarios put one on
//     every raft link of a three-node cluster.
//   - The barrier: Settle(conn, pid) returns once the server has read every
//     byte sent on conn and its event loop sleeps in epoll_wait (on an
//     epoll descriptor watching the socket level-triggered), both read
//     from the kernel: the replies those bytes cause are then in the
//     client's receive queue (Unread says how many bytes), and "no reply"
//     is a fact, not the absence of one within a time window. It needs a
//     server whose connection is served by one thread that writes before
//     it sleeps: beanstalkd, or stalkd with Config.EventLoops = 1. Closed
//     waits until the server has closed its end after a hang-up. Linux only
//     (/proc).
//   - Polling: Eventually(t, what, cond) is the suite's one polling helper,
//     for what another goroutine or process makes true, bounded generously
//     (PollTimeout) and failing with what it waited for.
//
// # Transcript or differential script
//
// Two layers compare stalkd with beanstalkd byte for byte:
//
//   - A transcript (engine/testdata/transcripts/*.txt, run by engine's
//     TestTranscripts) is a fixed conversation with its expected bytes
//     written out, replayed against stalkd in-process and against the
//     reference. Give a behaviour a transcript when the exact bytes are the
//     point and a reader should see them: a framing rule, an error word, a
//     pipelined exchange, a behaviour stalkd keeps on purpose where it
//     differs from 1.12 ("# ref: skip"). A transcript needs no reference
//     to run, so it guards the behaviour on any machine.
//   - A differential script (engine/difftest) is a sequence of steps on
//     named connections played against fresh instances of both servers at
//     once; the replies must match modulo one table of masked values and
//     deliberate differences. Give a behaviour a script when what matters
//     is agreement with the reference rather than bytes a reader checks:
//     counters and stats documents, orders of wake-ups, states after long
//     sequences, grammar edge cases by the dozen. A script may still pin
//     the reference's bytes (say/expect) and state its intent (fields,
//     keys, heads) so that it cannot pass by both servers being wrong.
//
// A behaviour only stalkd has (auth, TLS, admin commands, the journal) gets
// neither: a plain test with Conn against a server started for it.
package enginetest
