package admin

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// scripted runs put/reserve/bury/delete/release through a real client, on
// tube "work": afterwards it holds 1 ready, 1 reserved, 1 delayed and 1
// buried job, and the client connection stays open holding the reserved
// one.
func scripted(t *testing.T, s *stack) *beanstalk.Conn {
	c := s.client()
	tube := beanstalk.NewTube(c, "work")
	ts := beanstalk.NewTubeSet(c, "work")
	for i := range 4 {
		_, err := tube.Put(fmt.Appendf(nil, "job %d", i), 100, 0, time.Minute)
		require.NoError(t, err)
	}
	_, err := tube.Put([]byte("later"), 100, time.Hour, time.Minute)
	require.NoError(t, err)
	id, _, err := ts.Reserve(0)
	require.NoError(t, err)
	require.NoError(t, c.Bury(id, 5))
	id, _, err = ts.Reserve(0)
	require.NoError(t, err)
	require.NoError(t, c.Delete(id))
	_, _, err = ts.Reserve(0)
	require.NoError(t, err) // stays reserved
	return c
}

// TestMetricsAfterScript checks the values /metrics reports after a
// scripted sequence against a real server.
func TestMetricsAfterScript(t *testing.T) {
	s := newStack(t)
	scripted(t, s)
	s.clock.Advance(7 * time.Second)
	m := s.scrape()

	for state, want := range map[string]float64{"ready": 1, "reserved": 1, "delayed": 1, "buried": 1} {
		v, ok := value(m, "stalkd_jobs", "tube", "work", "state", state)
		assert.True(t, ok, state)
		assert.Equal(t, want, v, state)
		v, _ = value(m, "stalkd_server_jobs", "state", state)
		assert.Equal(t, want, v, "server-wide "+state)
	}
	v, ok := value(m, "stalkd_jobs", "tube", "default", "state", "ready")
	assert.True(t, ok)
	assert.Equal(t, 0.0, v)

	for cmd, want := range map[string]float64{
		"put": 5, "reserve-with-timeout": 3, "bury": 1, "delete": 1, "use": 1, "watch": 1, "stats": 0,
	} {
		v, ok := value(m, "stalkd_commands_total", "command", cmd)
		assert.True(t, ok, cmd)
		assert.Equal(t, want, v, cmd)
	}
	assert.Equal(t, "counter", strings.ToLower(m["stalkd_commands_total"].GetType().String()))

	one := func(name string, want float64, labels ...string) {
		t.Helper()
		v, ok := value(m, name, labels...)
		assert.True(t, ok, name)
		assert.Equal(t, want, v, name)
	}
	one("stalkd_connections", 1)
	one("stalkd_producers", 1)
	one("stalkd_workers", 1)
	one("stalkd_waiting_workers", 0)
	one("stalkd_connections_accepted_total", 1)
	one("stalkd_jobs_created_total", 5)
	one("stalkd_job_timeouts_total", 0)
	one("stalkd_draining", 0)
	one("stalkd_tubes", 2)
	one("stalkd_tubes_exported", 2)
	one("stalkd_tubes_truncated", 0)
	one("stalkd_tube_oldest_ready_age_seconds", 7, "tube", "work")
	one("stalkd_tube_oldest_ready_age_seconds", 0, "tube", "default")
	one("stalkd_tube_jobs_created_total", 5, "tube", "work")
	one("stalkd_tube_deletes_total", 1, "tube", "work")
	one("stalkd_tube_paused", 0, "tube", "work")
	one("stalkd_tube_waiting_workers", 0, "tube", "work")
	one("stalkd_build_info", 1, "version", "1.2.3-test", "goversion", runtimeVersion())
	assert.Contains(t, m, "go_goroutines", "the Go collector")
	assert.Contains(t, m, "process_cpu_seconds_total", "the process collector")
	assert.NotContains(t, m, "stalkd_wal_bytes", "no journal: no wal series")

	// A waiting worker and a pause show up on the next scrape.
	require.NoError(t, s.q.PauseTube([]byte("work"), 30*time.Second))
	w := s.client()
	go func() { _, _, _ = beanstalk.NewTubeSet(w, "work").Reserve(time.Hour) }()
	enginetest.Eventually(t, "a waiting worker", func() bool {
		v, _ := value(s.scrape(), "stalkd_tube_waiting_workers", "tube", "work")
		return v == 1
	})
	m = s.scrape()
	one("stalkd_waiting_workers", 1)
	one("stalkd_tube_paused", 1, "tube", "work")
	one("stalkd_tube_pause_left_seconds", 30, "tube", "work")
	s.q.SetDraining(true)
	m = s.scrape()
	one("stalkd_draining", 1)
}

// TestMetricsTubeCap checks that over --metrics-max-tubes only the largest
// tubes get per-tube series, and the truncation is reported.
func TestMetricsTubeCap(t *testing.T) {
	s := newStack(t, func(o *Options) { o.MetricsMaxTubes = 3 })
	ss := s.q.NewSession(nil)
	defer ss.Close()
	sizes := map[string]int{"t1": 1, "t2": 5, "t3": 2, "t4": 4, "t5": 4}
	for name, n := range sizes {
		require.NoError(t, ss.Use([]byte(name)))
		for range n {
			_, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("x")})
			require.NoError(t, err)
		}
	}
	m := s.scrape()
	for name, kept := range map[string]bool{"t1": false, "t2": true, "t3": false, "t4": true, "t5": true, "default": false} {
		_, ok := value(m, "stalkd_jobs", "tube", name, "state", "ready")
		assert.Equal(t, kept, ok, name)
		_, ok = value(m, "stalkd_tube_oldest_ready_age_seconds", "tube", name)
		assert.Equal(t, kept, ok, name)
	}
	for name, want := range map[string]float64{"stalkd_tubes": 6, "stalkd_tubes_exported": 3, "stalkd_tubes_truncated": 1} {
		got, ok := value(m, name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	// Server-wide figures are never capped.
	got, _ := value(m, "stalkd_server_jobs", "state", "ready")
	assert.Equal(t, 16.0, got)

	// /v1/tubes applies the same cap, and ?limit= lifts it.
	var tl tubesJSON
	s.json(http.MethodGet, "/v1/tubes", http.StatusOK, &tl)
	assert.True(t, tl.Truncated)
	assert.Equal(t, 6, tl.TotalTubes)
	assert.Equal(t, []string{"t2", "t4", "t5"}, tubeNames(tl))
	s.json(http.MethodGet, "/v1/tubes?limit=100", http.StatusOK, &tl)
	assert.False(t, tl.Truncated)
	assert.Len(t, tl.Tubes, 6)
}

func tubeNames(tl tubesJSON) []string {
	var n []string
	for _, t := range tl.Tubes {
		n = append(n, t.Name)
	}
	return n
}

// TestMetricsWAL checks the stalkd_wal_* series from the journal's figures.
func TestMetricsWAL(t *testing.T) {
	s := newStack(t, func(o *Options) {
		o.WAL = func() WALStats {
			return WALStats{Bytes: 4096, Segments: 3, Compactions: 2, Migrated: 7, Written: 40,
				FsyncBuckets: []float64{0.001, 0.01}, FsyncCounts: []uint64{5, 9}, FsyncCount: 10, FsyncSum: 0.5}
		}
	})
	m := s.scrape()
	for name, want := range map[string]float64{
		"stalkd_wal_bytes": 4096, "stalkd_wal_segment_files": 3, "stalkd_wal_compactions_total": 2,
		"stalkd_wal_records_migrated_total": 7, "stalkd_wal_records_written_total": 40,
	} {
		got, ok := value(m, name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	h := m["stalkd_wal_fsync_duration_seconds"].GetMetric()[0].GetHistogram()
	assert.Equal(t, uint64(10), h.GetSampleCount())
	assert.Equal(t, 0.5, h.GetSampleSum())
	require.Len(t, h.GetBucket(), 3) // 2 + the +Inf bucket the parser adds
	assert.Equal(t, uint64(5), h.GetBucket()[0].GetCumulativeCount())
	assert.Equal(t, uint64(9), h.GetBucket()[1].GetCumulativeCount())
}
