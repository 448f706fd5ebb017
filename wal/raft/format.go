package raft

import (
	"bufio"
	"bytes"
	"cmp"
	"slices"

	"github.com/stalkd/stalkd/jobs"
)

// The replicated formats from outside the package: for the fuzz targets in
// fuzz/ and for tools that read a raft log or snapshot. The node itself
// never calls these; they wrap the same encoders and decoders it uses
// (entry.go for entries, fsm.go for snapshots, announce.go for leaders'
// announcements). Every function here is a pure function of its arguments,
// safe for concurrent use, and never panics whatever the input.

// EncodeEntry returns the data of one raft command entry carrying recs, as
// the journal's batcher writes it.
func EncodeEntry(recs []jobs.Record) []byte { return encodeEntry(recs, 0) }

// DecodeEntry decodes the data of one raft command entry into its records,
// as every node's FSM does. Tubes and bodies are copies. An announcement
// entry is not a batch of records: it decodes with DecodeAnnouncement.
func DecodeEntry(data []byte) ([]jobs.Record, error) {
	var recs []jobs.Record
	err := decodeEntry(data, nil, func(r *jobs.Record) error {
		recs = append(recs, *r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// Announcement is a leader's announcement of where it serves clients.
type Announcement struct {
	Term uint64
	Addr string
}

// EncodeAnnouncement returns the data of the entry in which node id, leader
// of a.Term, announces a.Addr.
func EncodeAnnouncement(id string, a Announcement) []byte { return encodeAnnounce(a.Term, id, a.Addr) }

// DecodeAnnouncement decodes an announcement entry's data.
func DecodeAnnouncement(data []byte) (string, Announcement, error) {
	id, a, err := decodeAnnounce(data)
	return id, Announcement{Term: a.term, Addr: a.addr}, err
}

// Snapshot is what a snapshot holds: the highest job id ever logged, the
// live jobs (puts, by id), the tubes' pauses (by tube), where each node
// last served clients as leader, and the tubes' policies (RecPolicy
// records with their schedules' progress, by tube).
type Snapshot struct {
	MaxID     uint64
	Jobs      []jobs.Record
	Pauses    []jobs.Record
	Announced map[string]Announcement
	Policies  []jobs.Record
}

// EncodeSnapshot returns the bytes a node persists for s (before
// hashicorp/raft's snapshot store adds its own framing). Jobs are written in
// id order, as a node writes them.
func EncodeSnapshot(s Snapshot) []byte {
	snap := &snapshot{maxID: s.MaxID, pauses: s.Pauses, announced: map[string]announce{}}
	for i := range s.Jobs {
		snap.recs = append(snap.recs, &s.Jobs[i])
	}
	for id, a := range s.Announced {
		snap.announced[id] = announce{term: a.Term, addr: a.Addr}
	}
	for i := range s.Policies {
		snap.policies = append(snap.policies, &s.Policies[i])
	}
	sink := &bufferSink{}
	_ = snap.Persist(sink) // writes to memory: cannot fail
	return sink.Bytes()
}

// DecodeSnapshot reads snapshot bytes as a restoring node does. Jobs come
// back in id order and pauses in tube order.
func DecodeSnapshot(data []byte) (Snapshot, error) {
	st, err := readSnapshot(bufio.NewReader(bytes.NewReader(data)))
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{MaxID: st.maxID, Announced: map[string]Announcement{}}
	for _, r := range st.jobs {
		s.Jobs = append(s.Jobs, *r)
	}
	slices.SortFunc(s.Jobs, func(a, b jobs.Record) int { return cmp.Compare(a.ID, b.ID) })
	for _, p := range st.pauses {
		s.Pauses = append(s.Pauses, p)
	}
	slices.SortFunc(s.Pauses, func(a, b jobs.Record) int { return cmp.Compare(a.Tube, b.Tube) })
	for id, a := range st.announced {
		s.Announced[id] = Announcement{Term: a.term, Addr: a.addr}
	}
	for _, p := range st.policies {
		s.Policies = append(s.Policies, *p)
	}
	slices.SortFunc(s.Policies, func(a, b jobs.Record) int { return cmp.Compare(a.Tube, b.Tube) })
	return s, nil
}

// bufferSink is a hraft.SnapshotSink in memory.
type bufferSink struct{ bytes.Buffer }

func (*bufferSink) ID() string    { return "memory" }
func (*bufferSink) Cancel() error { return nil }
func (*bufferSink) Close() error  { return nil }
