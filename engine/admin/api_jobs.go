package admin

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/stalkd/stalkd/jobs"
)

// Paging of GET /v1/tubes/{tube}/jobs.
const (
	defaultListCount = 100
	maxListCount     = 1000 // as list-jobs
	previewBytes     = 120  // body preview per listed job
)

// listedJob is one job of a tube's listing.
type listedJob struct {
	ID              uint64   `json:"id"`
	Pri             uint32   `json:"pri"`
	AgeSeconds      float64  `json:"age_seconds"`
	TimeLeftSeconds float64  `json:"time_left_seconds"`
	Body            bodyJSON `json:"body"`
	// DeadLetter as in GET /v1/jobs/{id}.
	DeadLetter *deadLetterJSON `json:"dead_letter,omitempty"`
}

type jobListJSON struct {
	Tube   string      `json:"tube"`
	State  string      `json:"state"`
	Offset int         `json:"offset"`
	Count  int         `json:"count"`
	Total  int64       `json:"total"` // jobs of the tube in the state
	Jobs   []listedJob `json:"jobs"`
}

// parseState reads a state name.
func parseState(v string) (jobs.State, bool) {
	for _, st := range []jobs.State{jobs.Ready, jobs.Reserved, jobs.Delayed, jobs.Buried} {
		if v == st.String() {
			return st, true
		}
	}
	return 0, false
}

// intParam reads an optional integer query parameter in [lo, hi].
func intParam(r *http.Request, name string, def, lo, hi int) (int, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

func (s *Server) getTubeJobs(w http.ResponseWriter, r *http.Request, args []string) {
	st, ok := parseState(r.URL.Query().Get("state"))
	if !ok {
		writeError(w, http.StatusBadRequest, "bad_state", "state must be ready, reserved, delayed or buried")
		return
	}
	offset, ok1 := intParam(r, "offset", 0, 0, 1<<31-1)
	count, ok2 := intParam(r, "count", defaultListCount, 1, maxListCount)
	if !ok1 || !ok2 {
		writeError(w, http.StatusBadRequest, "bad_paging", "offset must be 0 or more and count from 1 to 1000")
		return
	}
	ti, ok := s.tube(w, args[0])
	if !ok {
		return
	}
	ids, err := s.q.ListJobs([]byte(ti.Name), st, offset, count, nil)
	if err != nil {
		s.queueError(w, err, "tube")
		return
	}
	out := jobListJSON{Tube: ti.Name, State: st.String(), Offset: offset, Count: count, Jobs: []listedJob{}}
	out.Total = map[jobs.State]int64{jobs.Ready: ti.Ready, jobs.Reserved: ti.Reserved,
		jobs.Delayed: ti.Delayed, jobs.Buried: ti.Buried}[st]
	for _, id := range ids {
		js, err := s.q.StatsJob(id)
		if err != nil {
			continue // gone since listed
		}
		data, err := s.q.Peek(id)
		if err != nil {
			continue
		}
		out.Jobs = append(out.Jobs, listedJob{
			ID: id, Pri: js.Pri, AgeSeconds: js.Age.Seconds(), TimeLeftSeconds: js.TimeLeft.Seconds(),
			Body: encodeBody(data.Body(), previewBytes), DeadLetter: s.deadLetterOf(id),
		})
	}
	writeJSON(w, http.StatusOK, out)
}

// queueError maps a queue error to a response; what names the missing
// thing ("tube" or "job").
func (s *Server) queueError(w http.ResponseWriter, err error, what string) {
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", "no such "+what)
	case errors.Is(err, jobs.ErrBadTubeName):
		writeError(w, http.StatusBadRequest, "bad_tube_name", "not a valid tube name")
	case errors.Is(err, jobs.ErrNoSpace), errors.Is(err, jobs.ErrJournal):
		writeError(w, http.StatusServiceUnavailable, "journal", "the journal refused the change: "+err.Error())
	default:
		s.log.Warn().Err(err).Msg("admin call failed")
		writeError(w, http.StatusInternalServerError, "internal", err.Error())
	}
}
