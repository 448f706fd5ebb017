package raft

import (
	"bytes"
	"encoding/hex"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// deadPut is a job that moved into a dead-letter tube, as the leader's
// queue logs it.
func deadPut() jobs.Record {
	return jobs.Record{Kind: jobs.RecPut, ID: 7, Tube: "emails-dead", State: jobs.Ready, Pri: 5,
		TTR: time.Minute, Created: 1_700_000_000_000_000_000, Releases: 3, Body: []byte("hi"),
		Dead: &jobs.DeadLetter{Origin: "emails", Reason: jobs.DeadReleased, At: 1_700_000_100_000_000_000}}
}

// TestEntryGoldenDeadPut pins the entry of a dead put (kind 8): a put's
// fields, then no schedule mark (0), the origin, reason 1 and the time.
func TestEntryGoldenDeadPut(t *testing.T) {
	recs := []jobs.Record{deadPut()}
	got := hex.EncodeToString(encodeEntry(recs, 0))
	const want = "0101" +
		"0807" + "01" + "05" + "00" + "80e0ba84bf03" + "8080d0e2c6bfce972f" + "00" + "0000030000" +
		"0b656d61696c732d64656164" + "0468690d0a" +
		"00" + "06656d61696c73" + "01" + "80a087eaafc5ce972f"
	assert.Equal(t, want, got)
	back, err := DecodeEntry(encodeEntry(recs, 0))
	require.NoError(t, err)
	assert.Equal(t, recs, back)

	// With a schedule's mark (a scheduled put that overflowed), both survive.
	r := deadPut()
	r.Sched, r.SchedAt, r.Dead = 2, 99, &jobs.DeadLetter{Origin: "r", Reason: jobs.DeadOverflow, At: -3}
	back, err = DecodeEntry(encodeEntry([]jobs.Record{r}, 0))
	require.NoError(t, err)
	assert.Equal(t, []jobs.Record{r}, back)

	// A reason byte no build knows is refused, never misread.
	b := encodeEntry(recs, 0)
	b[len(b)-10] = 77 // the reason, before the 9-byte time
	_, err = DecodeEntry(b)
	assert.ErrorIs(t, err, ErrMalformed)
}

// TestStateKeepsDeadLetter: an update of a dead-lettered job (which never
// carries the mark) keeps what its put said, and a snapshot carries it to
// a node that restores from it; a later put without one (a redrive)
// clears it.
func TestStateKeepsDeadLetter(t *testing.T) {
	st := newState()
	p := deadPut()
	st.apply(&p)
	up := jobs.Record{Kind: jobs.RecUpdate, ID: 7, State: jobs.Buried, Pri: 5, TTR: time.Minute,
		Created: p.Created, Reserves: 1, Releases: 3, Buries: 1}
	st.apply(&up)
	require.NotNil(t, st.jobs[7].Dead)
	assert.Equal(t, *p.Dead, *st.jobs[7].Dead)
	assert.Equal(t, jobs.Buried, st.jobs[7].State)

	s := &snapshot{maxID: 7, recs: st.records()}
	sink := &memSink{}
	require.NoError(t, s.Persist(sink))
	f := newFSM(zerolog.Nop())
	require.NoError(t, f.Restore(io.NopCloser(bytes.NewReader(sink.buf.Bytes()))))
	require.NotNil(t, f.st.jobs[7].Dead)
	assert.Equal(t, *p.Dead, *f.st.jobs[7].Dead)
	assert.Equal(t, "emails-dead", f.st.jobs[7].Tube)

	back := jobs.Record{Kind: jobs.RecPut, ID: 7, Tube: "emails", State: jobs.Ready, Pri: 5, TTR: time.Minute,
		Created: p.Created, Releases: 3, Buries: 1, Body: []byte("hi")}
	st.apply(&back)
	assert.Nil(t, st.jobs[7].Dead, "redriven: no longer a dead letter")
	assert.Equal(t, "emails", st.jobs[7].Tube)
}
