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
// due, the next piece goes into BodyRooms and is reported with Absorb.
func directDecode(t *testing.T, r *rand.Rand, maxJob uint32, in []byte, maxPiece int) []Command {
	t.Helper()
	f := newFeeder(t, maxJob)
	for len(in) > 0 {
		k := min(1+r.IntN(maxPiece), len(in))
		if len(f.pending) == 0 && f.d.InBody() {
			left := f.d.BodyLeft()
			require.Positive(t, left)
			room, trail := f.d.BodyRooms(min(k, left))
			require.NotEmpty(t, room)
			require.LessOrEqual(t, len(room), min(k, left))
			n := copy(room, in)
			if n == len(room) && r.IntN(2) == 0 {
				n += copy(trail, in[n:]) // as readv fills both rooms
			}
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
	assert.Nil(t, dataRoom(d, 10))
	_, ok := d.Absorb(3)
	assert.False(t, ok)

	_, n, ok := d.Decode([]byte("put 0 0 1 4\r\nab"))
	require.True(t, ok) // the header
	_, m, ok := d.Decode([]byte("put 0 0 1 4\r\nab")[n:])
	require.False(t, ok)
	require.Equal(t, 2, m)
	assert.Equal(t, 4, d.BodyLeft()) // "cd" and CRLF
	assert.Nil(t, dataRoom(d, 0))
	room := dataRoom(d, 100)
	require.Len(t, room, 2, "the data's room only")
	assert.Panics(t, func() { d.Absorb(5) }) // past the data and its CRLF
	copy(room, "cd")
	_, ok = d.Absorb(2)
	require.False(t, ok, "the CRLF is still due")
	assert.Equal(t, 2, d.BodyLeft())
	room = dataRoom(d, 100)
	require.Len(t, room, 2, "the CRLF's room")
	assert.Panics(t, func() { d.Absorb(3) })
	room[0] = '\r'
	_, ok = d.Absorb(1)
	require.False(t, ok)
	assert.Equal(t, 1, d.BodyLeft())
	room = dataRoom(d, 100)
	require.Len(t, room, 1)
	room[0] = '\n'
	cmd, ok := d.Absorb(1)
	require.True(t, ok)
	assert.NoError(t, cmd.Err)
	assert.Equal(t, "abcd", string(cmd.Body))
	assert.Equal(t, 4, cap(cmd.Body))
	assert.True(t, d.Idle())
}

// The CRLF after a body may arrive split between BodyRooms and Decode, in
// any way; a wrong byte in it is EXPECTED_CRLF, and the next line starts
// right after the two bytes either way.
func TestBodyCRLFSplitAnyWay(t *testing.T) {
	for _, trailer := range []string{"\r\n", "\rX", "X\n", "\n\r", "XY"} {
		for direct := 0; direct <= 2; direct++ { // CRLF bytes through BodyRooms, the rest through Decode
			d := NewDecoder(100)
			in := []byte("put 0 0 1 3\r\n")
			_, n, ok := d.Decode(in)
			require.True(t, ok)
			require.Equal(t, len(in), n)
			copy(dataRoom(d, 3), "abc")
			_, ok = d.Absorb(3)
			require.False(t, ok)
			var cmd Command
			for i := 0; i < direct; i++ {
				room := dataRoom(d, 1)
				require.Len(t, room, 1)
				room[0] = trailer[i]
				cmd, ok = d.Absorb(1)
				require.Equal(t, i == 1, ok)
			}
			if direct < 2 {
				rest := trailer[direct:] + "stats\r\n"
				cmd, n, ok = d.Decode([]byte(rest))
				require.True(t, ok)
				require.Equal(t, 2-direct, n)
			}
			require.Equal(t, OpPut, cmd.Op)
			if trailer == "\r\n" {
				require.NoError(t, cmd.Err)
				require.Equal(t, "abc", string(cmd.Body))
			} else {
				require.Equal(t, ErrExpectedCRLF, cmd.Err, "%q", trailer)
				require.Nil(t, cmd.Body)
			}
			next, _, ok := d.Decode([]byte("stats\r\n"))
			require.True(t, ok)
			require.Equal(t, OpStats, next.Op, "no resync: the line after the two bytes")
		}
	}
}

func TestBodyRoomsTakeTheDataAndItsCRLFInOneRead(t *testing.T) {
	d := NewDecoder(100)
	_, n, ok := d.Decode([]byte("put 0 0 1 4\r\nab"))
	require.True(t, ok)
	_, _, ok = d.Decode([]byte("put 0 0 1 4\r\nab")[n:])
	require.False(t, ok)

	data, trail := d.BodyRooms(1)
	require.Len(t, data, 1)
	assert.Nil(t, trail, "the room does not reach the end of the data")
	data, trail = d.BodyRooms(100)
	require.Len(t, data, 2)
	require.Len(t, trail, 2, "the data ends in this room: the CRLF's room comes with it")
	copy(data, "cd")
	trail[0] = '\r'
	_, ok = d.Absorb(3) // the data and half the CRLF
	require.False(t, ok)
	assert.Equal(t, 1, d.BodyLeft())
	data, trail = d.BodyRooms(100)
	require.Len(t, data, 1)
	assert.Nil(t, trail)
	data[0] = '\n'
	cmd, ok := d.Absorb(1)
	require.True(t, ok)
	require.NoError(t, cmd.Err)
	assert.Equal(t, "abcd", string(cmd.Body))

	// A wrong trailer read together with the data is the same error Decode gives.
	_, n, ok = d.Decode([]byte("put 0 0 1 2\r\n"))
	require.True(t, ok)
	data, trail = d.BodyRooms(100)
	copy(data, "xy")
	copy(trail, "XY")
	cmd, ok = d.Absorb(4)
	require.True(t, ok)
	assert.ErrorIs(t, cmd.Err, ErrExpectedCRLF)
	assert.True(t, d.Idle())
}

// dataRoom is the first of BodyRooms' rooms.
func dataRoom(d *Decoder, max int) []byte {
	data, _ := d.BodyRooms(max)
	return data
}
