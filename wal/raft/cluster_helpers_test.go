package raft

import (
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// testTiming is raft's clock in the in-process tests: fast, with room for
// a loaded 2-core box under -race.
var testTiming = Timing{
	Heartbeat:   150 * time.Millisecond,
	Election:    150 * time.Millisecond,
	LeaderLease: 75 * time.Millisecond,
	Commit:      5 * time.Millisecond,
}

// tcluster is a cluster of Nodes in one process on raft's in-memory
// transport and stores. A killed node keeps its stores (its disk) and is
// restarted on them; links can be cut in both directions (partitions).
type tcluster struct {
	t     *testing.T
	mu    sync.Mutex
	nodes []*tnode
	cut   map[[2]int]bool
	logs  io.Writer // also receives every node's log, when set
}

type tnode struct {
	id    string
	addr  hraft.ServerAddress
	trans *hraft.InmemTransport
	store *hraft.InmemStore
	snaps *memSnapshots
	clock jobs.Clock // nil: the system clock
	n     *Node      // nil while killed
}

func newCluster(t *testing.T, size int) *tcluster {
	return newClusterClocks(t, make([]jobs.Clock, size))
}

// newClusterClocks starts a cluster whose node i runs on clocks[i] (nil:
// the system clock).
func newClusterClocks(t *testing.T, clocks []jobs.Clock) *tcluster {
	size := len(clocks)
	c := &tcluster{t: t, cut: map[[2]int]bool{}}
	var peers []Peer
	for i := 0; i < size; i++ {
		tn := &tnode{id: fmt.Sprintf("n%d", i), addr: hraft.ServerAddress(fmt.Sprintf("addr%d", i)),
			store: hraft.NewInmemStore(), snaps: newMemSnapshots(), clock: clocks[i]}
		c.nodes = append(c.nodes, tn)
		peers = append(peers, Peer{ID: tn.id, Addr: string(tn.addr)})
	}
	for i := range c.nodes {
		c.start(i, peers)
	}
	t.Cleanup(func() {
		for i := range c.nodes {
			c.kill(i)
		}
	})
	return c
}

func testLogger() zerolog.Logger {
	if os.Getenv("RAFT_TEST_LOG") != "" {
		return zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).Level(zerolog.DebugLevel).With().Timestamp().Logger()
	}
	return zerolog.Nop()
}

// logger is testLogger, copied to c.logs when set.
func (c *tcluster) logger() zerolog.Logger {
	if c.logs == nil {
		return testLogger()
	}
	l := testLogger()
	if os.Getenv("RAFT_TEST_LOG") == "" {
		return zerolog.New(c.logs)
	}
	return l.Output(zerolog.MultiLevelWriter(zerolog.ConsoleWriter{Out: os.Stderr}, c.logs))
}

// start opens node i on its stores (peers only matter the first time).
func (c *tcluster) start(i int, peers []Peer) {
	c.mu.Lock()
	tn := c.nodes[i]
	if tn.n != nil {
		c.mu.Unlock()
		return
	}
	_, tn.trans = hraft.NewInmemTransportWithTimeout(tn.addr, time.Second)
	c.mu.Unlock()
	c.relink()
	n, err := Open(Config{
		ID: tn.id, Peers: peers, Transport: tn.trans,
		LogStore: tn.store, StableStore: tn.store, SnapshotStore: tn.snaps,
		Timing:            testTiming,
		SnapshotThreshold: 64, TrailingLogs: 16, SnapshotInterval: 100 * time.Millisecond,
		MaxBatchBytes: 4 << 10,
		Clock:         tn.clock,
		OnLeader: func(*jobs.Queue) (string, error) {
			return "client-" + tn.id, nil
		},
		Logger: c.logger().With().Str("node", tn.id).Logger(),
	})
	if err != nil {
		c.t.Fatalf("start %s: %v", tn.id, err)
	}
	c.mu.Lock()
	tn.n = n
	c.mu.Unlock()
}

// relink connects every pair of live transports whose link is not cut.
func (c *tcluster) relink() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, a := range c.nodes {
		for j, b := range c.nodes {
			if i == j || a.trans == nil || b.trans == nil {
				continue
			}
			if c.cut[[2]int{i, j}] {
				a.trans.Disconnect(b.addr)
			} else {
				a.trans.Connect(b.addr, b.trans)
			}
		}
	}
}

// kill stops node i abruptly: its links go first, then raft stops.
func (c *tcluster) kill(i int) {
	c.mu.Lock()
	tn := c.nodes[i]
	n := tn.n
	tn.n = nil
	if tn.trans != nil {
		tn.trans.DisconnectAll()
		for _, o := range c.nodes {
			if o.trans != nil && o != tn {
				o.trans.Disconnect(tn.addr)
			}
		}
	}
	tn.trans = nil
	c.mu.Unlock()
	if n != nil {
		_ = n.Close()
	}
}

// isolate cuts node i off from every other node; heal restores all links.
func (c *tcluster) isolate(i int) {
	c.mu.Lock()
	for j := range c.nodes {
		if j != i {
			c.cut[[2]int{i, j}], c.cut[[2]int{j, i}] = true, true
		}
	}
	c.mu.Unlock()
	c.relink()
}

func (c *tcluster) heal() {
	c.mu.Lock()
	c.cut = map[[2]int]bool{}
	c.mu.Unlock()
	c.relink()
}

func (c *tcluster) node(i int) *Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i].n
}

// leader returns a node that serves a queue (with a partition, possibly a
// stale leader: its changes never commit), waiting up to 20 s for one.
func (c *tcluster) leader() (int, *jobs.Queue) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		for i := range c.nodes {
			if n := c.node(i); n != nil {
				if q := n.Queue(); q != nil {
					return i, q
				}
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no leader within 20s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitCommitted waits until seq is committed or failed; a journal that
// does neither within 20 s is a bug.
func waitCommitted(t *testing.T, q *jobs.Queue, seq uint64) error {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		done, err := q.Committed(seq)
		if done {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("seq %d neither committed nor failed within 20s", seq)
		}
		time.Sleep(time.Millisecond)
	}
}

// image returns a copy of node i's replicated state: id -> tube/body/state.
func (c *tcluster) image(i int) map[uint64]jobs.Record {
	n := c.node(i)
	out := map[uint64]jobs.Record{}
	_ = n.fsm.withState(func(s *state) error {
		for id, r := range s.jobs {
			out[id] = *r
		}
		return nil
	})
	return out
}

// addNode makes a new node with empty stores, not started.
func (c *tcluster) addNode() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := len(c.nodes)
	c.nodes = append(c.nodes, &tnode{id: fmt.Sprintf("n%d", i), addr: hraft.ServerAddress(fmt.Sprintf("addr%d", i)),
		store: hraft.NewInmemStore(), snaps: newMemSnapshots()})
	return i
}

// wipe gives killed node i empty stores: it lost its disk.
func (c *tcluster) wipe(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tn := c.nodes[i]
	if tn.n != nil {
		c.t.Fatalf("wipe of a running node")
	}
	tn.store, tn.snaps = hraft.NewInmemStore(), newMemSnapshots()
}
