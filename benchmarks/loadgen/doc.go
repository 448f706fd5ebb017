// Package loadgen is the engine of stalkd-bench: a load generator for any
// server that speaks the beanstalk protocol, built so that the client is
// never the bottleneck.
//
// # Pieces
//
//   - Conn: a minimal protocol client on one TCP connection. Commands are
//     appended to a write buffer and leave on Flush; replies are parsed in
//     place (views valid until the next read). Nothing is allocated per
//     command. It understands INSERTED, RESERVED + body, DELETED, TIMED_OUT
//     and the few setup replies; anything else is a KindOther with its line.
//   - Histogram: fixed log-linear latency buckets (exact below 256 ns, 0.8%
//     above, up to 68 s), one per worker, merged at the end.
//   - Run: one scenario (put, reserve, e2e, conns, mem, mem-return) bounded
//     by a duration or an operation count, with an optional warmup and a
//     hard Timeout after which its connections are closed, so every run
//     ends. Config.DelayedTubes sets up many tubes holding a delayed job
//     beside the run (untimed, removed after); Config.WatchAll has every
//     consumer watch all the run's tubes.
//   - ReadCPU and the measured window: with the server's PID known, every
//     run reports the server's CPU time (utime+stime from /proc/PID/stat,
//     10 ms ticks) over its measured window, and per operation; Compare
//     reports the median A/B ratio of it.
//   - TLS: Config.TLS (NewTLSConfig builds it from a CA file, insecure, or a
//     client certificate for mutual TLS) makes every connection a TLS one;
//     the handshake happens at dial time and is never timed.
//   - EchoServer and RunCeiling: a trivial answering server (in this process,
//     or in its own, e.g. `stalkd-bench serve-echo`) to measure what the
//     generator itself can drive on this machine.
//   - StartServer, ReadRSS: start a server from a command template with
//     {port} (and {dir}: a fresh directory, removed by Stop), and read its
//     resident memory from /proc.
//   - Compare: the same scenario against two targets, alternately, for
//     several rounds; per-round A/B ratios and their median.
//
// # Usage
//
//	res, err := loadgen.Run(loadgen.Config{
//		Addr: "127.0.0.1:11300", Scenario: loadgen.ScenarioPut,
//		Conns: 10, Pipeline: 64, Size: 100, Duration: 5 * time.Second,
//	})
//	if err == nil {
//		loadgen.WriteTable(os.Stdout, res)
//	}
//
// # Concurrency
//
// Each connection is driven by one goroutine that owns its Conn, its
// Histogram and its tally. Workers share only a control block of atomics
// (stop, measuring, the operation budget) which they poll between round
// trips, and the coordinator reads their totals after they have returned.
// Pipelined workers take one clock reading per batch sent and one per burst
// of replies read, so the clock costs little at a million operations a second.
//
// # Caveats
//
// Work is spread over tubes named bench.0, bench.1, …: runs delete the jobs
// they leave behind unless NoDrain is set, and count what they could not
// delete in Result.Left. The e2e latency is put-to-reserve using a monotonic
// timestamp in the first 8 bytes of the body, so bodies are at least 8
// bytes there. The echo server answers every reserve at once, so a reserve
// ceiling needs a Jobs or Duration bound and an e2e ceiling measures the
// consumers' speed, not a queue's. Only loopback targets are accepted, and
// a preload may not exceed 8 GiB of bodies. The ceiling runs in plain TCP
// even when the run uses TLS: the echo server has no TLS.
package loadgen
