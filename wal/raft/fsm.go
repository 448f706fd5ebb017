package raft

import (
	"github.com/stalkd/stalkd/wal/internal/fields"

	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// fsm is the raft state machine: it applies committed entries to the
// replicated state. Apply, Snapshot and Restore are called by raft's FSM
// goroutine, one at a time; mu guards the state against Node (building a
// leader's queue) and Persist's readers of counters.
type fsm struct {
	log        zerolog.Logger
	onAnnounce func() // called after an announcement is applied, under mu; must not block

	src atomic.Pointer[Journal] // the leader's journal, for takeBody; nil on followers

	mu      sync.Mutex
	st      state
	applied uint64 // index of the last entry applied
	bad     uint64 // entries that did not decode
	// replayTo is the last index the log held when the process started:
	// entries up to it are replayed, later ones live (clock.go).
	replayTo uint64
	time     clusterTime // the leaders' clock, as the records show it (clock.go)
}

func newFSM(log zerolog.Logger) *fsm { return &fsm{log: log, st: newState()} }

// Apply implements hraft.FSM. It returns nil, or the decoding error.
func (f *fsm) Apply(l *hraft.Log) interface{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = l.Index
	if l.Type != hraft.LogCommand {
		return nil
	}
	if len(l.Data) > 0 && l.Data[0] == announceVersion {
		id, a, err := decodeAnnounce(l.Data)
		if err == nil {
			f.st.announced[id] = a
			if f.onAnnounce != nil {
				f.onAnnounce() // a signal's fire: its own leaf lock only
			}
		}
		return err
	}
	var bodies func(uint64, []byte) []byte
	if j := f.src.Load(); j != nil {
		bodies = j.takeBody
	}
	live, now := l.Index > f.replayTo, time.Now()
	err := decodeEntry(l.Data, bodies, func(rec *jobs.Record) error {
		f.st.apply(rec)
		f.time.observe(rec, live, now)
		return nil
	})
	if err != nil {
		// Every node decodes the same bytes the same way, so they agree;
		// but records after the damage are lost to all of them.
		f.bad++
		f.log.Error().Err(err).Uint64("index", l.Index).Msg("committed entry does not decode")
	}
	return err
}

// Snapshot implements hraft.FSM: it copies the job table (pointers to
// immutable records); Persist sorts and writes them off the FSM goroutine.
func (f *fsm) Snapshot() (hraft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	recs := make([]*jobs.Record, 0, len(f.st.jobs))
	for _, r := range f.st.jobs {
		recs = append(recs, r)
	}
	ann := make(map[string]announce, len(f.st.announced))
	for id, a := range f.st.announced {
		ann[id] = a
	}
	pauses := make([]jobs.Record, 0, len(f.st.pauses))
	for _, p := range f.st.pauses {
		pauses = append(pauses, p)
	}
	policies := make([]*jobs.Record, 0, len(f.st.policies))
	for _, p := range f.st.policies {
		policies = append(policies, p)
	}
	return &snapshot{recs: recs, maxID: f.st.maxID, announced: ann, pauses: pauses, policies: policies}, nil
}

// Restore implements hraft.FSM: it replaces the state with a snapshot's.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	st, err := readSnapshot(bufio.NewReaderSize(rc, 1<<16))
	if err != nil {
		return fmt.Errorf("raft: restore snapshot: %w", err)
	}
	f.mu.Lock()
	f.st = st
	for _, rec := range st.jobs {
		f.time.observe(rec, false, time.Time{})
	}
	f.mu.Unlock()
	return nil
}

// withState runs fn with the state locked.
func (f *fsm) withState(fn func(*state) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn(&f.st)
}

// snapshot is a point-in-time copy of the state.
type snapshot struct {
	recs      []*jobs.Record
	maxID     uint64
	announced map[string]announce
	pauses    []jobs.Record
	policies  []*jobs.Record // immutable records, like recs
}

// Snapshot layout: the magic, uvarint maxID, uvarint count, then count
// times uvarint len + one record (always a put) in the entry encoding, then
// uvarint count of announcements, each an announce entry's data preceded
// by its uvarint length, then uvarint count of pauses, each a pause record
// preceded by its uvarint length; then, only if some tube has a policy,
// uvarint count of policies, each a policy record preceded by its uvarint
// length (a snapshot without policies is what builds before policies wrote,
// and they can still read it).
// hashicorp/raft's file snapshot store adds a CRC-64 of the whole.
const snapMagic = "stalkd-snap-1\n"

// Persist implements hraft.FSMSnapshot.
func (s *snapshot) Persist(sink hraft.SnapshotSink) error {
	sortByID(s.recs)
	w := bufio.NewWriterSize(sink, 1<<16)
	var buf []byte
	buf = append(buf, snapMagic...)
	buf = binary.AppendUvarint(buf, s.maxID)
	buf = binary.AppendUvarint(buf, uint64(len(s.recs)))
	_, err := w.Write(buf)
	for _, r := range s.recs {
		if err != nil {
			break
		}
		buf = appendRecord(buf[:0], r)
		var hdr [binary.MaxVarintLen64]byte
		n := binary.PutUvarint(hdr[:], uint64(len(buf)))
		if _, err = w.Write(hdr[:n]); err == nil {
			_, err = w.Write(buf)
		}
	}
	if err == nil {
		buf = binary.AppendUvarint(buf[:0], uint64(len(s.announced)))
		for id, a := range s.announced {
			e := encodeAnnounce(a.term, id, a.addr)
			buf = binary.AppendUvarint(buf, uint64(len(e)))
			buf = append(buf, e...)
		}
		buf = binary.AppendUvarint(buf, uint64(len(s.pauses)))
		for i := range s.pauses {
			e := appendRecord(nil, &s.pauses[i])
			buf = binary.AppendUvarint(buf, uint64(len(e)))
			buf = append(buf, e...)
		}
		if len(s.policies) > 0 {
			slices.SortFunc(s.policies, func(a, b *jobs.Record) int { return strings.Compare(a.Tube, b.Tube) })
			buf = binary.AppendUvarint(buf, uint64(len(s.policies)))
			for _, p := range s.policies {
				e := appendRecord(nil, p)
				buf = binary.AppendUvarint(buf, uint64(len(e)))
				buf = append(buf, e...)
			}
		}
		_, err = w.Write(buf)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		_ = sink.Cancel()
		return err
	}
	return sink.Close()
}

// Release implements hraft.FSMSnapshot.
func (s *snapshot) Release() { s.recs = nil }

func readSnapshot(r *bufio.Reader) (state, error) {
	st := newState()
	magic := make([]byte, len(snapMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != snapMagic {
		return st, errors.Join(ErrMalformed, err)
	}
	maxID, err := binary.ReadUvarint(r)
	if err != nil {
		return st, errors.Join(ErrMalformed, err)
	}
	st.maxID = maxID
	buf, err := readItems(r, nil, 1<<31, func(b []byte) error {
		rec, err := decodeSnapRecord(b, jobs.RecPut)
		if err == nil {
			st.apply(&rec)
		}
		return err
	})
	if err != nil {
		return st, err
	}
	buf, err = readItems(r, buf, 1<<16, func(b []byte) error {
		id, a, err := decodeAnnounce(b)
		if err == nil {
			st.announced[id] = a
		}
		return err
	})
	if err != nil {
		return st, err
	}
	if buf, err = readItems(r, buf, 1<<16, func(b []byte) error {
		rec, err := decodeSnapRecord(b, jobs.RecPause)
		if err == nil {
			st.pauses[rec.Tube] = rec
		}
		return err
	}); err != nil {
		return st, err
	}
	if _, err := r.Peek(1); err == io.EOF {
		return st, nil // no policies
	}
	if _, err = readItems(r, buf, 1<<24, func(b []byte) error {
		rec, err := decodeSnapRecord(b, jobs.RecPolicy)
		if err == nil {
			st.policies[rec.Tube] = &rec
		}
		return err
	}); err != nil {
		return st, err
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return st, ErrMalformed
	}
	return st, nil
}

// readItems reads a count and then that many length-prefixed items of at most
// limit bytes each, handing each to f. buf is reused across items (f must not
// keep it) and returned for the next section.
func readItems(r *bufio.Reader, buf []byte, limit uint64, f func([]byte) error) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return buf, errors.Join(ErrMalformed, err)
	}
	for i := uint64(0); i < n; i++ {
		size, err := binary.ReadUvarint(r)
		if err != nil || size > limit {
			return buf, errors.Join(ErrMalformed, err)
		}
		buf = slicesGrow(buf, int(size))
		if _, err := io.ReadFull(r, buf); err != nil {
			return buf, errors.Join(ErrMalformed, err)
		}
		if err := f(buf); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// decodeSnapRecord decodes one whole snapshot record, which must be of kind.
func decodeSnapRecord(b []byte, kind jobs.RecordKind) (jobs.Record, error) {
	d := decoder{Reader: fields.Reader{B: b, Malformed: ErrMalformed}}
	var rec jobs.Record
	d.record(&rec)
	if d.Err != nil || len(d.B) != 0 || rec.Kind != kind {
		return rec, ErrMalformed
	}
	return rec, nil
}

func slicesGrow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
