package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Dead letters you can bring back:
//
//	POST /v1/tubes/{tube}/redrive  {"to": "T", "max": N}  the tube's jobs back to their origins
//	POST /v1/jobs/{id}/move        {"tube": "T"}          one job to another tube
//
// Both are mutating calls (allowMutation), answer once what moved is
// committed, and on a cluster follower go to the leader when the Cluster
// is a MoveForwarder (else 421, as every queue endpoint). GET
// /v1/jobs/{id} and the tube listings show what a dead-lettered job
// remembers ("dead_letter": origin, reason, when).

// maxMoveBody bounds a redrive's or move's JSON body.
const maxMoveBody = 64 << 10

// MoveForwarder is what a Cluster may add so that a follower takes
// redrives and moves too: asked of a follower, they go to the leader (the
// daemon forwards them over the raft port) instead of answering 421. Both
// methods must be safe for concurrent use and block until what moved is
// committed (or fails). A refusal is the queue's sentinel (errors.Is:
// jobs.ErrNotFound, ErrBadTubeName, ErrReservedJob, ErrSameTube); an error
// wrapping cluster.ErrNotLeader is 421; any other is 503.
type MoveForwarder interface {
	Redrive(tube string, r jobs.RedriveRequest) (jobs.RedriveResult, error)
	MoveJob(id uint64, to string) (moved bool, err error)
}

// moveForwarder returns the cluster's forwarder when this request, asked
// of a follower, is a redrive or a move it can forward.
func (s *Server) moveForwarder(r *http.Request, segs []string) MoveForwarder {
	mf, ok := s.opts.Cluster.(MoveForwarder)
	if !ok || r.Method != http.MethodPost || len(segs) != 3 ||
		!(segs[0] == "tubes" && segs[2] == "redrive" || segs[0] == "jobs" && segs[2] == "move") {
		return nil
	}
	return mf
}

// deadLetterJSON is what a dead-lettered job remembers, in a job's view.
type deadLetterJSON struct {
	Origin     string  `json:"origin"`
	Reason     string  `json:"reason"`
	ReasonText string  `json:"reason_text"`
	At         string  `json:"at"` // RFC 3339, UTC
	AgeSeconds float64 `json:"age_seconds"`
}

// deadLetterOf returns job id's dead letter for a view, or nil.
func (s *Server) deadLetterOf(id uint64) *deadLetterJSON {
	dl, ok, err := s.q.JobDeadLetter(id)
	if err != nil || !ok {
		return nil
	}
	return &deadLetterJSON{Origin: dl.Origin, Reason: dl.Reason.String(), ReasonText: dl.Reason.Text(),
		At:         time.Unix(0, dl.At).UTC().Format(time.RFC3339Nano),
		AgeSeconds: max(time.Duration(s.q.Now()-dl.At), 0).Seconds()}
}

// decodeMoveBody reads a small JSON object into v, refusing unknown
// fields; an empty body leaves v as it is. It writes the 4xx itself.
func decodeMoveBody(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMoveBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "the body is at most 64 KiB")
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_body", "reading the body: "+err.Error())
		return false
	case len(bytes.TrimSpace(b)) == 0:
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "bad_json", "the body is not the JSON object this call takes: "+
			strings.TrimPrefix(err.Error(), "json: "))
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, "bad_json", "want one JSON object, found more after it")
		return false
	}
	return true
}

// redriveReq is POST /v1/tubes/{tube}/redrive's body.
type redriveReq struct {
	To  string `json:"to"`
	Max int    `json:"max"`
}

// redriveJSON answers a redrive.
type redriveJSON struct {
	Tube     string         `json:"tube"`
	Moved    int            `json:"moved"`
	To       map[string]int `json:"to"` // moved, per target tube
	NoOrigin int            `json:"no_origin"`
	Reserved int            `json:"reserved"`
	Changed  int            `json:"changed"`
	Left     int            `json:"left"` // ready, delayed and buried jobs still in the tube
}

// POST /v1/tubes/{tube}/redrive.
func (s *Server) redriveTube(w http.ResponseWriter, r *http.Request, args []string) {
	name := args[0]
	var req redriveReq
	if !decodeMoveBody(w, r, &req) {
		return
	}
	switch {
	case req.Max < 0:
		writeError(w, http.StatusBadRequest, "bad_max", "max must be 0 (every job) or more")
		return
	case !jobs.ValidTubeName([]byte(name)):
		writeError(w, http.StatusBadRequest, "bad_tube_name", "not a valid tube name")
		return
	case req.To != "" && !jobs.ValidTubeName([]byte(req.To)):
		writeError(w, http.StatusBadRequest, "bad_tube_name", "to: not a valid tube name")
		return
	}
	var res jobs.RedriveResult
	var err error
	if s.mfwd != nil {
		res, err = s.mfwd.Redrive(name, jobs.RedriveRequest{To: req.To, Max: req.Max})
	} else {
		res, err = s.q.Redrive(name, jobs.RedriveRequest{To: req.To, Max: req.Max})
	}
	if err == nil && s.mfwd == nil && !s.committed(r.Context(), w, res.Seq) {
		return
	}
	if err != nil {
		s.moveError(w, err, "tube")
		return
	}
	out := redriveJSON{Tube: name, Moved: res.Moved, To: res.ByTube, NoOrigin: res.NoOrigin,
		Reserved: res.Reserved, Changed: res.Changed, Left: res.Left}
	if out.To == nil {
		out.To = map[string]int{}
	}
	s.logAction(r, "redrive").Str("tube", name).Str("to", req.To).Int("max", req.Max).Int("moved", res.Moved).
		Int("no_origin", res.NoOrigin).Msg("admin redrove a tube")
	writeJSON(w, http.StatusOK, out)
}

// moveReq is POST /v1/jobs/{id}/move's body.
type moveReq struct {
	Tube string `json:"tube"`
}

// POST /v1/jobs/{id}/move.
func (s *Server) moveJob(w http.ResponseWriter, r *http.Request, args []string) {
	id, ok := jobID(w, args[0])
	if !ok {
		return
	}
	var req moveReq
	if !decodeMoveBody(w, r, &req) {
		return
	}
	switch {
	case req.Tube == "":
		writeError(w, http.StatusBadRequest, "bad_body", `the body must name the target tube: {"tube": "NAME"}`)
		return
	case !jobs.ValidTubeName([]byte(req.Tube)):
		writeError(w, http.StatusBadRequest, "bad_tube_name", "tube: not a valid tube name")
		return
	}
	var moved bool
	var err error
	if s.mfwd != nil {
		moved, err = s.mfwd.MoveJob(id, req.Tube)
	} else {
		var seq uint64
		seq, moved, err = s.q.MoveJob(id, req.Tube)
		if err == nil && !s.committed(r.Context(), w, seq) {
			return
		}
	}
	if err != nil {
		s.moveError(w, err, "job")
		return
	}
	if moved {
		s.logAction(r, "move").Uint64("job_id", id).Str("to", req.Tube).Msg("admin moved a job")
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "tube": req.Tube, "moved": moved})
}

// moveError answers a refused redrive or move; what names what was looked
// for ("tube" or "job").
func (s *Server) moveError(w http.ResponseWriter, err error, what string) {
	switch {
	case errors.Is(err, jobs.ErrReservedJob):
		writeError(w, http.StatusConflict, "reserved",
			"the job is reserved by a worker: it can move once the worker releases or buries it, or its time-to-run ends")
	case errors.Is(err, jobs.ErrSameTube):
		writeError(w, http.StatusBadRequest, "same_tube", "to is the tube itself")
	case s.mfwd != nil && !errors.Is(err, jobs.ErrNotFound) && !errors.Is(err, jobs.ErrBadTubeName):
		s.forwardedError(w, err)
	default:
		s.queueError(w, err, what)
	}
}
