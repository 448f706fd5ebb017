package admin

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// sample is one point of the throughput history: cumulative command
// counts and the job gauges at a moment.
type sample struct {
	UnixMillis int64       `json:"t"`
	Puts       uint64      `json:"puts"`
	Reserves   uint64      `json:"reserves"`
	Deletes    uint64      `json:"deletes"`
	Jobs       stateCounts `json:"jobs"`
}

// history is a ring of samples taken by one goroutine every interval, so
// that the dashboard can draw the last minutes as soon as it opens. Reading
// Stats costs a few hundred atomic loads per sample.
type history struct {
	mu   sync.Mutex
	ring []sample
	next int
	full bool
}

func newHistory(n int) *history { return &history{ring: make([]sample, n)} }

func takeSample(q *jobs.Queue, now time.Time) sample {
	st := q.Stats()
	return sample{
		UnixMillis: now.UnixMilli(),
		Puts:       st.Cmds[codec.OpPutHeader],
		Reserves:   st.Cmds[codec.OpReserve] + st.Cmds[codec.OpReserveWithTimeout] + st.Cmds[codec.OpReserveJob],
		Deletes:    st.Cmds[codec.OpDelete],
		Jobs:       stateCounts{Ready: st.Ready, Reserved: st.Reserved, Delayed: st.Delayed, Buried: st.Buried},
	}
}

func (h *history) add(s sample) {
	h.mu.Lock()
	h.ring[h.next] = s
	h.next = (h.next + 1) % len(h.ring)
	h.full = h.full || h.next == 0
	h.mu.Unlock()
}

// samples returns the samples, oldest first.
func (h *history) samples() []sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.full {
		return append([]sample(nil), h.ring[:h.next]...)
	}
	return append(append([]sample(nil), h.ring[h.next:]...), h.ring[:h.next]...)
}

// run samples q every interval until ctx ends.
func (h *history) run(ctx context.Context, queue func() *jobs.Queue, interval time.Duration) {
	sample := func(now time.Time) {
		if q := queue(); q != nil { // nil: a cluster follower, nothing to sample
			h.add(takeSample(q, now))
		}
	}
	sample(time.Now())
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			sample(now)
		}
	}
}

type historyJSON struct {
	IntervalSeconds float64  `json:"interval_seconds"`
	Samples         []sample `json:"samples"`
}

// GET /v1/history: the samples of the last minutes plus one taken now, so
// the newest point is always current.
func (s *Server) getHistory(w http.ResponseWriter, r *http.Request, _ []string) {
	out := historyJSON{IntervalSeconds: s.opts.SampleInterval.Seconds(), Samples: s.hist.samples()}
	out.Samples = append(out.Samples, takeSample(s.q, time.Now()))
	writeJSON(w, http.StatusOK, out)
}
