package admin

import "net/http"

type healthJSON struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// healthz: 200 while the process serves HTTP at all.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, healthJSON{Status: "ok"})
}

// readyz: 200 only when the server can take work; 503 with the first
// reason it cannot.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if reason := s.notReady(); reason != "" {
		writeJSON(w, http.StatusServiceUnavailable, healthJSON{Status: "unavailable", Reason: reason})
		return
	}
	writeJSON(w, http.StatusOK, healthJSON{Status: "ok"})
}

// notReady returns why the server cannot take work, or "".
func (s *Server) notReady() string {
	if err := s.opts.Serving(); err != nil {
		return "not serving: " + err.Error()
	}
	q := s.current()
	if q == nil { // a follower: ready while it knows a leader to carry commands to
		if st := s.opts.Cluster.Status(); st.Leader == "" {
			return "no cluster leader"
		}
		return ""
	}
	if q.Draining() {
		return "draining: new jobs are refused"
	}
	if err := q.JournalErr(); err != nil {
		return "journal failed: " + err.Error()
	}
	if s := q.JournalStall(); s != "" {
		return "disk stalled: " + s
	}
	return ""
}
