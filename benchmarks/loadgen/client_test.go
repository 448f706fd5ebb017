package loadgen

import (
	"bytes"
	"io"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scripted returns a Conn whose server side sends replies and records what
// the client wrote.
func scripted(t *testing.T, replies string, bufSize int) (*Conn, *bytes.Buffer) {
	t.Helper()
	cli, srv := net.Pipe()
	var got bytes.Buffer
	go func() { io.Copy(&got, srv) }()
	go func() { srv.Write([]byte(replies)) }()
	t.Cleanup(func() { cli.Close(); srv.Close() })
	return NewConn(cli, bufSize), &got
}

func TestReadReplyKinds(t *testing.T) {
	c, _ := scripted(t, "INSERTED 7\r\nRESERVED 9 3\r\nabc\r\nDELETED\r\nTIMED_OUT\r\nUSING bench.0\r\n"+
		"WATCHING 2\r\nBURIED 4\r\nNOT_FOUND\r\nOK 4\r\n---\n\r\nFOUND 5 0\r\n\r\nDEADLINE_SOON\r\nBAD_FORMAT\r\n", 0)
	want := []struct {
		kind Kind
		id   uint64
		body string
	}{
		{KindInserted, 7, ""}, {KindReserved, 9, "abc"}, {KindDeleted, 0, ""}, {KindTimedOut, 0, ""},
		{KindUsing, 0, ""}, {KindWatching, 2, ""}, {KindBuried, 4, ""}, {KindNotFound, 0, ""},
		{KindOK, 0, "---\n"}, {KindFound, 5, ""}, {KindDeadlineSoon, 0, ""}, {KindOther, 0, ""},
	}
	for _, w := range want {
		r, err := c.ReadReply()
		require.NoError(t, err, w.kind.String())
		assert.Equal(t, w.kind, r.Kind)
		assert.Equal(t, w.id, r.ID, w.kind.String())
		assert.Equal(t, w.body, string(r.Body), w.kind.String())
	}
}

func TestReadReplyErrorKeepsLine(t *testing.T) {
	c, _ := scripted(t, "OUT_OF_MEMORY\r\n", 0)
	r, err := c.ReadReply()
	require.NoError(t, err)
	assert.Equal(t, KindOther, r.Kind)
	assert.Equal(t, "OUT_OF_MEMORY", string(r.Line))
}

func TestReadReplyBodyLargerThanBuffer(t *testing.T) {
	body := bytes.Repeat([]byte("z"), 40_000)
	c, _ := scripted(t, "RESERVED 1 40000\r\n"+string(body)+"\r\nDELETED\r\n", 64)
	r, err := c.ReadReply()
	require.NoError(t, err)
	assert.Equal(t, body, r.Body)
	r, err = c.ReadReply()
	require.NoError(t, err)
	assert.Equal(t, KindDeleted, r.Kind)
}

func TestReadReplyMalformed(t *testing.T) {
	for _, bad := range []string{"INSERTED x\r\n", "RESERVED 1\r\n", "INSERTED 1\n", "RESERVED 1 3\r\nabcXY"} {
		c, _ := scripted(t, bad, 0)
		_, err := c.ReadReply()
		assert.ErrorIs(t, err, ErrProtocol, "%q", bad)
	}
}

func TestWriteCommands(t *testing.T) {
	cli, srv := net.Pipe()
	defer srv.Close()
	c := NewConn(cli, 0)
	c.WritePut([]byte("hello"))
	c.WriteReserve(0)
	c.WriteReserve(-1)
	c.WriteDelete(42)
	c.WriteCommand("use t")
	go func() { c.Flush(); cli.Close() }()
	got, err := io.ReadAll(srv)
	require.NoError(t, err)
	assert.Equal(t, "put 1024 0 60 5\r\nhello\r\nreserve-with-timeout 0\r\nreserve\r\ndelete 42\r\nuse t\r\n", string(got))
}

// exercise runs put, reserve, delete and a tube switch through c.
func exercise(t *testing.T, c *Conn) {
	t.Helper()
	_, err := c.Expect("use bench.t", KindUsing)
	require.NoError(t, err)
	_, err = c.Expect("watch bench.t", KindWatching)
	require.NoError(t, err)
	body := make([]byte, 100)
	putStamp(body, 12345)
	require.NoError(t, c.WritePut(body))
	require.NoError(t, c.Flush())
	r, err := c.ReadReply()
	require.NoError(t, err)
	require.Equal(t, KindInserted, r.Kind, string(r.Line))
	id := r.ID
	require.NoError(t, c.WriteReserve(0))
	require.NoError(t, c.Flush())
	r, err = c.ReadReply()
	require.NoError(t, err)
	require.Equal(t, KindReserved, r.Kind)
	assert.Len(t, r.Body, 100)
	require.NoError(t, c.WriteDelete(r.ID))
	require.NoError(t, c.Flush())
	r, err = c.ReadReply()
	require.NoError(t, err)
	assert.Equal(t, KindDeleted, r.Kind)
	assert.NotZero(t, id)
}

func TestClientAgainstEcho(t *testing.T) {
	exercise(t, dialT(t, startEcho(t).Addr()))
}

func TestClientAgainstReference(t *testing.T) {
	srv := startReference(t)
	c := dialT(t, srv.Addr)
	exercise(t, c)
	r, err := c.Do("reserve-with-timeout 0")
	require.NoError(t, err)
	assert.Equal(t, KindTimedOut, r.Kind, "the reserved job was deleted")
	n, err := tubeJobs(c, "bench.t")
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestClientPutAllocatesNothing(t *testing.T) {
	c := NewConn(discardConn{}, 0)
	body := make([]byte, 100)
	allocs := testing.AllocsPerRun(100, func() {
		c.WritePut(body)
		c.WriteReserve(0)
		c.WriteDelete(123456)
		c.Flush()
	})
	assert.Zero(t, allocs)
}

// discardConn is a net.Conn that swallows writes.
type discardConn struct{ net.Conn }

func (discardConn) Write(p []byte) (int, error) { return len(p), nil }

// loopConn is a net.Conn whose reads repeat one script forever and whose
// writes vanish: the client's own cost, without a kernel.
type loopConn struct {
	net.Conn
	script []byte
	off    int
}

func (c *loopConn) Write(p []byte) (int, error) { return len(p), nil }

func (c *loopConn) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.script[c.off:])
		n += k
		c.off = (c.off + k) % len(c.script)
	}
	return n, nil
}

// BenchmarkClientPutRoundTrip is the client's cost of one put: the command
// written and an INSERTED parsed. It must not allocate.
func BenchmarkClientPutRoundTrip(b *testing.B) {
	c := NewConn(&loopConn{script: []byte("INSERTED 123456\r\n")}, 0)
	body := make([]byte, 100)
	b.ReportAllocs()
	for b.Loop() {
		c.WritePut(body)
		c.Flush()
		if _, err := c.ReadReply(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClientReserveDelete is one reserve (100-byte body) and one delete.
func BenchmarkClientReserveDelete(b *testing.B) {
	c := NewConn(&loopConn{script: []byte("RESERVED 77 100\r\n" + string(make([]byte, 100)) + "\r\nDELETED\r\n")}, 0)
	b.ReportAllocs()
	for b.Loop() {
		c.WriteReserve(0)
		c.Flush()
		r, err := c.ReadReply()
		if err != nil {
			b.Fatal(err)
		}
		c.WriteDelete(r.ID)
		c.Flush()
		if _, err := c.ReadReply(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	h := NewHistogram()
	b.ReportAllocs()
	v := int64(1)
	for b.Loop() {
		h.Record(v)
		v = (v*7 + 13) & (1<<30 - 1)
	}
}
