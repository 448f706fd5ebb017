package admin

import (
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stalkd/stalkd/jobs"
)

// failingJournal is a journal that accepts records and commits nothing
// until fail is called; then Committed reports the error.
type failingJournal struct {
	mu  sync.Mutex
	seq uint64
	err error
}

func (j *failingJournal) Append(jobs.Record) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return 0, jobs.ErrJournal
	}
	j.seq++
	return j.seq, nil
}

func (j *failingJournal) Committed() (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return 0, j.err
	}
	return j.seq, nil
}

func (j *failingJournal) Subscribe(func()) {}
func (j *failingJournal) File(uint64) int  { return 0 }

func (j *failingJournal) fail(err error) {
	j.mu.Lock()
	j.err = err
	j.mu.Unlock()
}

func readiness(t *testing.T, s *stack) (int, healthJSON) {
	t.Helper()
	var h healthJSON
	code, b := s.do(http.MethodGet, "/readyz")
	assert.NoError(t, jsonUnmarshal(b, &h), string(b))
	return code, h
}

func TestHealthz(t *testing.T) {
	s := newStack(t)
	var h healthJSON
	s.json(http.MethodGet, "/healthz", http.StatusOK, &h)
	assert.Equal(t, "ok", h.Status)
	s.q.SetDraining(true)
	s.json(http.MethodGet, "/healthz", http.StatusOK, &h) // alive, even draining
}

func TestReadyzDraining(t *testing.T) {
	s := newStack(t)
	code, h := readiness(t, s)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", h.Status)
	s.q.SetDraining(true)
	code, h = readiness(t, s)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "unavailable", h.Status)
	assert.Contains(t, h.Reason, "draining")
	s.q.SetDraining(false)
	code, _ = readiness(t, s)
	assert.Equal(t, http.StatusOK, code)
}

func TestReadyzJournalFailed(t *testing.T) {
	j := &failingJournal{}
	clk := jobs.NewManualClock(t0)
	s := newStackOn(t, jobs.New(jobs.Config{Clock: clk, Journal: j}), clk)
	code, _ := readiness(t, s)
	assert.Equal(t, http.StatusOK, code)
	j.fail(errors.New("fsync: input/output error"))
	code, h := readiness(t, s)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, h.Reason, "journal failed")
	assert.Contains(t, h.Reason, "input/output error")
}

func TestReadyzNotServing(t *testing.T) {
	var mu sync.Mutex
	var down error
	s := newStack(t, func(o *Options) {
		o.Serving = func() error { mu.Lock(); defer mu.Unlock(); return down }
	})
	code, _ := readiness(t, s)
	assert.Equal(t, http.StatusOK, code)
	mu.Lock()
	down = errors.New("listener closed")
	mu.Unlock()
	code, h := readiness(t, s)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, h.Reason, "not serving: listener closed")
}

// TestReadyzAfterStop checks the real wiring of the test stack: once the
// protocol server stops, readiness fails.
func TestReadyzAfterStop(t *testing.T) {
	s := newStack(t)
	assert.NoError(t, s.srv.Stop(t.Context()))
	code, h := readiness(t, s)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, h.Reason, "not serving")
}

// stallingJournal is a failingJournal that reports a stalled disk.
type stallingJournal struct {
	failingJournal
	stall string
}

func (j *stallingJournal) Stall() string { return j.stall }

// TestReadyzDiskStalled: while the journal says changes wait for a slow
// fsync, /readyz is 503 and says why.
func TestReadyzDiskStalled(t *testing.T) {
	j := &stallingJournal{}
	clk := jobs.NewManualClock(t0)
	s := newStackOn(t, jobs.New(jobs.Config{Clock: clk, Journal: j}), clk)
	code, _ := readiness(t, s)
	assert.Equal(t, http.StatusOK, code)
	j.stall = "an fsync of the job log has taken 2.0s so far: changes wait for it"
	code, h := readiness(t, s)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "disk stalled: "+j.stall, h.Reason)
}
