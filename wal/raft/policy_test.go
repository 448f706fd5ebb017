package raft

import (
	"bytes"
	"encoding/hex"
	"io"
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

func policyRecords() []jobs.Record {
	return []jobs.Record{
		{Kind: jobs.RecPolicy, Tube: "emails", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReserves: 3, DeadLetter: "dead",
			MaxReady: 10, ReserveRate: 0.5, Schedule: []jobs.Schedule{{Cron: "@every 1m", Body: "x", Priority: 2, TTR: 5}}},
			Fired: []int64{1_700_000_000_000_000_000}}},
		{Kind: jobs.RecPut, ID: 8, Tube: "emails", State: jobs.Ready, Pri: 2, TTR: 5 * time.Second,
			Created: 1_700_000_060_000_000_001, Body: []byte("x"), Sched: 1, SchedAt: 1_700_000_060_000_000_000},
		{Kind: jobs.RecPolicy, Tube: "gone"},
	}
}

// TestEntryGoldenPolicy pins the two entry kinds tube policies added.
func TestEntryGoldenPolicy(t *testing.T) {
	got := hex.EncodeToString(encodeEntry(policyRecords(), 0))
	const want = "0103" +
		"06" + "06656d61696c73" + "01" + "03" + "0464656164" + "0a" + "000000000000e03f" + "01" +
		"0940657665727920316d" + "0178" + "02" + "05" + "8080d0e2c6bfce972f" +
		"07" + "08" + "01" + "02" + "00" + "80c8afa025" + "82e08ae785c3ce972f" + "00" + "0000000000" +
		"06656d61696c73" + "03780d0a" + "01" + "80e08ae785c3ce972f" +
		"06" + "04676f6e65" + "00"
	assert.Equal(t, want, got)
	assert.Equal(t, policyRecords(), entryRoundTrip(t, policyRecords()))
}

// entryRoundTrip encodes recs as one entry and decodes it back.
func entryRoundTrip(t *testing.T, recs []jobs.Record) []jobs.Record {
	t.Helper()
	var back []jobs.Record
	require.NoError(t, decodeEntry(encodeEntry(recs, 0), nil, func(r *jobs.Record) error {
		back = append(back, *r)
		return nil
	}))
	return back
}

// TestEntryPolicyTZ: a schedule's time zone rides in the entry's cron
// string; a schedule without one is encoded as before tz existed
// (TestEntryGoldenPolicy), so entries from older nodes read the same.
func TestEntryPolicyTZ(t *testing.T) {
	recs := []jobs.Record{{Kind: jobs.RecPolicy, Tube: "r", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{
		Schedule: []jobs.Schedule{{Cron: "0 9 * * MON", TZ: "Europe/Berlin", Body: "b", Priority: 1024, TTR: 60}}},
		Fired: []int64{7}}}}
	b := encodeEntry(recs, 0)
	assert.Contains(t, string(b), "CRON_TZ=Europe/Berlin 0 9 * * MON")
	var back []jobs.Record
	require.NoError(t, decodeEntry(b, nil, func(r *jobs.Record) error {
		back = append(back, *r)
		return nil
	}))
	assert.Equal(t, recs, back)
	bad := bytes.Replace(b, []byte("Europe/Berlin"), []byte("Europe/Nowher"), 1)
	require.ErrorIs(t, decodeEntry(bad, nil, func(*jobs.Record) error { return nil }), ErrMalformed, "an unknown zone is malformed")
}

// TestStatePoliciesAndSnapshot: the state keeps each tube's latest policy
// with its schedules' progress advanced by scheduled puts, a snapshot
// carries them, and a queue built from it has them.
func TestStatePoliciesAndSnapshot(t *testing.T) {
	f := newFSM(zerolog.Nop())
	recs := append(policyRecords(),
		jobs.Record{Kind: jobs.RecPolicy, Tube: "gone", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 1}}},
		jobs.Record{Kind: jobs.RecPolicy, Tube: "gone"})
	require.Nil(t, f.Apply(&hraft.Log{Index: 1, Type: hraft.LogCommand, Data: encodeEntry(recs, 0)}))
	require.Len(t, f.st.policies, 1)
	p := f.st.policies["emails"]
	assert.Equal(t, []int64{1_700_000_060_000_000_000}, p.Policy.Fired, "the scheduled put advanced the progress")
	assert.Equal(t, recs[0].Policy.Policy, p.Policy.Policy)
	assert.Equal(t, []int64{1_700_000_000_000_000_000}, recs[0].Policy.Fired, "the applied record is not changed")

	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink := &memSink{}
	require.NoError(t, snap.Persist(sink))
	g := newFSM(zerolog.Nop())
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(sink.buf.Bytes()))))
	require.Len(t, g.st.policies, 1)
	assert.Equal(t, *p, *g.st.policies["emails"])

	clk := jobs.NewManualClock(1_700_000_090_000_000_000)
	q := jobs.New(jobs.Config{Clock: clk, Replicated: true})
	require.NoError(t, g.withState(func(s *state) error { return s.restoreInto(q) }))
	got, ok := q.Policy("emails")
	require.True(t, ok)
	assert.Equal(t, recs[0].Policy.Policy, got)
	// Restored at +90 s with the last fire at +60 s: the next is at +120 s.
	q.Tick()
	st, err := q.StatsTube([]byte("emails"))
	require.NoError(t, err)
	assert.Equal(t, int64(1), st.Ready, "only job 8: no time was missed")
	clk.Advance(30 * time.Second)
	q.Tick()
	st, err = q.StatsTube([]byte("emails"))
	require.NoError(t, err)
	assert.Equal(t, int64(2), st.Ready)
}

// policySetRecords are the entry kinds issue 28 added: a policy with an
// overflow mode, and a whole policy set.
func policySetRecords() []jobs.Record {
	return []jobs.Record{
		{Kind: jobs.RecPolicy, Tube: "t", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 1, Overflow: jobs.OverflowBury}}},
		{Kind: jobs.RecPolicySet, Policy: &jobs.PolicyRecord{Tubes: []jobs.TubePolicyRecord{
			{Tube: "a", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 2, Overflow: jobs.OverflowDeadLetter, DeadLetter: "b"}}},
			{Tube: "emails", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{MaxReserves: 3,
				Schedule: []jobs.Schedule{{Cron: "@every 1m", Body: "x", Priority: 2, TTR: 5}}},
				Fired: []int64{1_700_000_000_000_000_000}}},
		}}},
	}
}

// TestEntryGoldenPolicySet pins the extended policy (kind 10) and the
// policy set (kind 11); a policy without an overflow mode stays kind 6
// (TestEntryGoldenPolicy), which builds before them read.
func TestEntryGoldenPolicySet(t *testing.T) {
	got := hex.EncodeToString(encodeEntry(policySetRecords(), 0))
	const want = "0102" +
		"0a" + "0174" + "01" + "00" + "00" + "01" + "0000000000000000" + "00" + "01" + "01" + "01" + "02" +
		"0b" + "02" +
		"0161" + "00" + "0162" + "02" + "0000000000000000" + "00" + "01" + "01" + "01" + "03" +
		"06656d61696c73" + "03" + "00" + "00" + "0000000000000000" + "01" +
		"0940657665727920316d" + "0178" + "02" + "05" + "8080d0e2c6bfce972f" + "00"
	assert.Equal(t, want, got)
	assert.Equal(t, policySetRecords(), entryRoundTrip(t, policySetRecords()))
}

// TestStatePolicySet: a policy set replaces every policy of the state (one
// entry, all or nothing), survives a snapshot with its overflow modes, and
// a queue restored from it has exactly those policies.
func TestStatePolicySet(t *testing.T) {
	f := newFSM(zerolog.Nop())
	recs := append([]jobs.Record{{Kind: jobs.RecPolicy, Tube: "old", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 1}}}},
		policySetRecords()...)
	require.Nil(t, f.Apply(&hraft.Log{Index: 1, Type: hraft.LogCommand, Data: encodeEntry(recs, 0)}))
	require.Len(t, f.st.policies, 2, "the set replaced old and t")
	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink := &memSink{}
	require.NoError(t, snap.Persist(sink))
	g := newFSM(zerolog.Nop())
	require.NoError(t, g.Restore(io.NopCloser(bytes.NewReader(sink.buf.Bytes()))))
	q := jobs.New(jobs.Config{Clock: jobs.NewManualClock(1_700_000_000_000_000_000), Replicated: true})
	require.NoError(t, g.withState(func(s *state) error { return s.restoreInto(q) }))
	set := policySetRecords()[1].Policy.Tubes
	assert.Equal(t, map[string]jobs.Policy{"a": set[0].Policy, "emails": set[1].Policy}, q.Policies())
}
