package codec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// feeder simulates a caller: it keeps the bytes Decode has not consumed, appends what
// arrives, and drops exactly n bytes after each call. It checks the decoder's contract on
// every call and records the commands with Name copied out of the (reused) input buffer.
type feeder struct {
	t       testing.TB
	d       *Decoder
	pending []byte
	cmds    []Command
}

func newFeeder(t testing.TB, maxJob uint32) *feeder {
	return &feeder{t: t, d: NewDecoder(maxJob)}
}

// feed delivers one chunk and decodes everything it completes. The per-call checks are
// plain comparisons (testify is reserved for failures) so megabyte bodies fed byte by byte
// stay fast.
func (f *feeder) feed(chunk []byte) {
	f.pending = append(f.pending, chunk...)
	for {
		cmd, n, ok := f.d.Decode(f.pending)
		if n < 0 || n > len(f.pending) {
			require.FailNow(f.t, "n out of range", "n=%d len(in)=%d", n, len(f.pending))
		}
		if ok {
			if n == 0 {
				require.FailNow(f.t, "a command must consume input")
			}
			f.cmds = append(f.cmds, checked(f.t, cmd))
		}
		// Drop the consumed bytes in place, as a ring or gnet buffer would: the bytes under
		// any Name view are gone from here on.
		f.pending = f.pending[:copy(f.pending, f.pending[n:])]
		if !ok {
			if len(f.pending) >= LineMax {
				require.FailNow(f.t, "decoder left a full line window unconsumed", "%d bytes", len(f.pending))
			}
			return
		}
	}
}

// checked asserts the per-command invariants and returns cmd with Name copied out of the
// input, as a caller must before dropping the consumed bytes.
func checked(t testing.TB, cmd Command) Command {
	if cmd.Err != nil {
		require.Contains(t, []error{ErrBadFormat, ErrUnknownCommand, ErrExpectedCRLF, ErrJobTooBig}, cmd.Err)
	}
	if cmd.Body != nil {
		require.Equal(t, OpPut, cmd.Op)
		require.Len(t, cmd.Body, int(cmd.Size))
		require.Equal(t, int(cmd.Size), cap(cmd.Body), "the data alone, exactly")
	}
	if cmd.Name != nil {
		cmd.Name = append([]byte(nil), cmd.Name...)
	}
	return cmd
}

// decodeChunks runs a fresh decoder over the chunks and returns the commands and the bytes
// left unconsumed at the end.
func decodeChunks(t testing.TB, maxJob uint32, chunks ...[]byte) ([]Command, []byte, bool) {
	f := newFeeder(t, maxJob)
	for _, c := range chunks {
		f.feed(c)
	}
	return f.cmds, f.pending, f.d.InBody()
}

// decodeAllWays decodes in whole, byte by byte, and split into two chunks at every offset,
// requires every way to give the same commands, the same leftover and the same InBody, and
// returns the commands.
func decodeAllWays(t *testing.T, maxJob uint32, in []byte) []Command {
	t.Helper()
	want, wantRest, wantBody := decodeChunks(t, maxJob, in)

	bytewise := make([][]byte, len(in))
	for i := range in {
		bytewise[i] = in[i : i+1]
	}
	got, rest, body := decodeChunks(t, maxJob, bytewise...)
	require.Equal(t, want, got, "byte by byte")
	require.Equal(t, wantRest, rest, "byte by byte: leftover")
	require.Equal(t, wantBody, body, "byte by byte: InBody")

	for i := 0; i <= len(in); i++ {
		got, rest, body := decodeChunks(t, maxJob, in[:i], in[i:])
		require.Equal(t, want, got, "split at %d", i)
		require.Equal(t, wantRest, rest, "split at %d: leftover", i)
		require.Equal(t, wantBody, body, "split at %d: InBody", i)
	}
	return want
}
