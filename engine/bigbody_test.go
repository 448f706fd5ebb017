package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// Large bodies take two shortcuts (bodyread.go, sendJob in reply.go): the
// rest of a put body is read from the socket straight into the job, and a
// reply carrying a large body is written from the job with writev. These
// tests drive both over real TCP and check every byte and the order of the
// replies around them.

// bigBody returns n random printable bytes (no CR or LF).
func bigBody(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('!' + r.IntN(90))
	}
	return string(b)
}

// oneLoop runs the server on one event loop, as enginetest.Settle needs,
// and takes bodies of up to 1 MiB.
func oneLoop(c *Config) { c.EventLoops, c.MaxJobSize = 1, 1<<20 }

func TestLargePutBodyArrivingLaterIsReadIntoTheJob(t *testing.T) {
	s := startServer(t, oneLoop)
	rc := dial(t, s)
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{directBodyMin, 20000, 65535, 300000, 1<<20 - 1} {
		body := bigBody(r, size)
		for _, head := range []int{0, 1, 100, directBodyMin - 1} {
			// The put line and the first head bytes of the body, then a
			// pause in which the server consumes them and waits for the
			// rest: that rest is what the connection reads directly.
			rc.Send(fmt.Sprintf("put 0 0 60 %d\r\n%s", size, body[:head]))
			require.NoError(t, enginetest.Settle(rc.NetConn(), os.Getpid()))
			rc.Send(body[head:] + "\r\n")
			id := insertedID(t, rc.Reply())
			got := rc.Ask(fmt.Sprintf("peek %d\r\n", id))
			require.Equal(t, fmt.Sprintf("FOUND %d %d", id, size), got.Head)
			require.Equal(t, body, string(got.Body), "size %d, %d bytes first", size, head)
			rc.Do(fmt.Sprintf("delete %d\r\n", id), "DELETED\r\n")
		}
	}
}

func TestLargePutBodyReadDirectlyChecksItsCRLF(t *testing.T) {
	s := startServer(t, oneLoop)
	rc := dial(t, s)
	body := strings.Repeat("x", 3*directBodyMin)
	rc.Send(fmt.Sprintf("put 0 0 60 %d\r\n", len(body)))
	require.NoError(t, enginetest.Settle(rc.NetConn(), os.Getpid()))
	rc.Send(body + "XYput 0 0 60 2\r\nok\r\n")
	// The reference reads the two bytes after the body as its end and
	// answers EXPECTED_CRLF; the next line is read right after them.
	rc.Expect("EXPECTED_CRLF\r\n")
	id := insertedID(t, rc.Reply())
	got := rc.Ask(fmt.Sprintf("peek %d\r\n", id))
	assert.Equal(t, "ok", string(got.Body))
}

// The job keeps the data alone: the CRLF after a directly read body may
// arrive later, even byte by byte, and is checked all the same.
func TestLargePutBodyCRLFArrivingLater(t *testing.T) {
	s := startServer(t, oneLoop)
	rc := dial(t, s)
	body := strings.Repeat("y", 2*directBodyMin+3)
	for _, tail := range [][]string{{"\r\n"}, {"\r", "\n"}, {"\r", "X"}, {"X", "Y"}} {
		rc.Send(fmt.Sprintf("put 0 0 60 %d\r\n", len(body)))
		require.NoError(t, enginetest.Settle(rc.NetConn(), os.Getpid()))
		rc.Send(body) // read straight into the job
		require.NoError(t, enginetest.Settle(rc.NetConn(), os.Getpid()))
		for _, b := range tail {
			rc.Send(b)
			require.NoError(t, enginetest.Settle(rc.NetConn(), os.Getpid()))
		}
		if strings.Join(tail, "") != "\r\n" {
			rc.Expect("EXPECTED_CRLF\r\n")
			continue
		}
		id := insertedID(t, rc.Reply())
		got := rc.Ask(fmt.Sprintf("peek %d\r\n", id))
		require.Equal(t, fmt.Sprintf("FOUND %d %d", id, len(body)), got.Head)
		require.Equal(t, body, string(got.Body))
		rc.Do(fmt.Sprintf("delete %d\r\n", id), "DELETED\r\n")
	}
	rc.Do("put 0 0 60 2\r\nok\r\n", "INSERTED 5\r\n") // the two bytes ended the bad puts: no resync
}

func TestLargeRepliesKeepTheirPlaceAmongOthers(t *testing.T) {
	s := startServer(t, oneLoop)
	rc := dial(t, s)
	r := rand.New(rand.NewPCG(3, 4))
	big1, big2 := bigBody(r, 70000), bigBody(r, bigReply)
	small := "small"
	// Everything in one write: the replies of one callback mix bodies
	// written from the job (writev) with replies appended to the buffer.
	rc.Send(fmt.Sprintf("put 5 0 60 %d\r\n%s\r\nput 1 0 60 %d\r\n%s\r\nput 9 0 60 %d\r\n%s\r\n",
		len(big1), big1, len(small), small, len(big2), big2))
	id1, id2, id3 := insertedID(t, rc.Reply()), insertedID(t, rc.Reply()), insertedID(t, rc.Reply())
	rc.Send(fmt.Sprintf("reserve-with-timeout 0\r\npeek %d\r\nreserve-with-timeout 0\r\nstats-job %d\r\n"+
		"reserve-with-timeout 0\r\npeek %d\r\nreserve-with-timeout 0\r\n", id3, id1, id2))
	want := []struct {
		head string
		body string
	}{
		{fmt.Sprintf("RESERVED %d %d", id2, len(small)), small},
		{fmt.Sprintf("FOUND %d %d", id3, len(big2)), big2},
		{fmt.Sprintf("RESERVED %d %d", id1, len(big1)), big1},
		{"OK", ""}, // stats-job: checked below
		{fmt.Sprintf("RESERVED %d %d", id3, len(big2)), big2},
		{fmt.Sprintf("FOUND %d %d", id2, len(small)), small},
		{"TIMED_OUT", ""},
	}
	for i, w := range want {
		got := rc.Reply()
		if w.head == "OK" {
			require.True(t, strings.HasPrefix(got.Head, "OK "), "reply %d: %q", i, got.Head)
			assert.Contains(t, string(got.Body), "state: reserved")
			continue
		}
		require.Equal(t, w.head, got.Head, "reply %d", i)
		require.Equal(t, w.body, string(got.Body), "reply %d", i)
	}
}

// insertedID parses "INSERTED <id>".
func insertedID(t *testing.T, r enginetest.Reply) uint64 {
	t.Helper()
	var id uint64
	_, err := fmt.Sscanf(r.Head, "INSERTED %d", &id)
	require.NoError(t, err, "reply %q", r.Head)
	return id
}

func TestHugeAnnouncedBodyHoldsOnlyWhatArrived(t *testing.T) {
	s := startServer(t, func(c *Config) { c.EventLoops, c.MaxJobSize = 1, 1<<30 })
	rc := dial(t, s)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// 512 MiB announced, 2 MiB sent, in pieces the server reads directly.
	rc.Send("put 0 0 60 536870912\r\n")
	piece := strings.Repeat("y", 64<<10)
	for range 32 {
		rc.Send(piece)
		require.NoError(t, enginetest.Settle(rc.NetConn(), os.Getpid()))
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	assert.Less(t, grew, int64(64<<20), "the heap grew by %d bytes for 2 MiB received", grew)
}
