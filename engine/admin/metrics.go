package admin

import (
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/stalkd/stalkd/jobs"
)

// newRegistry returns the registry /metrics serves: stalkd's collector plus
// the standard Go and process collectors.
func newRegistry(s *Server) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		&collector{s: s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("stalkd_"+name, help, labels, nil)
}

// The series of the collector. Per-tube series carry the label "tube" and
// exist only for the tubes kept under Options.MetricsMaxTubes.
var (
	dJobs          = desc("jobs", "Jobs in each tube, by state (capped to the largest tubes; see stalkd_tubes_truncated).", "tube", "state")
	dTubeCreated   = desc("tube_jobs_created_total", "Jobs put into the tube since it was created.", "tube")
	dTubeDeletes   = desc("tube_deletes_total", "delete commands on the tube's jobs.", "tube")
	dTubeWaiting   = desc("tube_waiting_workers", "Connections blocked in reserve that watch the tube.", "tube")
	dTubePaused    = desc("tube_paused", "1 while the tube is paused.", "tube")
	dTubePauseLeft = desc("tube_pause_left_seconds", "Time left of the tube's pause.", "tube")
	dTubeOldest    = desc("tube_oldest_ready_age_seconds", "Age of the tube's oldest ready job (0 when none is ready).", "tube")
	dTubes         = desc("tubes", "Tubes that exist.")
	dTubesExported = desc("tubes_exported", "Tubes given per-tube series (at most --metrics-max-tubes).")
	dTruncated     = desc("tubes_truncated", "1 when more tubes exist than get per-tube series; the largest by job count are kept.")

	dServerJobs  = desc("server_jobs", "Jobs in all tubes, by state (never capped).", "state")
	dUrgent      = desc("urgent_jobs", "Ready jobs with a priority below 1024, in all tubes.")
	dCommands    = desc("commands_total", "Protocol commands received, by command (the cmd-* figures of stats).", "command")
	dCreated     = desc("jobs_created_total", "Jobs created since start (total-jobs).")
	dTimeouts    = desc("job_timeouts_total", "Reservations that ran out of time (job-timeouts).")
	dConns       = desc("connections", "Open connections (current-connections).")
	dConnsTotal  = desc("connections_accepted_total", "Connections opened since start (total-connections).")
	dProducers   = desc("producers", "Open connections that have put a job (current-producers).")
	dWorkers     = desc("workers", "Open connections that have reserved a job (current-workers).")
	dWaiting     = desc("waiting_workers", "Connections blocked in reserve (current-waiting).")
	dUptime      = desc("uptime_seconds", "Seconds since the server started.")
	dDraining    = desc("draining", "1 while drain mode refuses new jobs.")
	dBuildInfo   = desc("build_info", "Always 1; the labels say which build runs.", "version", "goversion")
	dWALBytes    = desc("wal_bytes", "Bytes in the write-ahead log's segment files.")
	dWALSegments = desc("wal_segment_files", "Segment files of the write-ahead log.")
	dWALCompact  = desc("wal_compactions_total", "Compaction rounds completed.")
	dWALMigrated = desc("wal_records_migrated_total", "Jobs moved forward by compaction (binlog-records-migrated).")
	dWALWritten  = desc("wal_records_written_total", "Job records written (binlog-records-written).")
	dWALFsync    = desc("wal_fsync_duration_seconds", "Time each fsync of the write-ahead log took.")
)

var allDescs = []*prometheus.Desc{
	dJobs, dTubeCreated, dTubeDeletes, dTubeWaiting,
	dTubePaused, dTubePauseLeft, dTubeOldest, dTubes, dTubesExported, dTruncated,
	dServerJobs, dUrgent, dCommands, dCreated, dTimeouts, dConns, dConnsTotal, dProducers,
	dWorkers, dWaiting, dUptime, dDraining, dBuildInfo,
	dWALBytes, dWALSegments, dWALCompact, dWALMigrated, dWALWritten, dWALFsync,
}

// collector reads the queue (and the journal) when scraped. It adds nothing
// to the command path: every figure is a counter the queue keeps anyway.
type collector struct{ s *Server }

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	q := s.current()
	if q == nil { // a cluster follower: no queue of its own to report
		return
	}
	st := q.Stats()
	c.server(ch, &st)
	c.tubes(ch, q)
	if s.opts.WAL != nil {
		c.wal(ch, s.opts.WAL())
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (c *collector) server(ch chan<- prometheus.Metric, st *jobs.Stats) {
	gauge(ch, dServerJobs, float64(st.Ready), "ready")
	gauge(ch, dServerJobs, float64(st.Reserved), "reserved")
	gauge(ch, dServerJobs, float64(st.Delayed), "delayed")
	gauge(ch, dServerJobs, float64(st.Buried), "buried")
	gauge(ch, dUrgent, float64(st.Urgent))
	for name, n := range commandCounts(st) {
		counter(ch, dCommands, float64(n), name)
	}
	counter(ch, dCreated, float64(st.TotalJobs))
	counter(ch, dTimeouts, float64(st.JobTimeouts))
	gauge(ch, dConns, float64(st.Connections))
	counter(ch, dConnsTotal, float64(st.TotalConnections))
	gauge(ch, dProducers, float64(st.Producers))
	gauge(ch, dWorkers, float64(st.Workers))
	gauge(ch, dWaiting, float64(st.Waiting))
	gauge(ch, dUptime, time.Since(c.s.opts.Started).Seconds())
	gauge(ch, dDraining, b2f(st.Draining))
	gauge(ch, dBuildInfo, 1, c.s.opts.Version, runtime.Version())
}

func (c *collector) tubes(ch chan<- prometheus.Metric, q *jobs.Queue) {
	ts := selectTubes(q, c.s.opts.MetricsMaxTubes)
	gauge(ch, dTubes, float64(ts.total))
	gauge(ch, dTubesExported, float64(len(ts.tubes)))
	gauge(ch, dTruncated, b2f(ts.truncated))
	for i := range ts.tubes {
		t := &ts.tubes[i]
		n := t.Name
		gauge(ch, dJobs, float64(t.Ready), n, "ready")
		gauge(ch, dJobs, float64(t.Reserved), n, "reserved")
		gauge(ch, dJobs, float64(t.Delayed), n, "delayed")
		gauge(ch, dJobs, float64(t.Buried), n, "buried")
		counter(ch, dTubeCreated, float64(t.TotalJobs), n)
		counter(ch, dTubeDeletes, float64(t.Deletes), n)
		gauge(ch, dTubeWaiting, float64(t.Waiting), n)
		gauge(ch, dTubePaused, b2f(t.Paused), n)
		left := 0.0
		if t.Paused {
			left = max(t.PauseLeft, 0).Seconds()
		}
		gauge(ch, dTubePauseLeft, left, n)
		gauge(ch, dTubeOldest, t.OldestReady.Seconds(), n)
	}
	c.policies(ch, q)
}

func (c *collector) wal(ch chan<- prometheus.Metric, w WALStats) {
	gauge(ch, dWALBytes, float64(w.Bytes))
	gauge(ch, dWALSegments, float64(w.Segments))
	counter(ch, dWALCompact, float64(w.Compactions))
	counter(ch, dWALMigrated, float64(w.Migrated))
	counter(ch, dWALWritten, float64(w.Written))
	buckets := make(map[float64]uint64, len(w.FsyncBuckets))
	for i, ub := range w.FsyncBuckets {
		if i < len(w.FsyncCounts) {
			buckets[ub] = w.FsyncCounts[i]
		}
	}
	ch <- prometheus.MustNewConstHistogram(dWALFsync, w.FsyncCount, w.FsyncSum, buckets)
}
