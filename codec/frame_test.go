package codec

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// frameCorpus is input that exercises every state and error of the decoder: a
// pipeline of every command, puts of several sizes (bodies holding CR, LF and
// NUL), a body without its CRLF, a too-big put, over-long lines around the
// window edge (a CRLF straddling it, a stray CR), a NUL byte, bad numbers.
func frameCorpus() map[string][]byte {
	pipe, _ := pipeline()
	long := strings.Repeat("a", LineMax-1)
	return map[string][]byte{
		"pipeline":     pipe,
		"puts":         []byte("put 1 2 3 5\r\nhe\r\no\r\nput 0 0 0 0\r\n\r\nput 9 9 9 3\r\n\x00\n\r\r\nstats\r\n"),
		"crlf missing": []byte("put 0 0 1 3\r\nabcdXpeek 1\r\nput 0 0 1 1\r\nx\n\r\nuse t\r\n"),
		"too big":      []byte("put 0 0 1 20\r\n" + strings.Repeat("z", 22) + "stats\r\nput 0 0 1 11 junk\r\nuse t\r\n"),
		"bad put":      []byte("put 0 0 1\r\nput -1 0 0 1\r\nput 0 0 0 1x\r\nput 1 1 1 99999999999\r\nlist-tubes\r\n"),
		"overlong":     []byte(long + "x\r\nuse a\r\n" + long + "\r\nuse b\r\n" + long + "\r" + "\nuse c\r\n"),
		"window edge":  []byte(strings.Repeat("b", LineMax-1) + "\r\nuse zz\r\n" + strings.Repeat("c", 3*LineMax) + "\r\r\nuse yy\r\n"),
		"nul":          []byte("use a\x00b\r\nstats\r\nbogus\r\nquitxyz\r\n"),
	}
}

// lockstep feeds the same chunks to a full decoder and a framing-only one,
// dropping what each consumes, and requires every call to give the same event
// (but for Body, which the framing decoder never has), the same consumed count
// and the same state after it. It returns the framing decoder's events.
func lockstep(t *testing.T, maxJob uint32, chunks ...[]byte) []Command {
	t.Helper()
	full, frame := NewDecoder(maxJob), NewFramingDecoder(maxJob)
	var pending []byte
	var got []Command
	for _, c := range chunks {
		pending = append(pending, c...)
		for {
			want, n, ok := full.Decode(pending)
			cmd, fn, fok := frame.Decode(pending)
			require.True(t, cmd.Body == nil, "a framing decoder keeps no body")
			if want.Op == OpPut && want.Err == nil {
				require.Len(t, want.Body, int(want.Size))
			}
			want.Body = nil
			require.Equal(t, want, cmd)
			require.Equal(t, n, fn, "consumed")
			require.Equal(t, ok, fok)
			require.Equal(t, full.InBody(), frame.InBody())
			require.Equal(t, full.BodyLeft(), frame.BodyLeft())
			require.Equal(t, full.Idle(), frame.Idle())
			if ok {
				got = append(got, checked(t, cmd))
			}
			pending = pending[:copy(pending, pending[n:])]
			if !ok {
				break
			}
		}
	}
	return got
}

// TestFramingMatchesDecoder: on every input of the corpus, whole, byte by byte
// and split at every offset, and at maximum job sizes around the bodies', the
// framing-only decoder gives the full decoder's events, consumed counts and
// states.
func TestFramingMatchesDecoder(t *testing.T) {
	for name, in := range frameCorpus() {
		for _, maxJob := range []uint32{0, 3, 19, defMax} {
			t.Run(fmt.Sprintf("%s/max=%d", name, maxJob), func(t *testing.T) {
				whole := lockstep(t, maxJob, in)
				require.NotEmpty(t, whole)
				bytewise := make([][]byte, len(in))
				for i := range in {
					bytewise[i] = in[i : i+1]
				}
				require.Equal(t, whole, lockstep(t, maxJob, bytewise...), "byte by byte")
				for i := 0; i <= len(in); i++ {
					require.Equal(t, whole, lockstep(t, maxJob, in[:i], in[i:]), "split at %d", i)
				}
			})
		}
	}
}

// TestFramingLargeBody: a body larger than the decoder's eager allocation,
// with CRs and LFs in it, framed in pieces of several sizes.
func TestFramingLargeBody(t *testing.T) {
	const size = eagerBody + 4321
	body := bytes.Repeat([]byte("ab\r\ncd\n\r"), size/8+1)[:size]
	in := fmt.Appendf(nil, "put 1 2 3 %d\r\n%s\r\nstats\r\n", size, body)
	for _, piece := range []int{1000, 65536} {
		var chunks [][]byte
		for i := 0; i < len(in); i += piece {
			chunks = append(chunks, in[i:min(i+piece, len(in))])
		}
		got := lockstep(t, size, chunks...)
		require.Equal(t, []Command{putHdr(1, 2, 3, size), {Op: OpPut, Pri: 1, Delay: 2, TTR: 3, Size: size}, op(OpStats)}, got)
	}
}

// TestFramingAllocatesNothing: framing puts of every size, and everything
// else, allocates nothing at all (a full decoder allocates each body).
func TestFramingAllocatesNothing(t *testing.T) {
	pipe, _ := pipeline()
	var in []byte
	for _, size := range []int{0, 16, 1024, defMax} {
		in = fmt.Appendf(in, "put 0 0 60 %d\r\n%s\r\n", size, bytes.Repeat([]byte("x"), size))
	}
	in = append(in, "put 0 0 60 70000\r\n"...) // too big: swallowed
	in = append(in, make([]byte, 70002)...)
	in = append(in, pipe...)
	d := NewFramingDecoder(defMax)
	events := 0
	allocs := testing.AllocsPerRun(20, func() {
		events = 0
		for rest := in; ; {
			_, n, ok := d.Decode(rest)
			rest = rest[n:]
			if !ok {
				break
			}
			events++
		}
	})
	require.Equal(t, 4*2+2+26, events)
	require.Zero(t, allocs)
	require.True(t, d.Idle())
}

// TestFramingModeKept: Reset keeps the mode; DropBody swallows a pending body
// silently in either mode; BodyRooms gives a framing decoder no room.
func TestFramingModeKept(t *testing.T) {
	d := MakeFramingDecoder(defMax)
	require.True(t, d.FramingOnly())
	require.False(t, NewDecoder(defMax).FramingOnly())
	_, n, ok := d.Decode([]byte("put 0 0 1 5\r\nhel"))
	require.True(t, ok)
	require.Equal(t, 13, n)
	_, n, ok = d.Decode([]byte("hel"))
	require.False(t, ok)
	require.Equal(t, 3, n)
	require.True(t, d.InBody())
	room, trail := d.BodyRooms(10)
	require.Nil(t, room)
	require.Nil(t, trail)
	d.DropBody()
	cmd, n, ok := d.Decode([]byte("lo\r\nstats\r\n"))
	require.True(t, ok)
	require.Equal(t, 4+7, n, "the rest of the body, silently, then stats")
	require.Equal(t, op(OpStats), cmd)

	_, _, _ = d.Decode([]byte("put 0 0 1 5\r\n"))
	d.Reset()
	require.True(t, d.FramingOnly())
	require.True(t, d.Idle())
}

// BenchmarkFramePut frames put line plus body: no allocation, whatever the
// size (compare BenchmarkDecodePut).
func BenchmarkFramePut(b *testing.B) {
	for _, size := range []int{16, 1024, 65535} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			in := fmt.Appendf(nil, "put 1024 0 60 %d\r\n", size)
			in = append(in, bytes.Repeat([]byte("x"), size)...)
			in = append(in, "\r\n"...)
			d := NewFramingDecoder(defMax)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				decodeBatch(d, in)
			}
		})
	}
}
