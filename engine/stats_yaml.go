package engine

import (
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// The YAML documents of stats, stats-tube and stats-job, byte for byte as
// beanstalkd prints them: a "---" header, one "key: value" per line with LF
// line ends. Tube names are bare, as 1.12 prints them; the free-form strings
// (hostname, os, platform) are quoted only where bare they would break the
// YAML (codec.AppendYAMLString), so that both YAML parsers and clients that
// split lines by hand read them. Written with
// strconv.Append* into a reused buffer: no fmt, no allocation once warm.

// reported lists the commands the stats document reports, in its order,
// from codec's command table. The counters are indexed by op.
var reported = func() (r []codec.Spec) {
	for _, s := range codec.Commands() {
		if s.Stat != "" {
			r = append(r, s)
		}
	}
	return r
}()

const yamlHeader = "---\n"

func kvInt(dst []byte, key string, v int64) []byte {
	dst = append(dst, key...)
	dst = append(dst, ": "...)
	dst = strconv.AppendInt(dst, v, 10)
	return append(dst, '\n')
}

func kvUint(dst []byte, key string, v uint64) []byte {
	dst = append(dst, key...)
	dst = append(dst, ": "...)
	dst = strconv.AppendUint(dst, v, 10)
	return append(dst, '\n')
}

func kvStr(dst []byte, key, v string) []byte {
	dst = append(dst, key...)
	dst = append(dst, ": "...)
	dst = append(dst, v...)
	return append(dst, '\n')
}

// kvQuoted appends a value the reference always quotes (version).
func kvQuoted(dst []byte, key, v string) []byte {
	dst = append(dst, key...)
	dst = append(dst, ": \""...)
	dst = append(dst, v...)
	return append(dst, "\"\n"...)
}

// kvYAML appends a free-form string: bare, as 1.12 prints it, unless that
// would break the YAML document (codec.AppendYAMLString).
func kvYAML(dst []byte, key, v string) []byte {
	dst = append(dst, key...)
	dst = append(dst, ": "...)
	dst = codec.AppendYAMLString(dst, v)
	return append(dst, '\n')
}

// kvTime appends a CPU time as the reference's "%d.%06d".
func kvTime(dst []byte, key string, tv unix.Timeval) []byte {
	dst = append(dst, key...)
	dst = append(dst, ": "...)
	dst = strconv.AppendInt(dst, int64(tv.Sec), 10)
	dst = append(dst, '.')
	us := int64(tv.Usec)
	for d := int64(100000); d > 1 && us < d; d /= 10 {
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, us, 10)
	return append(dst, '\n')
}

func kvBool(dst []byte, key string, v bool) []byte {
	return kvStr(dst, key, strconv.FormatBool(v))
}

// kvJobCounts appends the current-jobs-* lines that stats and stats-tube
// share.
func kvJobCounts(dst []byte, urgent, ready, reserved, delayed, buried int64) []byte {
	dst = kvInt(dst, "current-jobs-urgent", urgent)
	dst = kvInt(dst, "current-jobs-ready", ready)
	dst = kvInt(dst, "current-jobs-reserved", reserved)
	dst = kvInt(dst, "current-jobs-delayed", delayed)
	return kvInt(dst, "current-jobs-buried", buried)
}

// secs truncates a duration to whole seconds toward zero, as C's integer
// division of nanoseconds does.
func secs(d time.Duration) int64 { return int64(d / time.Second) }

// appendStats appends the stats document.
func (s *Server) appendStats(dst []byte, st *jobs.Stats) []byte {
	dst = append(dst, yamlHeader...)
	dst = kvJobCounts(dst, st.Urgent, st.Ready, st.Reserved, st.Delayed, st.Buried)
	for _, c := range reported {
		dst = kvUint(dst, c.Stat, st.Cmds[c.Op])
	}
	dst = kvUint(dst, "job-timeouts", st.JobTimeouts)
	dst = kvUint(dst, "total-jobs", st.TotalJobs)
	dst = kvUint(dst, "max-job-size", uint64(s.cfg.MaxJobSize))
	dst = kvInt(dst, "current-tubes", int64(st.Tubes))
	dst = kvInt(dst, "current-connections", st.Connections)
	dst = kvInt(dst, "current-producers", st.Producers)
	dst = kvInt(dst, "current-workers", st.Workers)
	dst = kvInt(dst, "current-waiting", st.Waiting)
	dst = kvUint(dst, "total-connections", st.TotalConnections)
	return s.appendProcStats(dst, st.Draining)
}

// appendProcStats appends the process and journal part of the stats
// document, from pid to platform.
func (s *Server) appendProcStats(dst []byte, draining bool) []byte {
	p := &s.proc
	dst = kvInt(dst, "pid", int64(p.pid))
	dst = kvQuoted(dst, "version", p.version)
	ut, st := rusage()
	dst = kvTime(dst, "rusage-utime", ut)
	dst = kvTime(dst, "rusage-stime", st)
	dst = kvInt(dst, "uptime", secs(time.Since(p.start)))
	b := BinlogStats{MaxSize: DefaultBinlogMaxSize}
	if s.binlog != nil {
		b = s.binlog()
	}
	dst = kvInt(dst, "binlog-oldest-index", b.OldestIndex)
	dst = kvInt(dst, "binlog-current-index", b.CurrentIndex)
	dst = kvInt(dst, "binlog-records-migrated", b.RecordsMigrated)
	dst = kvInt(dst, "binlog-records-written", b.RecordsWritten)
	dst = kvInt(dst, "binlog-max-size", b.MaxSize)
	dst = kvBool(dst, "draining", draining)
	dst = kvStr(dst, "id", p.id)
	dst = kvYAML(dst, "hostname", p.hostname)
	dst = kvYAML(dst, "os", p.osName)
	return kvYAML(dst, "platform", p.platform)
}

// appendTubeStats appends the stats-tube document.
func appendTubeStats(dst []byte, t *jobs.TubeStats) []byte {
	dst = append(dst, yamlHeader...)
	dst = kvStr(dst, "name", t.Name) // tube names are bare, as in 1.12
	dst = kvJobCounts(dst, t.Urgent, t.Ready, t.Reserved, t.Delayed, t.Buried)
	dst = kvUint(dst, "total-jobs", t.TotalJobs)
	dst = kvInt(dst, "current-using", t.Using)
	dst = kvInt(dst, "current-watching", t.Watching)
	dst = kvInt(dst, "current-waiting", t.Waiting)
	dst = kvUint(dst, "cmd-delete", t.Deletes)
	dst = kvUint(dst, "cmd-pause-tube", t.Pauses)
	dst = kvInt(dst, "pause", secs(t.Pause))
	return kvInt(dst, "pause-time-left", secs(t.PauseLeft))
}

// appendJobStats appends the stats-job document.
func appendJobStats(dst []byte, j *jobs.JobStats) []byte {
	dst = append(dst, yamlHeader...)
	dst = kvUint(dst, "id", j.ID)
	dst = kvStr(dst, "tube", j.Tube)
	dst = kvStr(dst, "state", j.State.String())
	dst = kvUint(dst, "pri", uint64(j.Pri))
	dst = kvInt(dst, "age", secs(j.Age))
	dst = kvInt(dst, "delay", secs(j.Delay))
	dst = kvInt(dst, "ttr", secs(j.TTR))
	dst = kvInt(dst, "time-left", secs(j.TimeLeft))
	dst = kvInt(dst, "file", int64(j.File))
	dst = kvUint(dst, "reserves", uint64(j.Reserves))
	dst = kvUint(dst, "timeouts", uint64(j.Timeouts))
	dst = kvUint(dst, "releases", uint64(j.Releases))
	dst = kvUint(dst, "buries", uint64(j.Buries))
	return kvUint(dst, "kicks", uint64(j.Kicks))
}

// appendClusterStats appends the stats-cluster YAML document to dst. The
// configuration's servers are listed as "peers", each with "voter: bool"
// (the document's names since it first shipped; the admin API's JSON says
// servers and suffrage). stalkd-version is stalkd's own version (the stats
// document's version is the protocol's): stalkctl top shows both.
func appendClusterStats(dst []byte, c *cluster.Status) []byte {
	dst = append(dst, yamlHeader...)
	dst = kvYAML(dst, "id", c.ID)
	dst = kvYAML(dst, "state", c.State)
	dst = kvYAML(dst, "leader", c.Leader)
	dst = kvYAML(dst, "leader-addr", c.LeaderAddr)
	dst = kvUint(dst, "term", c.Term)
	dst = kvUint(dst, "commit-index", c.CommitIndex)
	dst = kvUint(dst, "applied-index", c.AppliedIndex)
	dst = kvUint(dst, "last-snapshot-index", c.LastSnapshotIndex)
	dst = kvUint(dst, "entries-proposed", c.EntriesProposed)
	dst = kvUint(dst, "records-proposed", c.RecordsProposed)
	dst = kvYAML(dst, "stalkd-version", Version)
	if len(c.Servers) == 0 {
		return append(dst, "peers: []\n"...)
	}
	dst = append(dst, "peers:\n"...)
	for _, p := range c.Servers {
		dst = kvYAML(append(dst, "- "...), "id", p.ID)
		dst = kvYAML(append(dst, "  "...), "addr", p.Addr)
		dst = kvBool(append(dst, "  "...), "voter", p.Voter())
	}
	return dst
}
