package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// pipeline is a batch of non-put commands as a client would pipeline them, and what they
// decode to.
func pipeline() ([]byte, []Command) {
	var buf bytes.Buffer
	var want []Command
	add := func(line string, c Command) {
		buf.WriteString(line + "\r\n")
		want = append(want, c)
	}
	add("use tube-1", named(OpUse, "tube-1"))
	add("watch tube-2", named(OpWatch, "tube-2"))
	add("ignore default", named(OpIgnore, "default"))
	add("reserve-with-timeout 5", rwt(5))
	add("reserve", op(OpReserve))
	add("reserve-job 12", withID(OpReserveJob, 12))
	add("peek 1", withID(OpPeek, 1))
	add("peek-ready", op(OpPeekReady))
	add("peek-delayed", op(OpPeekDelayed))
	add("peek-buried", op(OpPeekBuried))
	add("delete 123456789", withID(OpDelete, 123456789))
	add("release 7 1024 0", release(7, 1024, 0))
	add("bury 8 10", bury(8, 10))
	add("touch 9", withID(OpTouch, 9))
	add("kick 100", kick(100))
	add("kick-job 10", withID(OpKickJob, 10))
	add("stats-job 11", withID(OpStatsJob, 11))
	add("stats-tube tube-1", named(OpStatsTube, "tube-1"))
	add("stats", op(OpStats))
	add("list-tubes", op(OpListTubes))
	add("list-tube-used", op(OpListTubeUsed))
	add("list-tubes-watched", op(OpListTubesWatched))
	add("pause-tube tube-1 30", pause("tube-1", 30))
	add("bogus", unknown)
	add("peek x", bad(OpPeek))
	add("quit", op(OpQuit))
	return buf.Bytes(), want
}

func TestDecodePipelined(t *testing.T) {
	in, want := pipeline()
	// Mix in puts so the states alternate.
	in = append(in, "put 5 0 60 3\r\nabc\r\nput 0 0 0 0\r\n\r\nstats\r\n"...)
	want = append(want, putHdr(5, 0, 60, 3), putBody(5, 0, 60, "abc"), putHdr(0, 0, 0, 0), putBody(0, 0, 0, ""), op(OpStats))
	require.Equal(t, want, decodeAllWays(t, defMax, in))
}

func TestDecodePipelinedMany(t *testing.T) {
	one, want1 := pipeline()
	var in []byte
	var want []Command
	for range 200 {
		in = append(in, one...)
		want = append(want, want1...)
	}
	got, rest, _ := decodeChunks(t, defMax, in)
	require.Equal(t, want, got)
	require.Empty(t, rest)

	// Random chunk sizes give the same result.
	rng := rand.New(rand.NewPCG(1, 2))
	var chunks [][]byte
	for i := 0; i < len(in); {
		k := min(1+rng.IntN(300), len(in)-i)
		chunks = append(chunks, in[i:i+k])
		i += k
	}
	got, rest, _ = decodeChunks(t, defMax, chunks...)
	require.Equal(t, want, got)
	require.Empty(t, rest)
}

func TestDecodeLargeBody(t *testing.T) {
	const size = 1 << 20
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(rng.UintN(256)) // includes CR, LF and NUL
	}
	in := fmt.Appendf(nil, "put 1 2 3 %d\r\n", size)
	in = append(in, data...)
	in = append(in, "\r\nstats\r\n"...)
	want := []Command{putHdr(1, 2, 3, size), {Op: OpPut, Pri: 1, Delay: 2, TTR: 3, Size: size, Body: bytes.Clone(data)}, op(OpStats)}

	for _, piece := range []int{1, 4096} {
		t.Run(fmt.Sprint(piece), func(t *testing.T) {
			f := newFeeder(t, size)
			for i := 0; i < len(in); i += piece {
				f.feed(in[i:min(i+piece, len(in))])
				if len(f.cmds) == 1 && (!f.d.InBody() || len(f.pending) != 0) {
					require.FailNow(t, "body bytes must be absorbed while the body is pending")
				}
			}
			require.Equal(t, want, f.cmds)
			require.Empty(t, f.pending)
			require.False(t, f.d.InBody())
		})
	}
	// A body larger than the maximum is swallowed the same way, piece by piece.
	t.Run("too big", func(t *testing.T) {
		f := newFeeder(t, size-1)
		for i := 0; i < len(in); i += 4096 {
			f.feed(in[i:min(i+4096, len(in))])
			if f.d.InBody() {
				require.FailNow(t, "a swallowed body is not a pending body")
			}
		}
		require.Equal(t, []Command{tooBig(1, 2, 3, size), jobTooBig, op(OpStats)}, f.cmds)
	})
}

// Decode copies body bytes as they come, so the caller may reuse its buffer at once.
func TestDecodeDoesNotRetainInput(t *testing.T) {
	d := NewDecoder(defMax)
	in := []byte("put 0 0 0 5\r\nhe")
	c, n, ok := d.Decode(in)
	require.True(t, ok)
	require.Equal(t, OpPutHeader, c.Op)
	require.Equal(t, 13, n)
	c, n, ok = d.Decode(in[13:])
	require.False(t, ok)
	require.Equal(t, 2, n)
	copy(in, "XXXXXXXXXXXXXXX") // the caller reuses its buffer
	c, n, ok = d.Decode([]byte("llo\r\nuse t\r\n"))
	require.True(t, ok)
	require.Equal(t, 5, n)
	require.Equal(t, "hello", string(c.Body))
}

// Name is a view into the input (zero copy), which is why it is only valid until the caller
// drops those bytes.
func TestDecodeNameIsAView(t *testing.T) {
	d := NewDecoder(defMax)
	in := []byte("watch abc\r\n")
	c, n, ok := d.Decode(in)
	require.True(t, ok)
	require.Equal(t, len(in), n)
	require.Equal(t, "abc", string(c.Name))
	require.Same(t, &in[6], &c.Name[0])
}

func TestDecodeInBodyAndReset(t *testing.T) {
	d := NewDecoder(10)
	require.False(t, d.InBody())
	c, n, ok := d.Decode([]byte("put 0 0 0 3\r\n"))
	require.True(t, ok)
	require.Equal(t, 13, n)
	require.Equal(t, putHdr(0, 0, 0, 3), c)
	require.True(t, d.InBody(), "a body is pending even before its first byte")
	_, n, ok = d.Decode([]byte("ab"))
	require.False(t, ok)
	require.Equal(t, 2, n)
	require.True(t, d.InBody())

	d.Reset()
	require.False(t, d.InBody())
	c, _, ok = d.Decode([]byte("stats\r\n"))
	require.True(t, ok)
	require.Equal(t, op(OpStats), c)

	// Reset also leaves the skip states, and keeps the maximum job size.
	_, _, ok = d.Decode([]byte("put 0 0 0 11\r\n"))
	require.True(t, ok)
	d.Reset()
	c, _, ok = d.Decode([]byte("put 0 0 0 11\r\n"))
	require.True(t, ok)
	require.True(t, c.TooBig)
	d.Reset()
	_, n, ok = d.Decode(bytes.Repeat([]byte("a"), LineMax))
	require.False(t, ok)
	require.Equal(t, LineMax, n)
	d.Reset()
	c, _, ok = d.Decode([]byte("stats\r\n"))
	require.True(t, ok)
	require.Equal(t, op(OpStats), c)
}

// Over-long input is consumed window by window; the caller is never left holding a full
// window, however the bytes arrive.
func TestDecodeBoundedBuffering(t *testing.T) {
	d := NewDecoder(defMax)
	in := bytes.Repeat([]byte("x"), 10*LineMax+17)
	c, n, ok := d.Decode(in)
	require.False(t, ok)
	require.Equal(t, Command{}, c)
	require.Equal(t, 10*LineMax, n)
	_, n, ok = d.Decode(in[10*LineMax:])
	require.False(t, ok)
	require.Zero(t, n)
	c, n, ok = d.Decode(append(in[10*LineMax:], "\r\nstats\r\n"...))
	require.True(t, ok)
	require.Equal(t, bad(OpNone), c)
	require.Equal(t, 19, n)
}

func TestDecodeEmptyInput(t *testing.T) {
	d := NewDecoder(defMax)
	c, n, ok := d.Decode(nil)
	require.False(t, ok)
	require.Zero(t, n)
	require.Equal(t, Command{}, c)
}

// A pipelined batch of non-put commands decodes without any allocation.
func TestDecodeAllocs(t *testing.T) {
	in, want := pipeline()
	d := NewDecoder(defMax)
	count := 0
	allocs := testing.AllocsPerRun(100, func() {
		count = 0
		for rest := in; ; {
			_, n, ok := d.Decode(rest)
			rest = rest[n:]
			if !ok {
				break
			}
			count++
		}
	})
	require.Equal(t, len(want), count)
	require.Zero(t, allocs)
}

// A put allocates exactly its body buffer.
func TestDecodePutAllocs(t *testing.T) {
	in := []byte("put 0 0 0 5\r\nhello\r\n")
	d := NewDecoder(defMax)
	allocs := testing.AllocsPerRun(100, func() {
		for rest := in; ; {
			_, n, ok := d.Decode(rest)
			rest = rest[n:]
			if !ok {
				break
			}
		}
	})
	require.Equal(t, 1.0, allocs)
}
