package codec

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// A large put holds memory in proportion to what has arrived, not to what
// it announced, and still ends as one exactly-sized body.
func TestLargeBodyGrowsAsItArrives(t *testing.T) {
	const size = 5<<20 + 7
	d := NewDecoder(8 << 20)
	line := []byte("put 0 0 1 " + strconv.Itoa(size) + "\r\n")
	c, n, ok := d.Decode(line)
	require.True(t, ok)
	require.Equal(t, OpPutHeader, c.Op)
	require.Equal(t, len(line), n)
	require.LessOrEqual(t, cap(d.body), eagerBody, "nothing has arrived yet")

	data := bytes.Repeat([]byte{'x'}, size)
	payload := append(data, '\r', '\n')
	for off := 0; ; {
		end := min(off+5000, len(payload))
		c, n, ok = d.Decode(payload[off:end])
		off += n
		if ok {
			break
		}
		require.LessOrEqual(t, cap(d.body), max(2*off, eagerBody), "at most twice what arrived")
	}
	require.Equal(t, OpPut, c.Op)
	require.NoError(t, c.Err)
	require.Len(t, c.Body, size)
	require.Equal(t, size, cap(c.Body), "the job keeps no slack, nor its CRLF")
	require.True(t, bytes.Equal(data, c.Body))
}

// A body of the default maximum size is allocated once, exactly.
func TestDefaultSizedBodyAllocatedOnce(t *testing.T) {
	d := NewDecoder(65535)
	in := append([]byte("put 0 0 1 65535\r\n"), bytes.Repeat([]byte{'y'}, 65535)...)
	in = append(in, '\r', '\n')
	var c Command
	allocs := testing.AllocsPerRun(50, func() {
		var n int
		c, n, _ = d.Decode(in)
		c, _, _ = d.Decode(in[n:])
	})
	require.Equal(t, OpPut, c.Op)
	require.Len(t, c.Body, 65535)
	require.Equal(t, 65535, cap(c.Body), "not 65537: that would spill into a ninth 8 KiB page")
	require.Equal(t, 1.0, allocs)
}
