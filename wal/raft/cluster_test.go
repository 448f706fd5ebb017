package raft

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// TestClusterBasics: three nodes elect a leader; a put committed through it
// reaches every node's state; the leader's stats say so; a reservation is
// replicated with its deadline and survives a failover as an orphan that
// no one else can reserve but its worker can delete.
func TestClusterBasics(t *testing.T) {
	c := newCluster(t, 3)
	li, q := c.leader()
	s := q.NewSession(nil)
	id, seq, err := s.Put(jobs.PutRequest{Pri: 1, TTR: time.Hour, Owned: []byte("one")})
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, seq))
	for i := range c.nodes {
		enginetest.Eventually(t, "the put on every node", func() bool { return string(c.image(i)[id].Body) == "one" })
	}
	st := c.node(li).Stats()
	assert.Equal(t, "leader", st.State)
	assert.Equal(t, c.nodes[li].id, st.Leader)
	assert.Len(t, st.Servers, 3)
	assert.Positive(t, st.Term)
	assert.GreaterOrEqual(t, st.AppliedIndex, uint64(2))
	fi := (li + 1) % 3
	fst := c.node(fi).Stats()
	assert.Equal(t, "follower", fst.State)
	enginetest.Eventually(t, "the follower to know the leader", func() bool { return c.node(fi).Stats().Leader == st.Leader })

	// Where the leader serves clients reaches the followers.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lf, err := c.node(fi).LeaderAddr(ctx)
	require.NoError(t, err)
	assert.Equal(t, LeaderInfo{Addr: "client-" + st.Leader, Term: st.Term}, lf)
	ll, err := c.node(li).LeaderAddr(ctx)
	require.NoError(t, err)
	assert.Equal(t, LeaderInfo{Addr: "client-" + st.Leader, Term: st.Term, Local: true}, ll)

	// Reserve: RESERVED may be sent once LastSeq commits.
	d, err := s.Reserve(0)
	require.NoError(t, err)
	require.Equal(t, id, d.ID)
	require.NoError(t, waitCommitted(t, q, s.LastSeq()))
	for i := range c.nodes {
		enginetest.Eventually(t, "the reservation on every node", func() bool { return c.image(i)[id].State == jobs.Reserved })
	}

	// A pause is committed before PAUSED, and outlives the leader.
	seq, err = q.PauseTubeSeq([]byte("default"), time.Hour)
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, seq))

	// The leader dies; the new one keeps the job reserved (an orphan).
	c.kill(li)
	nli, nq := c.leader()
	require.NotEqual(t, li, nli)
	ts, err := nq.StatsTube([]byte("default"))
	require.NoError(t, err)
	assert.Equal(t, time.Hour, ts.Pause)
	require.NoError(t, nq.PauseTube([]byte("default"), 0)) // unpause, for what follows
	enginetest.Eventually(t, "the pause to end", func() bool { ts, _ := nq.StatsTube([]byte("default")); nq.Tick(); return ts.Pause == 0 })
	js, err := nq.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, jobs.Reserved, js.State)
	other := nq.NewSession(nil)
	_, err = other.Reserve(0)
	assert.ErrorIs(t, err, jobs.ErrTimedOut, "a reserved job is handed to no second worker")
	// New ids continue above the old ones.
	id2, seq, err := other.Put(jobs.PutRequest{TTR: time.Second, Owned: []byte("two")})
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, nq, seq))
	assert.Greater(t, id2, id)
	// The worker, reconnected, deletes its job.
	worker := nq.NewSession(nil)
	seq, err = worker.Delete(id)
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, nq, seq))

	// The old leader comes back and catches up.
	c.start(li, nil)
	enginetest.Eventually(t, "the old leader to catch up", func() bool {
		img := c.image(li)
		_, has1 := img[id]
		return !has1 && string(img[id2].Body) == "two"
	})
}

// TestClusterMembership: a fourth node is added and catches up (from a
// snapshot); a follower that lost its disk is removed, restarted empty and
// added back, and catches up; only the leader changes membership.
func TestClusterMembership(t *testing.T) {
	c := newCluster(t, 3)
	li, q := c.leader()
	s := q.NewSession(nil)
	var last uint64
	for k := 0; k < 300; k++ { // past the snapshot threshold: joiners need a snapshot
		id, seq, err := s.Put(jobs.PutRequest{TTR: time.Minute, Owned: []byte(fmt.Sprintf("m%d", k))})
		require.NoError(t, err)
		require.NoError(t, waitCommitted(t, q, seq))
		last = id
	}
	ln := c.node(li)
	fi := (li + 1) % 3
	assert.ErrorIs(t, c.node(fi).AddVoter("x", "y"), cluster.ErrNotLeader)

	enginetest.Eventually(t, "a snapshot on the leader", func() bool { return ln.Stats().LastSnapshotIndex > 0 })
	ni := c.addNode()
	c.start(ni, nil)
	require.NoError(t, ln.AddVoter(c.nodes[ni].id, string(c.nodes[ni].addr)))
	enginetest.Eventually(t, "the new node to catch up", func() bool { return sameImage(c.image(li), c.image(ni)) })
	assert.Len(t, ln.Stats().Servers, 4)
	assert.Equal(t, "m299", string(c.image(ni)[last].Body))
	assert.Positive(t, c.node(ni).Stats().LastSnapshotIndex, "caught up from an installed snapshot")

	// A follower loses its disk: out, wiped, back in.
	require.NoError(t, ln.RemoveServer(c.nodes[fi].id))
	assert.Len(t, ln.Stats().Servers, 3)
	c.kill(fi)
	c.wipe(fi)
	c.start(fi, nil)
	require.Empty(t, c.image(fi))
	require.NoError(t, ln.AddVoter(c.nodes[fi].id, string(c.nodes[fi].addr)))
	id, seq, err := s.Put(jobs.PutRequest{TTR: time.Minute, Owned: []byte("after")})
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, seq))
	enginetest.Eventually(t, "the wiped node to catch up", func() bool {
		img := c.image(fi)
		return string(img[id].Body) == "after" && sameImage(c.image(li), img)
	})
	assert.Len(t, ln.Stats().Servers, 4)
}

// TestClusterModel drives puts, deletes and reserve+deletes through
// whichever node leads while another goroutine kills and restarts the
// leader, kills followers and isolates the leader; afterwards every node's
// state must hold every acknowledged put not acknowledged deleted, exactly
// once and with its body, no acknowledged delete, and nothing never put;
// and no job is reserved again while an acknowledged reservation of it
// (TTR an hour) has not been given back, whatever the failovers.
func TestClusterModel(t *testing.T) {
	seeds := []int64{1, 2, 3}
	dur := 3 * time.Second
	if testing.Short() {
		seeds, dur = seeds[:1], 2*time.Second
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runModel(t, seed, dur) })
	}
}

type model struct {
	live    map[uint64]string // acknowledged puts not acknowledged deleted
	deleted map[uint64]string // acknowledged deletes
	maybe   map[string]bool   // bodies of puts with no acknowledgement
	// deletes sent but not acknowledged: the job may or may not be gone
	maybeDel map[uint64]bool
	// jobs whose reservation was acknowledged and not yet given back
	held  map[uint64]bool
	acked int
}

func runModel(t *testing.T, seed int64, dur time.Duration) {
	c := newCluster(t, 3)
	rng := rand.New(rand.NewSource(seed))
	m := &model{live: map[uint64]string{}, deleted: map[uint64]string{}, maybe: map[string]bool{}, maybeDel: map[uint64]bool{},
		held: map[uint64]bool{}}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	kills := 0
	go func() {
		defer wg.Done()
		kills = chaos(c, rand.New(rand.NewSource(seed*7919)), stop)
	}()

	var q *jobs.Queue
	var s *jobs.Session
	end := time.Now().Add(dur)
	for k := 0; time.Now().Before(end); k++ {
		if _, lq := c.leader(); lq != q {
			q, s = lq, lq.NewSession(nil)
		}
		switch r := rng.Intn(10); {
		case r < 6 || len(m.live) == 0:
			body := fmt.Sprintf("s%d-%d", seed, k)
			id, seq, err := s.Put(jobs.PutRequest{Pri: uint32(rng.Intn(3)), TTR: time.Hour, Owned: []byte(body)})
			if err == nil {
				err = waitCommitted(t, q, seq)
			}
			if err != nil {
				m.maybe[body] = true
				continue
			}
			m.live[id] = body
			m.acked++
		case r < 8:
			id := pick(rng, m.live)
			seq, err := s.Delete(id)
			if err == nil {
				if err = waitCommitted(t, q, seq); err != nil {
					m.maybeDel[id] = true // a later leader may still commit it
				}
			}
			if err == nil {
				m.deleted[id] = m.live[id]
				delete(m.live, id)
				delete(m.held, id) // an orphan, adopted and deleted
				m.acked++
			}
		default:
			d, err := s.Reserve(0)
			if err != nil {
				continue
			}
			if waitCommitted(t, q, s.LastSeq()) != nil {
				continue
			}
			// RESERVED may be sent: no other worker may get the job while
			// this reservation's TTR (an hour) runs.
			require.False(t, m.held[d.ID], "job %d handed to a second worker", d.ID)
			m.held[d.ID] = true
			m.acked++
			if rng.Intn(8) == 0 {
				continue // the worker is slow: it keeps the job past failovers
			}
			if rng.Intn(3) == 0 {
				seq, err := s.Release(d.ID, 1, 0)
				if err == nil && waitCommitted(t, q, seq) == nil {
					delete(m.held, d.ID)
					m.acked++
				}
				continue
			}
			seq, err := s.Delete(d.ID)
			if err == nil {
				if err = waitCommitted(t, q, seq); err != nil {
					m.maybeDel[d.ID] = true
				}
			}
			if err == nil { // the job may be an unacknowledged put that made it
				m.deleted[d.ID] = string(d.Body())
				delete(m.live, d.ID)
				delete(m.held, d.ID)
				m.acked++
			}
		}
	}
	close(stop)
	wg.Wait()

	// The dust settles: every node up and linked, one more committed put so
	// that everything earlier is committed in the final term.
	c.heal()
	for i := range c.nodes {
		c.start(i, nil)
	}
	_, q = c.leader()
	s = q.NewSession(nil)
	for {
		id, seq, err := s.Put(jobs.PutRequest{TTR: time.Second, Owned: []byte("final")})
		if err == nil && waitCommitted(t, q, seq) == nil {
			m.live[id] = "final"
			break
		}
		_, q = c.leader()
		s = q.NewSession(nil)
	}
	last := maxKey(m.live)
	enginetest.Eventually(t, "every node to converge", func() bool {
		first := c.image(0)
		if _, ok := first[last]; !ok {
			return false
		}
		for i := 1; i < len(c.nodes); i++ {
			if !sameImage(first, c.image(i)) {
				return false
			}
		}
		return true
	})
	for i := range c.nodes {
		checkImage(t, c.nodes[i].id, c.image(i), m)
	}
	t.Logf("seed %d: %d acknowledged changes, %d live, %d deleted, %d unacknowledged puts, %d kills/isolations",
		seed, m.acked, len(m.live), len(m.deleted), len(m.maybe), kills)
	require.Positive(t, m.acked)
}

func checkImage(t *testing.T, node string, img map[uint64]jobs.Record, m *model) {
	t.Helper()
	for id, body := range m.live {
		r, ok := img[id]
		if !ok && m.maybeDel[id] {
			continue
		}
		if assert.True(t, ok, "%s: acknowledged put %d (%q) lost", node, id, body) {
			assert.Equal(t, body, string(r.Body), "%s: job %d", node, id)
		}
	}
	for id, body := range m.deleted {
		r, ok := img[id]
		assert.False(t, ok, "%s: acknowledged delete of %d (%q) undone: %q", node, id, body, r.Body)
	}
	seen := map[string]uint64{}
	for id, r := range img {
		b := string(r.Body)
		if prev, dup := seen[b]; dup {
			t.Errorf("%s: body %q twice, ids %d and %d", node, b, prev, id)
		}
		seen[b] = id
		if _, ok := m.live[id]; !ok && !m.maybe[b] {
			t.Errorf("%s: job %d (%q) was never put", node, id, b)
		}
	}
}

// chaos kills, restarts and isolates nodes until stop, keeping a majority
// up; it returns how many times it struck.
func chaos(c *tcluster, rng *rand.Rand, stop chan struct{}) int {
	n := 0
	for {
		select {
		case <-stop:
			return n
		case <-time.After(time.Duration(200+rng.Intn(400)) * time.Millisecond):
		}
		li := -1
		for i := range c.nodes {
			if nd := c.node(i); nd != nil && nd.Queue() != nil {
				li = i
			}
		}
		victim := li
		if victim < 0 || rng.Intn(4) == 0 {
			victim = rng.Intn(len(c.nodes))
		}
		n++
		if rng.Intn(3) == 0 {
			c.isolate(victim)
		} else {
			c.kill(victim)
		}
		select {
		case <-stop:
		case <-time.After(time.Duration(200+rng.Intn(600)) * time.Millisecond):
		}
		c.heal()
		c.start(victim, nil)
	}
}

func sameImage(a, b map[uint64]jobs.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for id, r := range a {
		o, ok := b[id]
		if !ok || string(o.Body) != string(r.Body) || o.State != r.State || o.Deadline != r.Deadline {
			return false
		}
	}
	return true
}

func pick(rng *rand.Rand, m map[uint64]string) uint64 {
	k := rng.Intn(len(m))
	for id := range m {
		if k == 0 {
			return id
		}
		k--
	}
	panic(errors.New("unreachable"))
}

func maxKey(m map[uint64]string) uint64 {
	var x uint64
	for k := range m {
		x = max(x, k)
	}
	return x
}

// TestClusterWipedNodesDoNotBootstrap: two of three nodes lose their disks
// and are restarted with their usual --raft-peers. They have no state, but
// the survivor answers their probe with its term: they must not bootstrap
// a second cluster (which, two of three, could elect a leader on an empty
// log and lose every job), and the survivor's jobs reach them.
func TestClusterWipedNodesDoNotBootstrap(t *testing.T) {
	c := newCluster(t, 3)
	var peers []Peer
	for _, tn := range c.nodes {
		peers = append(peers, Peer{ID: tn.id, Addr: string(tn.addr)})
	}
	li, q := c.leader()
	s := q.NewSession(nil)
	var ids []uint64
	for k := 0; k < 20; k++ {
		id, seq, err := s.Put(jobs.PutRequest{TTR: time.Minute, Owned: []byte(fmt.Sprintf("w%d", k))})
		require.NoError(t, err)
		require.NoError(t, waitCommitted(t, q, seq))
		ids = append(ids, id)
	}
	a, b := (li+1)%3, (li+2)%3
	enginetest.Eventually(t, "every node to hold the jobs", func() bool {
		return sameImage(c.image(li), c.image(a)) && sameImage(c.image(li), c.image(b))
	})
	c.kill(a)
	c.kill(b)
	c.wipe(a)
	c.wipe(b)
	var logs syncBuffer
	c.logs = &logs
	c.start(a, peers)
	c.start(b, peers)
	assert.NotContains(t, logs.String(), "cluster bootstrapped")
	assert.Contains(t, logs.String(), "not bootstrapping")
	enginetest.Eventually(t, "the wiped nodes to catch up", func() bool {
		return sameImage(c.image(li), c.image(a)) && sameImage(c.image(li), c.image(b))
	})
	_, q = c.leader()
	for _, id := range ids {
		_, err := q.StatsJob(id)
		assert.NoError(t, err, "job %d", id)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
