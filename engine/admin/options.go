package admin

import (
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// Defaults for the zero values of Options.
const (
	// DefaultMetricsMaxTubes caps the tubes given per-tube series in
	// /metrics (and listed by /v1/tubes).
	DefaultMetricsMaxTubes = 1000
	// DefaultPeekLimit is how many bytes of a job body /v1/jobs/{id} returns
	// unless asked for more (?peek_bytes=N).
	DefaultPeekLimit = 4096
	// MaxPeekLimit bounds ?peek_bytes.
	MaxPeekLimit = 1 << 20
	// DefaultSampleInterval is how often the throughput history is sampled.
	DefaultSampleInterval = 2 * time.Second
	// historySize is how many samples the throughput history keeps (10
	// minutes at the default interval).
	historySize = 300
)

// WALStats are the journal's figures for /metrics (the daemon adapts the
// wal package's accessor to this).
type WALStats struct {
	// Bytes and Segments: the size and number of the segment files.
	Bytes    int64
	Segments int
	// Compactions counts completed compaction rounds; Migrated the jobs
	// they moved forward; Written every job record written. Since start.
	Compactions       uint64
	Migrated, Written int64
	// Fsync latency as a cumulative histogram: FsyncBuckets are the upper
	// bounds in seconds, FsyncCounts[i] the fsyncs that took at most
	// FsyncBuckets[i]; FsyncCount and FsyncSum (seconds) cover all fsyncs.
	FsyncBuckets []float64
	FsyncCounts  []uint64
	FsyncCount   uint64
	FsyncSum     float64
}

// Options configures a Server. Start reads them once and never modifies
// them. Addr and Queue are required; every other zero value is usable.
type Options struct {
	// Addr is where to listen: "host:port" or "unix:/path" (a stale socket
	// file is removed). Mutating API calls are accepted only on a loopback
	// address or a Unix socket.
	Addr string
	// Queue is the queue to show and act on; with Cluster, nil (the queue
	// is Cluster.Queue(), per request).
	Queue *jobs.Queue
	// Cluster, for a member of a replicated cluster, adds the /v1/cluster
	// endpoints; the queue endpoints then answer 421 not_leader on a
	// follower. Nil for a single node.
	Cluster Cluster
	// Serving reports why the protocol listener cannot take work (nil while
	// it serves); /readyz calls it. Nil: always serving.
	Serving func() error
	// WAL supplies the journal's figures; nil when there is no journal (no
	// stalkd_wal_* series). Called at scrape time, concurrently.
	WAL func() WALStats
	// Version is stalkd's own version: reported as stalkd_build_info{version}
	// and in /v1/stats (version).
	Version string
	// ProtocolVersion is the beanstalk protocol version the server speaks
	// (what its stats document reports): /v1/stats protocol_version, shown
	// beside Version by the dashboard. Empty: omitted.
	ProtocolVersion string
	// Started is when the server started (for uptime); zero means when
	// Start is called.
	Started time.Time
	// MetricsMaxTubes caps the tubes with per-tube series; over the cap the
	// largest tubes by job count are kept (ties by name). 0 means
	// DefaultMetricsMaxTubes; negative means no cap.
	MetricsMaxTubes int
	// PeekLimit is the default number of body bytes returned for a job; 0
	// means DefaultPeekLimit.
	PeekLimit int
	// SampleInterval is the throughput history's sampling period; 0 means
	// DefaultSampleInterval.
	SampleInterval time.Duration
	// Tokens, when not empty, turns bearer-token authentication on (the
	// protocol's tokens, --auth-token-file): every request but /healthz,
	// /readyz and the dashboard's static files needs "Authorization: Bearer
	// <token>", and with a token mutations are accepted on any address.
	Tokens []string
	// Logger receives the listener's logs (component=admin is added). The
	// zero Logger discards them.
	Logger zerolog.Logger
	// PolicyFile, when set, is the file that owns the tube policies (the
	// daemon's --policies): every call that would change a policy is
	// refused with 409 managed_by_file naming it (policyGuard). Empty: the
	// API owns the policies.
	PolicyFile string
}

func (o Options) withDefaults() (Options, error) {
	if o.Addr == "" || (o.Queue == nil) == (o.Cluster == nil) {
		return o, errors.New("admin: Options.Addr and one of Options.Queue or Options.Cluster are required")
	}
	if o.Serving == nil {
		o.Serving = func() error { return nil }
	}
	if o.Started.IsZero() {
		o.Started = time.Now()
	}
	if o.MetricsMaxTubes == 0 {
		o.MetricsMaxTubes = DefaultMetricsMaxTubes
	}
	if o.PeekLimit <= 0 {
		o.PeekLimit = DefaultPeekLimit
	}
	o.PeekLimit = min(o.PeekLimit, MaxPeekLimit)
	if o.SampleInterval <= 0 {
		o.SampleInterval = DefaultSampleInterval
	}
	if o.Version == "" {
		o.Version = "unknown"
	}
	return o, nil
}
