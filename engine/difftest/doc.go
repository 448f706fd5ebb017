// Package difftest is the differential test layer of stalkd: the same scripted
// conversations are played against the reference beanstalkd (1.12, started as a
// child process) and against stalkd (package engine, started in-process), and the
// replies are compared byte for byte.
//
// The package holds no production code; everything lives in its _test.go files:
//
//   - scripts_*_test.go: the scripts, one table per topic. A script is a list of
//     steps on named connections: bytes to send (in one or several writes) and
//     the replies to read back. A step may also pin what the reference must
//     answer (want), so each script states its intent, not only "same as the
//     reference".
//   - differences_test.go: the one table of what may legitimately differ
//     between the two servers: values masked because they cannot match (pid,
//     times, the random instance id) and stalkd's deliberate departures from
//     1.12 (1.13's quoting, 1.13's reserve-with-timeout grammar, our version).
//     Everything not in that table must match exactly.
//   - script_test.go: the step builders (say, expect, ask, read, pause,
//     hangup, halfClose); check_test.go: the intent checks (fields, between,
//     keys, list, heads).
//   - random_test.go: TestDiffRandom, random conversations over one to four
//     connections (randgen_test.go: the seeded generator, which learns from
//     the reference's replies which connections wait and which ids exist;
//     randcmd_test.go: the commands, valid and malformed), played in lock
//     step on a fresh pair of servers per seed. Every step is followed by
//     the barrier on every open connection, so a reply that lands on another
//     connection (a waiting reserve served by a put) is compared too. The
//     generator keeps away from wall-clock timing (delays, pauses and TTRs
//     are 0 or large; small TTRs only in a tube nobody watches) and from the
//     deliberate differences it cannot apply (a line whose CRLF straddles a
//     window; after a timeout stalkd refuses, the conversation ends). A
//     failure prints the seed and the conversation as script steps.
//   - session_test.go: the client side (connections, writes, reading
//     replies, and the barrier of steps that expect no reply);
//     reply_test.go: literal replies; servers_test.go: starting both
//     servers; diff_test.go: TestDiff, which plays and compares;
//     harness_test.go: tests of the harness itself.
//
// The servers, the reply reader and the barrier come from the wire-test kit
// (package enginetest). A step that expects no reply does not wait for a
// quiet window: it waits until the server has read every byte sent and its
// event loop sleeps (enginetest.Settle, read from the kernel), then takes
// what the server has sent by then. Both servers serve a connection on one
// thread that writes its replies before it sleeps (beanstalkd by design,
// stalkd started with one event loop), so that is everything they will
// answer. A write split in parts is settled the same way between parts.
//
// Run it with
//
//	go test ./engine/difftest/
//
// The tests skip themselves when beanstalkd is not installed. Flags:
//
//	-difftest.self   play every script against two reference servers instead,
//	                 which validates the harness and the masks
//	-difftest.v      log every step's replies from both servers
//	-difftest.random N, -difftest.from S
//	                 play N random conversations, seeds S..S+N-1 (default 24 from 1)
//	-difftest.seed S replay the one random conversation of seed S
//	-difftest.steps M
//	                 steps per random conversation (default 60)
//
// Each script gets a fresh pair of servers, so job ids and counters start from
// the same state on both sides. Scripts run in parallel (go test -parallel).
package difftest
