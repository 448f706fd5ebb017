package front

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/codec"
)

// chunkConn is a client whose reads return the chunks in turn (a chunk
// larger than the reader's buffer over several reads), then io.EOF.
type chunkConn struct {
	net.Conn
	chunks [][]byte
}

func (c *chunkConn) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 && len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	return n, nil
}

// framedCmd is what the front must make of one command.
type framedCmd struct {
	raw     string
	op      codec.Op
	name    string
	replies int
}

// wantFrames frames in with a full decoder, as the front did before it had
// the framing-only mode: each command's bytes run from the end of the one
// before to the event that answers it (a put's line and body are one).
func wantFrames(maxJob uint32, in []byte) []framedCmd {
	d := codec.NewDecoder(maxJob)
	var out []framedCmd
	start, used := 0, 0
	for {
		cmd, n, ok := d.Decode(in[used:])
		used += n
		if !ok {
			return out
		}
		if cmd.Op == codec.OpPutHeader && cmd.Err == nil {
			continue
		}
		f := framedCmd{raw: string(in[start:used]), op: cmd.Op, replies: 1}
		if cmd.Err == nil {
			switch cmd.Op {
			case codec.OpUse, codec.OpWatch, codec.OpIgnore:
				f.name = string(cmd.Name)
			case codec.OpQuit:
				f.replies = 0
			}
		}
		out = append(out, f)
		start = used
		if f.op == codec.OpQuit && f.replies == 0 {
			return out
		}
	}
}

// readAll runs a cmdReader over the chunks, as readCommands does, and
// returns what it framed, the pieces of a long command joined into it. It
// reads each command's bytes only at the end, so a command that viewed the
// reader's buffer instead of owning its bytes (the next read overwrites it)
// shows up as wrong bytes. It checks the pieces' order (a first piece owed
// the reply, then pieces that go on with it, the last one closing it), and
// that the reader never holds more than its bound.
func readAll(t *testing.T, maxJob uint32, primed []byte, skip int, chunks ...[]byte) []framedCmd {
	t.Helper()
	out, _ := readPieces(t, maxJob, primed, skip, chunks...)
	return out
}

// readPieces is readAll that also returns how many pieces it joined.
func readPieces(t *testing.T, maxJob uint32, primed []byte, skip int, chunks ...[]byte) ([]framedCmd, int) {
	t.Helper()
	conn := &chunkConn{chunks: chunks}
	r := newCmdReader(maxJob, primed, skip)
	var got []carried
	for {
		batch, quit, err := r.next(conn)
		got = append(got, batch...)
		require.LessOrEqual(t, cap(r.pend), holdMax, "a held command")
		require.LessOrEqual(t, len(r.buf), maxReadBuf)
		if quit || err != nil {
			break
		}
	}
	var out []framedCmd
	pieces, open := 0, false
	for _, it := range got {
		require.Equal(t, open, it.cont, "a piece goes on with a command an earlier one left open")
		if it.cont {
			last := &out[len(out)-1]
			last.raw += string(it.raw)
			require.Zero(t, it.replies, "a later piece is owed nothing")
			pieces++
		} else {
			out = append(out, framedCmd{raw: string(it.raw), op: it.op, name: it.name, replies: it.replies})
		}
		open = it.open
	}
	return out, pieces
}

// sameFrames fails at the first frame that differs, saying how (bodies are
// too long to print).
func sameFrames(t *testing.T, want, got []framedCmd, how string, args ...any) {
	t.Helper()
	at := fmt.Sprintf(how, args...)
	for i := range min(len(want), len(got)) {
		w, g := want[i], got[i]
		if w.raw != g.raw {
			t.Fatalf("%s: frame %d: %d bytes %.40q..., want %d bytes %.40q...", at, i, len(g.raw), g.raw, len(w.raw), w.raw)
		}
		require.Equal(t, w, g, "%s: frame %d", at, i)
	}
	require.Equal(t, len(want), len(got), "%s: frames", at)
}

// frontStream is a client's input with every kind of frame: commands the
// front tracks, puts small and larger than a read buffer, a too-big put, a
// body without its CRLF, refused lines, an over-long line.
func frontStream() []byte {
	var b bytes.Buffer
	b.WriteString("use a\r\nwatch b\r\nignore default\r\nput 1 0 60 5\r\nhello\r\nbogus\r\n")
	fmt.Fprintf(&b, "put 0 0 60 %d\r\n%s\r\n", 3*minReadBuf, bytes.Repeat([]byte("x\r\n"), minReadBuf))
	b.WriteString("put 0 0 60 70000\r\n" + strings.Repeat("z", 70002)) // too big: swallowed, then JOB_TOO_BIG
	b.WriteString("put 0 0 60 3\r\nabcdefpeek 1\r\nput 0 0 x 1\r\nuse -x\r\n")
	b.WriteString(strings.Repeat("long", 100) + "\r\nstats\r\nauth tok\r\nquit\r\nnever framed\r\n")
	return b.Bytes()
}

// TestCmdReaderFramesAsTheDecoder: the front's framing-only reader gives
// each command the bytes, op, name and reply count a full decoder finds,
// however the input is split into reads.
func TestCmdReaderFramesAsTheDecoder(t *testing.T) {
	in := frontStream()
	const maxJob = 65535
	want := wantFrames(maxJob, in)
	require.Len(t, want, 15)
	require.Equal(t, codec.OpQuit, want[len(want)-1].op)

	sameFrames(t, want, readAll(t, maxJob, nil, 0, bytes.Clone(in)), "one chunk")
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		var chunks [][]byte
		for i := 0; i < len(in); {
			k := min(1+rng.IntN(3000), len(in)-i)
			chunks = append(chunks, bytes.Clone(in[i:i+k]))
			i += k
		}
		sameFrames(t, want, readAll(t, maxJob, nil, 0, chunks...), "random chunks")
	}
	head := in[:400] // the small commands: split at every offset
	wantHead := wantFrames(maxJob, head)
	for i := 0; i <= len(head); i++ {
		sameFrames(t, wantHead, readAll(t, maxJob, nil, 0, bytes.Clone(head[:i]), bytes.Clone(head[i:])), "split at %d", i)
	}
}

// TestCmdReaderPrimedAndSkip: a handed-back connection's unread input is
// framed first, and the end of a put the engine had begun is dropped,
// across the unread input and the reads that follow.
func TestCmdReaderPrimedAndSkip(t *testing.T) {
	tail := "lo\r\n"                         // the end of the engine's put
	rest := "put 0 0 1 2\r\nhi\r\nuse t\r\n" // what the front carries
	in := tail + rest
	want := wantFrames(0, []byte(rest))
	for i := 0; i <= len(in); i++ {
		got := readAll(t, 0, []byte(in[:i]), len(tail), []byte(in[i:]))
		sameFrames(t, want, got, "unread %d bytes", i)
	}
}

// TestCmdReaderNoAllocationPerBody: framing a read allocates the batch and
// one buffer for all of its commands' bytes, however many puts the read
// holds and however large their bodies - never a buffer per body (a full
// decoder allocates each).
func TestCmdReaderNoAllocationPerBody(t *testing.T) {
	for _, size := range []int{100, 60000} {
		for _, puts := range []int{1, 64} {
			in := bytes.Repeat(fmt.Appendf(nil, "put 0 0 60 %d\r\n%s\r\n", size, bytes.Repeat([]byte("b"), size)), puts)
			r := newCmdReader(65535, nil, 0)
			_, used, _ := r.frame(in) // the batch capacity settles
			require.Equal(t, len(in), used)
			var n int
			allocs := testing.AllocsPerRun(50, func() {
				batch, _, _ := r.frame(in)
				n = len(batch)
			})
			require.Equal(t, puts, n)
			require.LessOrEqual(t, allocs, 2.0, "%d puts of %d bytes in one read", puts, size)
		}
	}
}

// TestCmdReaderLargePutOneBuffer: a put whose body arrives over many reads
// costs one buffer of exactly its size (and the batch), not one per read.
func TestCmdReaderLargePutOneBuffer(t *testing.T) {
	const size = 60000
	in := fmt.Appendf(nil, "put 0 0 60 %d\r\n%s\r\n", size, bytes.Repeat([]byte("c"), size))
	r := newCmdReader(65535, nil, 0)
	var got []carried
	consumed := 0
	allocs := testing.AllocsPerRun(10, func() {
		consumed = 0
		for i := 0; i < len(in); i += 1000 {
			batch, used, _ := r.frame(in[i:min(i+1000, len(in))])
			consumed += used
			got = batch
		}
	})
	require.Equal(t, len(in), consumed, "a body is consumed as it arrives")
	require.Len(t, got, 1)
	require.True(t, bytes.Equal(in, got[0].raw), "the put's bytes")
	require.Equal(t, len(in), cap(got[0].raw))
	require.LessOrEqual(t, allocs, 2.0)
}

// BenchmarkCmdReaderFrame frames one read of 64 pipelined puts.
func BenchmarkCmdReaderFrame(b *testing.B) {
	for _, size := range []int{100, 4096} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			in := bytes.Repeat(fmt.Appendf(nil, "put 0 0 60 %d\r\n%s\r\n", size, bytes.Repeat([]byte("b"), size)), 64)
			r := newCmdReader(65535, nil, 0)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				r.frame(in)
			}
		})
	}
}

// TestCmdReaderStreamsLongCommands: a command longer than holdMax - a put
// of a larger accepted body, a too-big one, an over-long line - is framed
// as the decoder frames it but never held whole: it leaves in pieces, one
// per read, and a batch holds about a read's bytes, however the input is
// split.
func TestCmdReaderStreamsLongCommands(t *testing.T) {
	const maxJob = 1 << 20
	var b bytes.Buffer
	b.WriteString("use a\r\n")
	fmt.Fprintf(&b, "put 0 0 60 %d\r\n%s\r\n", 300000, bytes.Repeat([]byte("a\r\n"), 100000))     // accepted
	fmt.Fprintf(&b, "put 0 0 60 %d\r\n%s\r\n", 2*maxJob, bytes.Repeat([]byte("z"), 2*maxJob))     // too big
	b.WriteString(strings.Repeat("long", 100000) + "\r\n")                                        // over-long
	fmt.Fprintf(&b, "put 0 0 60 %d\r\n%sXY", 200000, bytes.Repeat([]byte("e"), 200000))           // EXPECTED_CRLF
	fmt.Fprintf(&b, "put 0 0 60 %d\r\n%s\r\n", holdMax-20, bytes.Repeat([]byte("h"), holdMax-20)) // over by a little
	b.WriteString("put 0 0 60 5\r\nsmall\r\nquit\r\n")
	in := b.Bytes()
	want := wantFrames(maxJob, in)
	require.Len(t, want, 8)

	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 6 {
		var chunks [][]byte
		for i := 0; i < len(in); {
			k := min(1+rng.IntN(90000), len(in)-i)
			if round == 0 {
				k = min(maxReadBuf, len(in)-i)
			}
			chunks = append(chunks, in[i:i+k])
			i += k
		}
		got, pieces := readPieces(t, maxJob, nil, 0, chunks...)
		sameFrames(t, want, got, "round %d", round)
		assert.Greater(t, pieces, len(in)/maxReadBuf/2, "the long commands left in pieces")
	}

	// What a batch holds: about one read, never a long command whole.
	r := newCmdReader(maxJob, nil, 0)
	conn := &chunkConn{chunks: [][]byte{in}}
	for {
		batch, quit, err := r.next(conn)
		size := 0
		for _, it := range batch {
			size += len(it.raw)
		}
		require.LessOrEqual(t, size, maxReadBuf+holdMax)
		if quit || err != nil {
			break
		}
	}
}
