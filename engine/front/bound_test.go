package front

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// A follower's front holds no more of a client's input than a single node
// does: a put announcing a huge body, and a line that never ends, stream
// through it to the leader's engine, which swallows them as a single node
// does, and the client gets what a single node sends.

// streamEnv sets how many bytes TestFollowerStreamsUnboundedInput sends per
// case (default 64 MiB, sixteen times a -z of 4 MiB; e.g.
// STALKD_FRONT_STREAM=1G for a long run).
const streamEnv = "STALKD_FRONT_STREAM"

// streamSize reads streamEnv: a number of bytes, with an optional K, M or G.
func streamSize(t *testing.T) int64 {
	s := os.Getenv(streamEnv)
	if s == "" {
		return 64 << 20
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'K', 'k':
		mult, s = 1<<10, s[:len(s)-1]
	case 'M', 'm':
		mult, s = 1<<20, s[:len(s)-1]
	case 'G', 'g':
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err, "%s=%q", streamEnv, os.Getenv(streamEnv))
	require.Greater(t, n*mult, int64(4<<20), "%s: at least 4 MiB", streamEnv)
	return n * mult
}

// liveHeap collects garbage and returns the bytes still allocated: what the
// process holds.
func liveHeap() (alloc, sys uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.HeapSys
}

// sendJunk writes n bytes of b (no CR, no LF) to c, a buffer at a time, and
// calls at every quarter of the way.
func sendJunk(t *testing.T, c net.Conn, n int64, b byte, at func(sent int64)) {
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = b
	}
	next := n / 4
	for sent := int64(0); sent < n; {
		k := int(min(int64(len(buf)), n-sent))
		_ = c.SetWriteDeadline(time.Now().Add(enginetest.Timeout))
		_, err := c.Write(buf[:k])
		require.NoError(t, err, "after %d bytes", sent)
		if sent += int64(k); sent >= next && sent < n {
			at(sent)
			next += n / 4
		}
	}
}

// TestFollowerStreamsUnboundedInput: a follower's front receives a put
// announcing 1 GiB (too big for -z: the engine swallows size+2 bytes, then
// answers JOB_TOO_BIG) and then a line of 1 GiB without CRLF (BAD_FORMAT
// once it ends). Neither is held: at every quarter of the stream the live
// heap is within a few MiB of what it was before, and the heap never grew
// by anything near the stream. Meanwhile another client of the front is
// served, and afterwards the leader's counters are a single node's.
func TestFollowerStreamsUnboundedInput(t *testing.T) {
	size := streamSize(t)
	leader := startLeader(t)
	f := startFront(t, 10*time.Second, fixedLeader(leader.Addr().String()))
	other := enginetest.Dial(t, f.Addr().String())
	other.Do("use side\r\n", "USING side\r\n")
	c := enginetest.Dial(t, f.Addr().String())
	c.Do("list-tube-used\r\n", "USING default\r\n") // the carry is set up

	base, baseSys := liveHeap()
	var most uint64
	puts := 0 // the other client's
	check := func(what string) func(int64) {
		return func(sent int64) {
			held, _ := liveHeap()
			most = max(most, held)
			require.Less(t, int64(held)-int64(base), int64(8<<20),
				"%s: %d MiB sent, the live heap grew from %d to %d bytes", what, sent>>20, base, held)
			// Other connections are served meanwhile.
			puts++
			other.Do("put 0 0 60 2\r\nhi\r\n", "INSERTED "+strconv.Itoa(puts)+"\r\n")
		}
	}
	c.Send(fmt.Sprintf("put 0 0 60 %d\r\n", size))
	sendJunk(t, c.NetConn(), size, 'z', check("a too-big put body"))
	c.Send("\r\n")
	c.Expect("JOB_TOO_BIG\r\n")

	sendJunk(t, c.NetConn(), size, 'x', check("an endless line"))
	c.Do("\r\nlist-tube-used\r\n", "BAD_FORMAT\r\nUSING default\r\n")

	_, sys := liveHeap()
	t.Logf("%d MiB of each streamed; live heap %d KiB before, at most %d KiB during; heap from the OS %d -> %d KiB",
		size>>20, base>>10, most>>10, baseSys>>10, sys>>10)
	assert.Less(t, int64(sys)-int64(baseSys), int64(64<<20), "the heap taken from the system")

	// The leader counted the big put as a single node does (cmd-put), made
	// no job of it, and still serves this connection.
	onLeader := enginetest.Dial(t, leader.Addr().String())
	st := onLeader.Stats("stats")
	require.Equal(t, 6, puts, "three checks per stream")
	assert.Equal(t, strconv.Itoa(puts+1), st["cmd-put"], "the big put and the other client's")
	assert.Equal(t, strconv.Itoa(puts), st["total-jobs"], "no job made of the big put")
	c.Do("put 0 0 60 2\r\nok\r\n", "INSERTED "+strconv.Itoa(puts+1)+"\r\n")
}
