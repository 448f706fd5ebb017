package enginetest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tracker records what a server acknowledged, for the tests that kill,
// partition or pause servers under load: every acknowledged put must be
// there with its body unless its delete was acknowledged, every
// acknowledged delete must stay gone, and no id may repeat. A delete whose
// reply never came may or may not have happened: its job is uncertain.
//
// Concurrency: safe for concurrent use.
type Tracker struct {
	mu        sync.Mutex
	puts      map[uint64]string // acknowledged puts: id -> body
	deleted   map[uint64]bool   // acknowledged deletes
	uncertain map[uint64]bool   // a delete was sent, no reply seen
	maxID     uint64
	dupes     int // ids acknowledged for two different puts
}

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker {
	return &Tracker{puts: map[uint64]string{}, deleted: map[uint64]bool{}, uncertain: map[uint64]bool{}}
}

// Put records an acknowledged put.
func (tr *Tracker) Put(id uint64, body string) {
	tr.mu.Lock()
	if old, ok := tr.puts[id]; ok && old != body {
		tr.dupes++
	}
	tr.puts[id], tr.maxID = body, max(tr.maxID, id)
	tr.mu.Unlock()
}

// Deleting records a delete sent (done false) or acknowledged (done true).
func (tr *Tracker) Deleting(id uint64, done bool) {
	tr.mu.Lock()
	if done {
		tr.deleted[id] = true
		delete(tr.uncertain, id)
	} else {
		tr.uncertain[id] = true
	}
	tr.mu.Unlock()
}

// Counts returns how many puts and deletes were acknowledged.
func (tr *Tracker) Counts() (puts, deletes int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.puts), len(tr.deleted)
}

// Verify checks the server at addr against everything acknowledged so far
// (round names the check in failures), then puts and deletes a probe job
// whose id must be above every id acknowledged.
func (tr *Tracker) Verify(t testing.TB, addr string, round int) {
	t.Helper()
	c, err := DialClient(addr)
	require.NoError(t, err)
	defer c.Close()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	require.Zero(t, tr.dupes, "round %d: ids acknowledged for two different puts", round)
	for id, body := range tr.puts {
		if tr.deleted[id] || tr.uncertain[id] {
			continue
		}
		line, got := c.Ask(t, fmt.Sprintf("peek %d\r\n", id))
		require.Equal(t, "FOUND", strings.Fields(line)[0], "round %d: acknowledged put %d is lost", round, id)
		require.Equal(t, body, string(got), "round %d: job %d", round, id)
	}
	for id := range tr.deleted {
		line, _ := c.Ask(t, fmt.Sprintf("peek %d\r\n", id))
		require.Equal(t, "NOT_FOUND", line, "round %d: acknowledged delete of %d came back", round, id)
	}
	line, _ := c.Ask(t, "put 0 0 60 5\r\nprobe\r\n")
	id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
	require.NoError(t, err, line)
	require.Greater(t, id, tr.maxID, "round %d: ids never repeat", round)
	line, _ = c.Ask(t, fmt.Sprintf("delete %d\r\n", id))
	require.Equal(t, "DELETED", line)
	tr.deleted[id] = true
}

// Produce puts jobs (bodies named name-N) through addr until stop is
// closed or the connection fails, recording each acknowledged put.
func Produce(addr string, tr *Tracker, stop <-chan struct{}, name string) {
	c, err := DialClient(addr)
	if err != nil {
		return
	}
	defer c.Close()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		pad := n % 200
		if n%40 == 39 {
			pad = 20_000 + n%1000 // large: the log writes it from the job's memory (writev)
		}
		body := fmt.Sprintf("%s-%d-%s", name, n, strings.Repeat("x", pad))
		line, _, err := c.Do(fmt.Sprintf("put %d 0 60 %d\r\n%s\r\n", n%5, len(body), body))
		if err != nil {
			return // killed: this put is in doubt
		}
		id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
		if err != nil {
			return
		}
		tr.Put(id, body)
	}
}

// Consume reserves jobs through addr until stop is closed or the
// connection fails, and deletes (recorded), releases or buries each, as
// seed's random sequence says.
func Consume(addr string, tr *Tracker, stop <-chan struct{}, seed uint64) {
	c, err := DialClient(addr)
	if err != nil {
		return
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(seed, 1))
	for {
		select {
		case <-stop:
			return
		default:
		}
		line, _, err := c.Do("reserve-with-timeout 0\r\n")
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if f[0] != "RESERVED" {
			continue
		}
		id, _ := strconv.ParseUint(f[1], 10, 64)
		if !finish(c, tr, rng, id) {
			return
		}
	}
}

// finish deletes, releases or buries the reserved job id; false when the
// connection failed.
func finish(c *Client, tr *Tracker, rng *rand.Rand, id uint64) bool {
	var err error
	switch r := rng.IntN(10); {
	case r < 7:
		tr.Deleting(id, false)
		var line string
		if line, _, err = c.Do(fmt.Sprintf("delete %d\r\n", id)); err == nil && line == "DELETED" {
			tr.Deleting(id, true)
		}
	case r < 9:
		_, _, err = c.Do(fmt.Sprintf("release %d %d 0\r\n", id, rng.IntN(10)))
	default:
		_, _, err = c.Do(fmt.Sprintf("bury %d 1\r\n", id))
	}
	return err == nil
}
