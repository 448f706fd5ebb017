package admin

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// commitWait bounds how long an action waits for the journal to commit its
// change before answering.
const commitWait = 10 * time.Second

// session opens a short-lived session for one action (closed by the
// returned function); it counts as a connection, as a protocol client would.
func (s *Server) session() (*jobs.Session, func()) {
	ss := s.q.NewSession(nil)
	return ss, ss.Close
}

// committed waits until the change numbered seq is durable (as the protocol
// edge does before replying), writing an error response if it never will
// be. The journal's commit notification wakes it (see commits).
func (s *Server) committed(ctx context.Context, w http.ResponseWriter, seq uint64) bool {
	ctx, cancel := context.WithTimeout(ctx, commitWait)
	defer cancel()
	err := s.commits.waiter(s.q).Wait(ctx, seq, nil)
	switch {
	case err == nil:
		return true
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		writeError(w, http.StatusServiceUnavailable, "journal", "the journal did not commit the change in time")
	default:
		// err is jobs.ErrJournal wrapping the journal's own error: say the latter.
		writeError(w, http.StatusServiceUnavailable, "journal",
			"the journal failed: "+strings.TrimPrefix(err.Error(), jobs.ErrJournal.Error()+": "))
	}
	return false
}

// POST /v1/tubes/{tube}/kick?n=N (default 1): kick up to N buried jobs, or
// delayed ones if none is buried, as the kick command does.
func (s *Server) kickTube(w http.ResponseWriter, r *http.Request, args []string) {
	n, ok := intParam(r, "n", 1, 1, math.MaxInt32)
	if !ok {
		writeError(w, http.StatusBadRequest, "bad_n", "n must be a number from 1 to 2147483647")
		return
	}
	ti, ok := s.tube(w, args[0])
	if !ok {
		return
	}
	ss, done := s.session()
	defer done()
	if err := ss.Use([]byte(ti.Name)); err != nil {
		s.queueError(w, err, "tube")
		return
	}
	kicked, seq, err := ss.Kick(uint32(n))
	if err != nil {
		s.queueError(w, err, "tube")
		return
	}
	if s.committed(r.Context(), w, seq) {
		s.logAction(r, "kick").Str("tube", ti.Name).Int("kicked", kicked).Msg("admin kicked jobs")
		writeJSON(w, http.StatusOK, map[string]any{"tube": ti.Name, "kicked": kicked})
	}
}

// POST /v1/tubes/{tube}/pause?seconds=S: pause the tube for S seconds (0
// ends a pause at the next tick, as pause-tube 0 does).
func (s *Server) pauseTube(w http.ResponseWriter, r *http.Request, args []string) {
	secs, ok := intParam(r, "seconds", -1, 0, math.MaxUint32)
	if !ok || secs < 0 {
		writeError(w, http.StatusBadRequest, "bad_seconds", "seconds is required: a number from 0 to 4294967295")
		return
	}
	ti, ok := s.tube(w, args[0])
	if !ok {
		return
	}
	if err := s.q.PauseTube([]byte(ti.Name), time.Duration(secs)*time.Second); err != nil {
		s.queueError(w, err, "tube")
		return
	}
	s.logAction(r, "pause").Str("tube", ti.Name).Int("pause_s", secs).Msg("admin paused a tube")
	writeJSON(w, http.StatusOK, map[string]any{"tube": ti.Name, "paused_seconds": secs})
}

// POST /v1/tubes/{tube}/clear: delete every ready, delayed and buried job.
func (s *Server) clearTube(w http.ResponseWriter, r *http.Request, args []string) {
	ti, ok := s.tube(w, args[0])
	if !ok {
		return
	}
	n, seq, err := s.q.ClearTube([]byte(ti.Name))
	if err != nil {
		s.queueError(w, err, "tube")
		return
	}
	if s.committed(r.Context(), w, seq) {
		s.logAction(r, "clear").Str("tube", ti.Name).Int("deleted", n).Msg("admin cleared a tube")
		writeJSON(w, http.StatusOK, map[string]any{"tube": ti.Name, "deleted": n})
	}
}

// jobFor looks a job up for an action, writing 404 if it does not exist.
func (s *Server) jobFor(w http.ResponseWriter, arg string) (jobs.JobStats, bool) {
	id, ok := jobID(w, arg)
	if !ok {
		return jobs.JobStats{}, false
	}
	js, err := s.q.StatsJob(id)
	if err != nil {
		writeError(w, http.StatusNotFound, "not_found", "no such job")
		return js, false
	}
	return js, true
}

// DELETE /v1/jobs/{id}: delete a ready, delayed or buried job. A reserved
// job belongs to its worker: 409.
func (s *Server) deleteJob(w http.ResponseWriter, r *http.Request, args []string) {
	js, ok := s.jobFor(w, args[0])
	if !ok {
		return
	}
	if js.State == jobs.Reserved {
		writeError(w, http.StatusConflict, "reserved", "the job is reserved by a worker")
		return
	}
	ss, done := s.session()
	defer done()
	seq, err := ss.Delete(js.ID)
	if err != nil {
		s.queueError(w, err, "job")
		return
	}
	if s.committed(r.Context(), w, seq) {
		s.logAction(r, "delete").Uint64("job_id", js.ID).Str("tube", js.Tube).Msg("admin deleted a job")
		writeJSON(w, http.StatusOK, map[string]any{"id": js.ID, "deleted": true})
	}
}

// POST /v1/jobs/{id}/kick: move a buried or delayed job to ready; 409 for a
// job in another state.
func (s *Server) kickJob(w http.ResponseWriter, r *http.Request, args []string) {
	js, ok := s.jobFor(w, args[0])
	if !ok {
		return
	}
	if js.State != jobs.Buried && js.State != jobs.Delayed {
		writeError(w, http.StatusConflict, "not_kickable",
			fmt.Sprintf("the job is %s; only buried or delayed jobs can be kicked", js.State))
		return
	}
	ss, done := s.session()
	defer done()
	seq, err := ss.KickJob(js.ID)
	if err != nil {
		s.queueError(w, err, "job")
		return
	}
	if s.committed(r.Context(), w, seq) {
		s.logAction(r, "kick-job").Uint64("job_id", js.ID).Str("tube", js.Tube).Msg("admin kicked a job")
		writeJSON(w, http.StatusOK, map[string]any{"id": js.ID, "kicked": true})
	}
}
