package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Latency summarises a histogram in microseconds.
type Latency struct {
	P50  float64 `json:"p50_us"`
	P99  float64 `json:"p99_us"`
	P999 float64 `json:"p999_us"`
	Max  float64 `json:"max_us"`
	Mean float64 `json:"mean_us"`
}

func latencyOf(h *Histogram) Latency {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return Latency{P50: us(h.Quantile(0.5)), P99: us(h.Quantile(0.99)), P999: us(h.Quantile(0.999)),
		Max: us(h.Max()), Mean: us(h.Mean())}
}

// Result is the outcome of one run. What an operation is depends on the
// scenario: a put acknowledged (put), a job reserved and deleted (reserve,
// e2e), a probe command answered (conns), a job preloaded (mem), a
// connection opened, used once and closed (connect). Latency is per
// operation: request to reply for put, reserve-to-delete-ack per batch for
// reserve, put-to-reserve for e2e, each probe command for conns, dial to
// reply for connect.
type Result struct {
	Scenario   string  `json:"scenario"`
	Target     string  `json:"target"`
	Conns      int     `json:"conns"`
	Producers  int     `json:"producers,omitempty"`
	Pipeline   int     `json:"pipeline"`
	Batch      int     `json:"batch"`
	Size       int     `json:"size"`
	Tubes      int     `json:"tubes"`
	TLS        bool    `json:"tls,omitempty"` // the generator connected over TLS
	Ops        int64   `json:"ops"`
	Errors     int64   `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	Elapsed    float64 `json:"elapsed_s"`
	OpsPerSec  float64 `json:"ops_per_sec"`
	Latency    Latency `json:"latency"`
	// ServerCPU is the server's CPU time (user+system) over the measured
	// window, in seconds, and CPUPerOpUs the same per operation in µs; both
	// are 0 when the server's pid is unknown (a running server without
	// --server-pid).
	ServerCPU  float64 `json:"server_cpu_s,omitempty"`
	CPUPerOpUs float64 `json:"server_cpu_per_op_us,omitempty"`

	Puts         int64   `json:"puts,omitempty"`           // e2e: jobs put in the measured window
	Left         int64   `json:"left,omitempty"`           // jobs the generator could not drain
	Idle         int     `json:"idle,omitempty"`           // conns: idle connections held
	ConnectMs    float64 `json:"connect_ms,omitempty"`     // conns: time to open them all
	FreshDialUs  float64 `json:"fresh_dial_us,omitempty"`  // conns: dial time of the probe connection
	RSSBefore    int64   `json:"rss_before,omitempty"`     // bytes
	RSSAfter     int64   `json:"rss_after,omitempty"`      // bytes
	BytesPerJob  float64 `json:"bytes_per_job,omitempty"`  // mem: RSS growth per job
	BytesPerConn float64 `json:"bytes_per_conn,omitempty"` // conns: RSS growth per idle connection
	RSSDrained   int64   `json:"rss_drained,omitempty"`    // mem-return: bytes right after deleting every job
	RSSSettled   int64   `json:"rss_settled,omitempty"`    // mem-return: bytes SettleSec later
	SettleSec    float64 `json:"settle_s,omitempty"`       // mem-return: the wait before RSSSettled
	DelayedTubes int     `json:"delayed_tubes,omitempty"`  // background tubes holding a delayed job each
	SetupSec     float64 `json:"setup_s,omitempty"`        // time to set those up (unmeasured)
}

func newResult(c Config) Result {
	r := Result{Scenario: c.Scenario, Target: c.Label, Conns: c.Conns, Pipeline: c.Pipeline,
		Batch: c.Batch, Size: c.Size, Tubes: c.Tubes, TLS: c.TLS != nil}
	if c.Scenario == ScenarioE2E {
		r.Producers = c.Producers
	}
	return r
}

func (r *Result) setTiming(elapsed time.Duration, h *Histogram) {
	r.Elapsed = elapsed.Seconds()
	if r.Elapsed > 0 {
		r.OpsPerSec = float64(r.Ops) / r.Elapsed
	}
	r.Latency = latencyOf(h)
}

// Err returns the run's first error, or nil if it had none.
func (r Result) Err() error {
	if r.Errors == 0 {
		return nil
	}
	return fmt.Errorf("%s on %s: %d errors, first: %s", r.Scenario, r.Target, r.Errors, r.FirstError)
}

// WriteTable prints results as an aligned human table, one row each.
func WriteTable(out io.Writer, rs ...Result) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\ttarget\tconns\tdepth\tbatch\tsize\tops\tsecs\tops/s\tcpu/op\tp50\tp99\tp99.9\tmax\terrors\t")
	for _, r := range rs {
		target := r.Target
		if r.TLS {
			target += " (tls)"
		}
		conns := fmt.Sprint(r.Conns)
		if r.Producers > 0 {
			conns = fmt.Sprintf("%dp+%dc", r.Producers, r.Conns)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%.2f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%d\t\n",
			r.Scenario, target, conns, r.Pipeline, r.Batch, r.Size, r.Ops, r.Elapsed, r.OpsPerSec, fmtCPU(r),
			fmtUs(r.Latency.P50), fmtUs(r.Latency.P99), fmtUs(r.Latency.P999), fmtUs(r.Latency.Max), r.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rs {
		writeExtras(out, r)
	}
	return nil
}

// writeExtras prints the scenario-specific figures under the table.
func writeExtras(out io.Writer, r Result) {
	if r.FirstError != "" {
		fmt.Fprintf(out, "%s: first error: %s\n", r.Target, r.FirstError)
	}
	if r.Left > 0 {
		fmt.Fprintf(out, "%s: %d jobs left in the server\n", r.Target, r.Left)
	}
	if r.Puts > 0 {
		fmt.Fprintf(out, "%s: e2e put %d jobs (%.0f puts/s)\n", r.Target, r.Puts, float64(r.Puts)/max(r.Elapsed, 1e-9))
	}
	if r.Idle > 0 {
		fmt.Fprintf(out, "%s: %d idle connections opened in %.0f ms; fresh connection dialled in %.0f µs\n",
			r.Target, r.Idle, r.ConnectMs, r.FreshDialUs)
	}
	if r.DelayedTubes > 0 {
		fmt.Fprintf(out, "%s: beside %d tubes holding a delayed job each (set up in %.1f s, not timed)\n",
			r.Target, r.DelayedTubes, r.SetupSec)
	}
	if r.RSSSettled > 0 {
		fmt.Fprintf(out, "%s: RSS idle %.1f MiB -> %d jobs %.1f MiB -> all deleted %.1f MiB -> %.0f s later %.1f MiB (%.2f× idle)\n",
			r.Target, mib(r.RSSBefore), r.Ops, mib(r.RSSAfter), mib(r.RSSDrained), r.SettleSec, mib(r.RSSSettled),
			float64(r.RSSSettled)/float64(max(r.RSSBefore, 1)))
		return
	}
	if r.RSSAfter > 0 {
		fmt.Fprintf(out, "%s: RSS %.1f MiB -> %.1f MiB", r.Target, mib(r.RSSBefore), mib(r.RSSAfter))
		if r.BytesPerJob != 0 {
			fmt.Fprintf(out, "; %.0f B per job (%.0f B beyond the %d B body)", r.BytesPerJob,
				r.BytesPerJob-float64(r.Size), r.Size)
		}
		if r.BytesPerConn != 0 {
			fmt.Fprintf(out, "; %.0f B per idle connection", r.BytesPerConn)
		}
		fmt.Fprintln(out)
	}
}

// fmtCPU is the server's CPU per operation ("-" when not measured).
func fmtCPU(r Result) string {
	if r.CPUPerOpUs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fµs", r.CPUPerOpUs)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func fmtUs(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.2fs", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.2fms", us/1e3)
	default:
		return fmt.Sprintf("%.0fµs", us)
	}
}

// WriteJSON prints v as indented JSON.
func WriteJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
