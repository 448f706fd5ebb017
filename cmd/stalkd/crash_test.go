package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestCrashRecovery builds stalkd, runs it with -b under concurrent
// producers and consumers, SIGKILLs it at a random moment, restarts it on
// the same directory and checks that every acknowledged put is there (with
// its body) unless its delete was acknowledged, that every acknowledged
// delete stays gone, and that ids never repeat. Several rounds, each killed
// at a different point, share the directory; they take turns at each fsync
// policy (-f0, the default -f 50, -F): a process crash loses nothing
// acknowledged at any of them, since every reply follows the write(2) of
// its records. Every 40th body is large (20 KB: written around the chunk,
// from the job's memory).
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	dir := crashDir(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	tr := newTracker()
	policies := [][]string{nil, {"-f", "50"}, {"-F"}}
	rounds := 9
	for round := range rounds {
		srv := startCrashServer(t, dir, policies[round%len(policies)]...)
		tr.verify(t, srv.Addr(), round)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for p := range 3 {
			wg.Add(1)
			go func() { defer wg.Done(); produce(srv.Addr(), tr, stop, fmt.Sprintf("r%d-p%d", round, p)) }()
		}
		for c := range 4 {
			wg.Add(1)
			go func() { defer wg.Done(); consume(srv.Addr(), tr, stop, uint64(round*10+c)) }()
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond) // let traffic run: the kill point
		srv.Kill()
		close(stop)
		wg.Wait()
	}
	srv := startCrashServer(t, dir)
	tr.verify(t, srv.Addr(), rounds)
	puts, deletes := tr.counts()
	t.Logf("%d rounds: %d acknowledged puts, %d acknowledged deletes, all accounted for; %s",
		rounds, puts, deletes, binlogStats(t, srv.Addr()))
	require.Positive(t, puts)
	require.Positive(t, deletes)
	srv.Kill()
}

// binlogStats returns the binlog lines of the stats document.
func binlogStats(t *testing.T, addr string) string {
	doc := enginetest.Dial(t, addr).Ask("stats\r\n").Body
	var out []string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "binlog-") {
			out = append(out, l)
		}
	}
	return strings.Join(out, ", ")
}

// crashDir prefers a memory-backed directory: a SIGKILL loses nothing
// written, so the disk's fsync latency would only slow the test down.
func crashDir(t *testing.T) string {
	if dir, err := os.MkdirTemp("/dev/shm", "stalkd-crash-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return t.TempDir()
}

// startCrashServer starts the built binary (not race-instrumented) on dir
// with -f0 and 64 KiB segments; extra flags follow (a later -f or -s wins).
func startCrashServer(t *testing.T, dir string, extra ...string) *enginetest.Proc {
	args := append([]string{"-l", "127.0.0.1", "-p", "0", "-b", dir, "-f", "0", "-s", "65536"}, extra...)
	return enginetest.StartProcess(t, args...)
}

// tracker records what the server acknowledged. A delete whose reply never
// came may or may not have happened: its job is uncertain.
type tracker struct {
	mu        sync.Mutex
	puts      map[uint64]string // acknowledged puts: id -> body
	deleted   map[uint64]bool   // acknowledged deletes
	uncertain map[uint64]bool   // a delete was sent, no reply seen
	maxID     uint64
	dupes     int // ids acknowledged for two different puts
}

func newTracker() *tracker {
	return &tracker{puts: map[uint64]string{}, deleted: map[uint64]bool{}, uncertain: map[uint64]bool{}}
}

func (tr *tracker) put(id uint64, body string) {
	tr.mu.Lock()
	if old, ok := tr.puts[id]; ok && old != body {
		tr.dupes++
	}
	tr.puts[id], tr.maxID = body, max(tr.maxID, id)
	tr.mu.Unlock()
}

func (tr *tracker) deleting(id uint64, done bool) {
	tr.mu.Lock()
	if done {
		tr.deleted[id] = true
		delete(tr.uncertain, id)
	} else {
		tr.uncertain[id] = true
	}
	tr.mu.Unlock()
}

func (tr *tracker) counts() (puts, deletes int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.puts), len(tr.deleted)
}

// verify checks the restarted server against everything acknowledged so far.
func (tr *tracker) verify(t *testing.T, addr string, round int) {
	c, err := dialBeanstalk(addr)
	require.NoError(t, err)
	defer c.close()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	require.Zero(t, tr.dupes, "round %d: ids acknowledged for two different puts", round)
	for id, body := range tr.puts {
		if tr.deleted[id] || tr.uncertain[id] {
			continue
		}
		line, got := c.ask(t, fmt.Sprintf("peek %d\r\n", id))
		require.Equal(t, "FOUND", strings.Fields(line)[0], "round %d: acknowledged put %d is lost", round, id)
		require.Equal(t, body, string(got), "round %d: job %d", round, id)
	}
	for id := range tr.deleted {
		line, _ := c.ask(t, fmt.Sprintf("peek %d\r\n", id))
		require.Equal(t, "NOT_FOUND", line, "round %d: acknowledged delete of %d came back", round, id)
	}
	line, _ := c.ask(t, "put 0 0 60 5\r\nprobe\r\n")
	id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
	require.NoError(t, err, line)
	require.Greater(t, id, tr.maxID, "round %d: ids never repeat", round)
	line, _ = c.ask(t, fmt.Sprintf("delete %d\r\n", id))
	require.Equal(t, "DELETED", line)
	tr.deleted[id] = true
}

// ask sends req until its reply is not INTERNAL_ERROR (what a command in
// flight gets when the leader changes, as it may on a loaded machine; the
// connection is carried on to the next leader), for at most 20 s.
func (b *beanstalkConn) ask(t *testing.T, req string) (string, []byte) {
	for try := 0; ; try++ {
		line, body, err := b.do(req)
		require.NoError(t, err)
		if line != "INTERNAL_ERROR" || try == 400 {
			return line, body
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func produce(addr string, tr *tracker, stop <-chan struct{}, name string) {
	c, err := dialBeanstalk(addr)
	if err != nil {
		return
	}
	defer c.close()
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
		line, _, err := c.do(fmt.Sprintf("put %d 0 60 %d\r\n%s\r\n", n%5, len(body), body))
		if err != nil {
			return // killed: this put is in doubt
		}
		id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
		if err != nil {
			return
		}
		tr.put(id, body)
	}
}

func consume(addr string, tr *tracker, stop <-chan struct{}, seed uint64) {
	c, err := dialBeanstalk(addr)
	if err != nil {
		return
	}
	defer c.close()
	rng := rand.New(rand.NewPCG(seed, 1))
	for {
		select {
		case <-stop:
			return
		default:
		}
		line, _, err := c.do("reserve-with-timeout 0\r\n")
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if f[0] != "RESERVED" {
			continue
		}
		id, _ := strconv.ParseUint(f[1], 10, 64)
		switch r := rng.IntN(10); {
		case r < 7:
			tr.deleting(id, false)
			line, _, err = c.do(fmt.Sprintf("delete %d\r\n", id))
			if err != nil {
				return
			}
			if line == "DELETED" {
				tr.deleting(id, true)
			}
		case r < 9:
			if _, _, err = c.do(fmt.Sprintf("release %d %d 0\r\n", id, rng.IntN(10))); err != nil {
				return
			}
		default:
			if _, _, err = c.do(fmt.Sprintf("bury %d 1\r\n", id)); err != nil {
				return
			}
		}
	}
}

// beanstalkConn is a minimal beanstalk client: one command, one reply.
type beanstalkConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialBeanstalk(addr string) (*beanstalkConn, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &beanstalkConn{c: c, r: bufio.NewReader(c)}, nil
}

func (b *beanstalkConn) close() { b.c.Close() }

// do sends req and returns the reply line (without CRLF) and the body that
// follows RESERVED, FOUND or OK.
func (b *beanstalkConn) do(req string) (string, []byte, error) {
	if err := b.c.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return "", nil, err
	}
	if _, err := io.WriteString(b.c, req); err != nil {
		return "", nil, err
	}
	r := enginetest.ReadReply(b.r)
	if r.Note != "" {
		return "", nil, errors.New(r.String())
	}
	return r.Head, r.Body, nil
}
