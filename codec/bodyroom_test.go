package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directDecode decodes in as a server that reads large bodies straight into
// the decoder's buffer does: the stream arrives in random pieces of up to
// maxPiece bytes; whenever everything received is consumed and a body is
// due, the next piece goes into BodyRoom and is reported with Absorb.
func directDecode(t *testing.T, r *rand.Rand, maxJob uint32, in []byte, maxPiece int) []Command {
	t.Helper()
	f := newFeeder(t, maxJob)
	for len(in) > 0 {
		k := min(1+r.IntN(maxPiece), len(in))
		if len(f.pending) == 0 && f.d.InBody() {
			left := f.d.BodyLeft()
			require.Positive(t, left)
			room := f.d.BodyRoom(min(k, left))
			require.NotEmpty(t, room)
			require.LessOrEqual(t, len(room), min(k, left))
			n := copy(room, in)
			in = in[n:]
			if cmd, ok := f.d.Absorb(n); ok {
				f.cmds = append(f.cmds, checked(t, cmd))
			}
			continue
		}
		f.feed(in[:k])
		in = in[k:]
	}
	return f.cmds
}

func TestBodyRoomAndAbsorbDecodeAsDecodeDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var in bytes.Buffer
	for _, size := range []int{0, 1, 100, 4096, 65535, eagerBody + 12345} {
		body := bytes.Repeat([]byte{'a' + byte(size%26)}, size)
		fmt.Fprintf(&in, "put 1 2 3 %d\r\n%s\r\nstats\r\n", size, body)
	}
	in.WriteString("put 0 0 1 5000\r\n" + string(bytes.Repeat([]byte("z"), 5000)) + "XYpeek 1\r\n") // no CRLF after the body
	const max = 2 << 20
	fmt.Fprintf(&in, "put 0 0 1 %d\r\n%s\r\nstats\r\n", max+1, bytes.Repeat([]byte("n"), max+1)) // too big: swallowed
	want, _, _ := decodeChunks(t, max, in.Bytes())
	// Header, body and stats per size; the bad put's header, its
	// EXPECTED_CRLF and peek; the too-big header, JOB_TOO_BIG and stats.
	require.Equal(t, 6*3+3+3, len(want))
	for _, piece := range []int{13, 1000, 70000} {
		got := directDecode(t, r, max, in.Bytes(), piece)
		require.Len(t, got, len(want), "pieces of up to %d bytes", piece)
		for i := range want {
			w, g := want[i], got[i]
			require.True(t, bytes.Equal(w.Body, g.Body), "pieces of up to %d bytes: command %d's body", piece, i)
			w.Body, g.Body = nil, nil
			require.Equal(t, w, g, "pieces of up to %d bytes: command %d", piece, i)
		}
	}
}

func TestBodyRoomOutsideABody(t *testing.T) {
	d := NewDecoder(100)
	assert.Zero(t, d.BodyLeft())
	assert.Nil(t, d.BodyRoom(10))
	_, ok := d.Absorb(3)
	assert.False(t, ok)

	_, n, ok := d.Decode([]byte("put 0 0 1 4\r\nab"))
	require.True(t, ok) // the header
	_, m, ok := d.Decode([]byte("put 0 0 1 4\r\nab")[n:])
	require.False(t, ok)
	require.Equal(t, 2, m)
	assert.Equal(t, 4, d.BodyLeft()) // "cd" and CRLF
	assert.Nil(t, d.BodyRoom(0))
	room := d.BodyRoom(100)
	require.Len(t, room, 4)
	assert.Panics(t, func() { d.Absorb(5) })
	copy(room, "cd\r\n")
	cmd, ok := d.Absorb(4)
	require.True(t, ok)
	assert.Equal(t, "abcd\r\n", string(cmd.Body))
	assert.True(t, d.Idle())
}
