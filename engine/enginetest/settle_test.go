package enginetest

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rxQueue is what the kernel holds for the client to read on c.
func rxQueue(t *testing.T, c net.Conn) int64 {
	s, err := findSocket(c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr))
	require.NoError(t, err)
	require.NotNil(t, s)
	return s.rxQueue
}

// Once Settle returns, the reply to what was sent is already in the client's
// receive queue, and a partial command has none: no time window involved.
func TestSettleAgainstReference(t *testing.T) {
	p := Reference(t)
	c := Dial(t, p.Addr())
	for range 20 {
		c.Send("list-tube-")
		require.NoError(t, Settle(c.NetConn(), p.Pid()))
		assert.Zero(t, rxQueue(t, c.NetConn()), "a partial command has no reply")
		c.Send("used\r\nuse t\r\n")
		require.NoError(t, Settle(c.NetConn(), p.Pid()))
		assert.EqualValues(t, len("USING default\r\nUSING t\r\n"), rxQueue(t, c.NetConn()))
		c.Expect("USING default\r\nUSING t\r\n")
		c.Do("use default\r\n", "USING default\r\n")
	}
	assert.Equal(t, "1", c.Stats()["total-connections"], "Reference opens no probe connection")
}

func TestReplyRoundTrip(t *testing.T) {
	in := "INSERTED 1\r\nOK 3\r\nabc\r\nFOUND 1 0\r\n\r\nRESERVED 7 4\r\na\r\nb\r\n"
	rs, eof := ParseReplies(in + "<EOF>")
	assert.True(t, eof)
	assert.Len(t, rs, 4)
	assert.Equal(t, in, Render(rs))
	assert.Equal(t, []string{"INSERTED 1\r\n", "OK 3\r\nabc\r\n", "FOUND 1 0\r\n\r\n", "RESERVED 7 4\r\na\r\nb\r\n", "USI"},
		SplitReplies(in+"USI"))
	m, ok := ParseYAML([]byte("---\nname: default\ncurrent-jobs-ready: 0\n"))
	assert.True(t, ok)
	assert.Equal(t, map[string]string{"name": "default", "current-jobs-ready": "0"}, m)
}
