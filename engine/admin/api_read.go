package admin

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// serverStats is GET /v1/stats.
type serverStats struct {
	Jobs             stateCounts       `json:"jobs"`
	Urgent           int64             `json:"urgent"`
	Tubes            int               `json:"tubes"`
	TotalJobs        uint64            `json:"total_jobs"`
	JobTimeouts      uint64            `json:"job_timeouts"`
	Connections      int64             `json:"connections"`
	Producers        int64             `json:"producers"`
	Workers          int64             `json:"workers"`
	Waiting          int64             `json:"waiting"`
	TotalConnections uint64            `json:"total_connections"`
	Draining         bool              `json:"draining"`
	UptimeSeconds    float64           `json:"uptime_seconds"`
	Version          string            `json:"version"`                    // stalkd's
	ProtocolVersion  string            `json:"protocol_version,omitempty"` // the protocol's (stats' version)
	Commands         map[string]uint64 `json:"commands"`
	// MutationsAllowed tells the dashboard whether to offer its buttons.
	MutationsAllowed bool `json:"mutations_allowed"`
}

type stateCounts struct {
	Ready    int64 `json:"ready"`
	Reserved int64 `json:"reserved"`
	Delayed  int64 `json:"delayed"`
	Buried   int64 `json:"buried"`
}

// tubeJSON is one tube in /v1/tubes and /v1/tubes/{tube}.
type tubeJSON struct {
	Name                  string      `json:"name"`
	Jobs                  stateCounts `json:"jobs"`
	Urgent                int64       `json:"urgent"`
	TotalJobs             uint64      `json:"total_jobs"`
	Using                 int64       `json:"using"`
	Watching              int64       `json:"watching"`
	Waiting               int64       `json:"waiting"`
	Deletes               uint64      `json:"deletes"`
	Pauses                uint64      `json:"pauses"`
	Paused                bool        `json:"paused"`
	PauseSeconds          float64     `json:"pause_seconds"`
	PauseLeftSeconds      float64     `json:"pause_left_seconds"`
	OldestReadyAgeSeconds float64     `json:"oldest_ready_age_seconds"`
	policyFigures
}

type tubesJSON struct {
	Tubes      []tubeJSON `json:"tubes"`
	TotalTubes int        `json:"total_tubes"`
	// Truncated: more tubes exist than listed (the largest by job count
	// are listed; raise ?limit= to see more).
	Truncated bool `json:"truncated"`
}

func toTubeJSON(t *jobs.TubeInfo) tubeJSON {
	j := tubeJSON{
		Name:   t.Name,
		Jobs:   stateCounts{Ready: t.Ready, Reserved: t.Reserved, Delayed: t.Delayed, Buried: t.Buried},
		Urgent: t.Urgent, TotalJobs: t.TotalJobs, Using: t.Using, Watching: t.Watching,
		Waiting: t.Waiting, Deletes: t.Deletes, Pauses: t.Pauses, Paused: t.Paused,
		OldestReadyAgeSeconds: t.OldestReady.Seconds(), policyFigures: policyFiguresOf(t),
	}
	if t.Paused {
		j.PauseSeconds = t.Pause.Seconds()
		j.PauseLeftSeconds = max(t.PauseLeft, 0).Seconds()
	}
	return j
}

func (s *Server) getStats(w http.ResponseWriter, r *http.Request, _ []string) {
	st := s.q.Stats()
	writeJSON(w, http.StatusOK, serverStats{
		Jobs:   stateCounts{Ready: st.Ready, Reserved: st.Reserved, Delayed: st.Delayed, Buried: st.Buried},
		Urgent: st.Urgent, Tubes: st.Tubes, TotalJobs: st.TotalJobs, JobTimeouts: st.JobTimeouts,
		Connections: st.Connections, Producers: st.Producers, Workers: st.Workers,
		Waiting: st.Waiting, TotalConnections: st.TotalConnections, Draining: st.Draining,
		UptimeSeconds: time.Since(s.opts.Started).Seconds(), Version: s.opts.Version, ProtocolVersion: s.opts.ProtocolVersion,
		Commands: commandCounts(&st), MutationsAllowed: s.mutable(),
	})
}

// maxTubeListLimit bounds ?limit of /v1/tubes.
const maxTubeListLimit = 100000

func (s *Server) getTubes(w http.ResponseWriter, r *http.Request, _ []string) {
	limit, ok := intParam(r, "limit", s.opts.MetricsMaxTubes, 1, maxTubeListLimit)
	if !ok {
		writeError(w, http.StatusBadRequest, "bad_limit", "limit must be a number from 1 to 100000")
		return
	}
	ts := selectTubes(s.q, limit)
	out := tubesJSON{Tubes: make([]tubeJSON, len(ts.tubes)), TotalTubes: ts.total, Truncated: ts.truncated}
	for i := range ts.tubes {
		out.Tubes[i] = toTubeJSON(&ts.tubes[i])
	}
	s.addPolicies(out.Tubes)
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getTube(w http.ResponseWriter, r *http.Request, args []string) {
	ti, ok := s.tube(w, args[0])
	if ok {
		one := []tubeJSON{toTubeJSON(&ti)}
		s.addPolicies(one)
		writeJSON(w, http.StatusOK, one[0])
	}
}

// tube looks a tube up, writing the error response if it fails.
func (s *Server) tube(w http.ResponseWriter, name string) (jobs.TubeInfo, bool) {
	ti, err := s.q.InspectTube([]byte(name))
	switch {
	case errors.Is(err, jobs.ErrBadTubeName):
		writeError(w, http.StatusBadRequest, "bad_tube_name", "not a valid tube name")
	case err != nil:
		writeError(w, http.StatusNotFound, "not_found", "no such tube")
	default:
		return ti, true
	}
	return ti, false
}

// jobID parses a job id argument, writing the error response if it fails.
func jobID(w http.ResponseWriter, arg string) (uint64, bool) {
	id, err := strconv.ParseUint(arg, 10, 64)
	if err != nil || id == 0 {
		writeError(w, http.StatusBadRequest, "bad_job_id", "a job id is a positive decimal number")
		return 0, false
	}
	return id, true
}

// jobJSON is GET /v1/jobs/{id}.
type jobJSON struct {
	ID              uint64   `json:"id"`
	Tube            string   `json:"tube"`
	State           string   `json:"state"`
	Pri             uint32   `json:"pri"`
	AgeSeconds      float64  `json:"age_seconds"`
	DelaySeconds    float64  `json:"delay_seconds"`
	TTRSeconds      float64  `json:"ttr_seconds"`
	TimeLeftSeconds float64  `json:"time_left_seconds"`
	File            int      `json:"file"`
	Reserves        uint32   `json:"reserves"`
	Timeouts        uint32   `json:"timeouts"`
	Releases        uint32   `json:"releases"`
	Buries          uint32   `json:"buries"`
	Kicks           uint32   `json:"kicks"`
	Body            bodyJSON `json:"body"`
	// DeadLetter: where a dead-lettered job came from, why and when; absent
	// for every other job (redrive.go).
	DeadLetter *deadLetterJSON `json:"dead_letter,omitempty"`
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request, args []string) {
	id, ok := jobID(w, args[0])
	if !ok {
		return
	}
	limit, ok := intParam(r, "peek_bytes", s.opts.PeekLimit, 0, MaxPeekLimit)
	if !ok {
		writeError(w, http.StatusBadRequest, "bad_peek_bytes", "peek_bytes must be a number from 0 to 1048576")
		return
	}
	js, err := s.q.StatsJob(id)
	if err != nil {
		writeError(w, http.StatusNotFound, "not_found", "no such job")
		return
	}
	data, err := s.q.Peek(id)
	if err != nil {
		writeError(w, http.StatusNotFound, "not_found", "no such job")
		return
	}
	writeJSON(w, http.StatusOK, jobJSON{
		ID: js.ID, Tube: js.Tube, State: js.State.String(), Pri: js.Pri,
		AgeSeconds: js.Age.Seconds(), DelaySeconds: js.Delay.Seconds(), TTRSeconds: js.TTR.Seconds(),
		TimeLeftSeconds: js.TimeLeft.Seconds(), File: js.File,
		Reserves: js.Reserves, Timeouts: js.Timeouts, Releases: js.Releases, Buries: js.Buries, Kicks: js.Kicks,
		Body: encodeBody(data.Body(), limit), DeadLetter: s.deadLetterOf(id),
	})
}
