package robustness

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stalkd/stalkd/engine/robustness/model"
)

// history records one segment of traffic: its groups of tubes and
// clients, every operation sent and what came back.
//
// Concurrency: record, newSession, newJob and the group's ids are safe for
// concurrent use (the workers share one history).
type history struct {
	num    int // its number in the run: tube names and bodies carry it
	start  time.Time
	groups int
	tubes  int // per group

	sessions atomic.Int64
	jobs     atomic.Int64

	mu      sync.Mutex
	records []record
	ids     []map[uint64]bool // per group: ids learnt from replies
	bad     []string          // replies no model step explains: words 1.12 does not send
}

// record is one operation as sent and heard: the model's view, and the
// raw command and reply for the saved history.
type record struct {
	model.Op
	Node  string `json:"node"`
	Cmd   string `json:"cmd"`
	Reply string `json:"reply"`
	Read  bool   `json:"read,omitempty"` // a read: left out of the check when its outcome is unknown
}

func newHistory(num, groups, tubes int) *history {
	h := &history{num: num, start: time.Now(), groups: groups, tubes: tubes}
	for range groups {
		h.ids = append(h.ids, map[uint64]bool{})
	}
	return h
}

func (h *history) now() int64 { return int64(time.Since(h.start)) }

func (h *history) newSession() int { return int(h.sessions.Add(1)) }

func (h *history) newJob() int { return int(h.jobs.Add(1)) }

func (h *history) tube(g, t int) string { return fmt.Sprintf("h%d-g%d-t%d", h.num, g, t) }

func (h *history) body(job int) []byte { return []byte(fmt.Sprintf("h%d-j%d", h.num, job)) }

// jobOf returns the job a body names, or -1 for a body of no put of this history.
func (h *history) jobOf(body []byte) int {
	var hn, j int
	if n, err := fmt.Sscanf(string(body), "h%d-j%d", &hn, &j); err != nil || n != 2 || hn != h.num ||
		string(body) != string(h.body(j)) {
		return -1
	}
	return j
}

// tubeOf returns the number of group g's tube named name, or -1.
func (h *history) tubeOf(g int, name string) int {
	for t := range h.tubes {
		if h.tube(g, t) == name {
			return t
		}
	}
	return -1
}

func (h *history) add(r record) {
	h.mu.Lock()
	h.records = append(h.records, r)
	h.mu.Unlock()
}

func (h *history) learn(g int, id uint64) {
	h.mu.Lock()
	h.ids[g][id] = true
	h.mu.Unlock()
}

func (h *history) noteBad(s string) {
	h.mu.Lock()
	h.bad = append(h.bad, s)
	h.mu.Unlock()
}

// someID returns an id group g learnt, or 0.
func (h *history) someID(g int, pick func(int) int) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.ids[g]) == 0 {
		return 0
	}
	ids := make([]uint64, 0, len(h.ids[g]))
	for id := range h.ids[g] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids[pick(len(ids))]
}

func (h *history) groupIDs(g int) []uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ids []uint64
	for id := range h.ids[g] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ops returns what the model checks: every operation but the reads whose
// outcome is not known, in call order.
func (h *history) ops() []model.Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ops []model.Op
	for _, r := range h.records {
		if r.Read && r.Output.Unknown {
			continue
		}
		ops = append(ops, r.Op)
	}
	slices.SortStableFunc(ops, func(a, b model.Op) int { return int(a.Call - b.Call) })
	return ops
}

// counts returns the operations recorded and how many of them have an
// outcome not known.
func (h *history) counts() (ops, unknown int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		if r.Input.Kind == model.Close {
			continue
		}
		ops++
		if r.Output.Unknown {
			unknown++
		}
	}
	return ops, unknown
}

func (h *history) badReplies() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.bad)
}

// allowed are the reply words beanstalkd 1.12 can send for each command
// the clients use, besides the ones any command may get
// (OUT_OF_MEMORY, INTERNAL_ERROR, BAD_FORMAT, UNKNOWN_COMMAND): a client
// must never hear another.
var allowed = map[model.Kind][]string{
	model.Put:         {"INSERTED", "BURIED", "EXPECTED_CRLF", "JOB_TOO_BIG", "DRAINING"},
	model.Reserve:     {"RESERVED", "DEADLINE_SOON", "TIMED_OUT"},
	model.Delete:      {"DELETED", "NOT_FOUND"},
	model.Release:     {"RELEASED", "BURIED", "NOT_FOUND"},
	model.Bury:        {"BURIED", "NOT_FOUND"},
	model.Touch:       {"TOUCHED", "NOT_FOUND"},
	model.Kick:        {"KICKED"},
	model.KickJob:     {"KICKED", "NOT_FOUND"},
	model.Peek:        {"FOUND", "NOT_FOUND"},
	model.PeekReady:   {"FOUND", "NOT_FOUND"},
	model.PeekDelayed: {"FOUND", "NOT_FOUND"},
	model.PeekBuried:  {"FOUND", "NOT_FOUND"},
	model.StatsJob:    {"OK", "NOT_FOUND"},
}

// outcome turns a reply into the model's output. An error, INTERNAL_ERROR
// and OUT_OF_MEMORY are outcomes not known (the command may or may not
// have run); so are a put or release answered BURIED (stored, but not as
// asked). A word 1.12 never sends for the command is noted as bad.
func (h *history) outcome(g int, in model.Input, line string, data []byte, err error) model.Output {
	if err != nil {
		return model.Output{Unknown: true}
	}
	f := strings.Fields(line)
	word := ""
	if len(f) > 0 {
		word = f[0]
	}
	switch word {
	case "INTERNAL_ERROR", "OUT_OF_MEMORY":
		return model.Output{Unknown: true}
	}
	if !slices.Contains(allowed[in.Kind], word) {
		h.noteBad(fmt.Sprintf("%s answered %q", in.Kind, line))
		return model.Output{Unknown: true}
	}
	num := func(i int) uint64 {
		var v uint64
		if i < len(f) {
			fmt.Sscanf(f[i], "%d", &v)
		}
		return v
	}
	switch word {
	case "INSERTED":
		return model.Output{Word: model.Inserted, ID: num(1)}
	case "RESERVED", "FOUND":
		w := model.Reserved
		if word == "FOUND" {
			w = model.Found
		}
		return model.Output{Word: w, ID: num(1), Job: h.jobOf(data)}
	case "BURIED":
		if in.Kind == model.Bury {
			return model.Output{Word: model.Buried}
		}
		return model.Output{Unknown: true}
	case "KICKED":
		return model.Output{Word: model.Kicked, Count: int(num(1))}
	case "OK":
		return model.Output{Word: model.OK, Stats: h.jobStats(g, data)}
	case "DRAINING", "EXPECTED_CRLF", "JOB_TOO_BIG":
		h.noteBad(fmt.Sprintf("%s answered %q", in.Kind, line))
		return model.Output{Unknown: true}
	}
	w := map[string]model.Word{"TIMED_OUT": model.TimedOut, "DEADLINE_SOON": model.DeadlineSoon,
		"DELETED": model.Deleted, "RELEASED": model.Released, "TOUCHED": model.Touched, "NOT_FOUND": model.NotFound}[word]
	return model.Output{Word: w}
}

// jobStats reads the fields of a stats-job document the model predicts.
func (h *history) jobStats(g int, doc []byte) *model.JobStats {
	s := &model.JobStats{Tube: -1}
	for _, line := range strings.Split(string(doc), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		var n uint32
		fmt.Sscanf(v, "%d", &n)
		switch k {
		case "tube":
			s.Tube = h.tubeOf(g, strings.Trim(v, `"`))
		case "state":
			s.State = model.ParseState(v)
		case "pri":
			s.Pri = n
		case "reserves":
			s.Reserves = n
		case "releases":
			s.Releases = n
		case "buries":
			s.Buries = n
		case "kicks":
			s.Kicks = n
		case "timeouts":
			s.Timeouts = n
		}
	}
	return s
}
