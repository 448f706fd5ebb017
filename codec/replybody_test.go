package codec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReplyBodySize(t *testing.T) {
	for line, want := range map[string]int{
		"RESERVED 7 5\r\n": 5, "FOUND 12 0\r\n": 0, "OK 123\r\n": 123, "OK 9": 9,
		"RESERVED 1 2147483647\r\n": 1<<31 - 1,
	} {
		n, ok := ReplyBodySize(line)
		assert.True(t, ok, "%q", line)
		assert.Equal(t, want, n, "%q", line)
		n, ok = ReplyBodySize([]byte(line))
		assert.True(t, ok, "%q as bytes", line)
		assert.Equal(t, want, n, "%q as bytes", line)
	}
	for _, line := range []string{
		"INSERTED 5\r\n", "USING OK\r\n", "OK\r\n", "OK \r\n", "OK -1\r\n", "OK 1 2\r\n", "RESERVED 5\r\n",
		"RESERVED 5 \r\n", "FOUND  3\r\n", "RESERVED 1 2147483648\r\n", "OK 12345678901\r\n", "ok 5\r\n", "",
	} {
		_, ok := ReplyBodySize(line)
		assert.False(t, ok, "%q", line)
	}
	// The encoders' replies frame as announced.
	for _, b := range [][]byte{AppendReservedHeader(nil, 3, 4), AppendFoundHeader(nil, 3, 4)} {
		n, ok := ReplyBodySize(b)
		assert.True(t, ok, "%q", b)
		assert.Equal(t, 4, n, "%q", b)
	}
	line := []byte("RESERVED 7 5\r\n")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = ReplyBodySize(line) }))
}
