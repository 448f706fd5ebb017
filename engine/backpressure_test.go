package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/codec"
)

// stalled reports how many connections wait for their client to read.
func stalled(s *Server) int {
	s.reg.mu.Lock()
	defer s.reg.mu.Unlock()
	return len(s.reg.stalled)
}

// TestSlowReader: a client that pipelines without reading stops being
// served once its replies pile up, and is served again, in order, when it
// reads.
func TestSlowReader(t *testing.T) {
	const peeks, size = 400, 32 << 10
	s := startServer(t, func(c *Config) { c.SlowReaderLimit = 256 << 10 })
	c := dial(t, s)
	body := bytes.Repeat([]byte("b"), size)
	c.do(fmt.Sprintf("put 0 0 10 %d\r\n%s\r\n", size, body), "INSERTED 1\r\n")
	go func() { // the writes block once the server stops reading
		var req strings.Builder
		for i := 0; i < peeks; i++ {
			req.WriteString("peek 1\r\n")
		}
		req.WriteString("list-tube-used\r\n")
		_, _ = c.c.Write([]byte(req.String()))
	}()
	require.Eventually(t, func() bool { return stalled(s) == 1 }, ioTimeout, time.Millisecond)
	done := s.Queue().Stats().Cmds[codec.OpPeek]
	assert.Less(t, done, uint64(peeks), "a stalled connection's commands wait")

	want := fmt.Sprintf("FOUND 1 %d\r\n%s\r\n", size, body)
	for i := 0; i < peeks; i++ {
		c.expect(want)
	}
	c.expect("USING default\r\n")
	assert.Equal(t, uint64(peeks), s.Queue().Stats().Cmds[codec.OpPeek])
	require.Eventually(t, func() bool { return stalled(s) == 0 }, ioTimeout, time.Millisecond)
}

// expectClosed waits for the server to drop the connection (EOF, or a reset
// because it left input unread).
func (rc *rawConn) expectClosed() {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(ioTimeout)))
	_, err := io.Copy(io.Discard, rc.r)
	if err != nil {
		require.True(rc.t, errors.Is(err, syscall.ECONNRESET), "unexpected error %v", err)
	}
}

// TestInboundCapWhileReserving: a client blocked in reserve that keeps
// sending is cut off past the inbound cap.
func TestInboundCapWhileReserving(t *testing.T) {
	s := startServer(t, func(c *Config) {
		c.MaxJobSize = 1000
		c.InboundLimit = 64 << 10
	})
	c := dial(t, s)
	c.send("reserve\r\n")
	require.Eventually(t, func() bool { return s.Queue().Stats().Waiting == 1 }, ioTimeout, time.Millisecond)
	go func() {
		junk := []byte(strings.Repeat("list-tube-used\r\n", 1<<10))
		for i := 0; i < 64; i++ {
			if _, err := c.c.Write(junk); err != nil {
				return
			}
		}
	}()
	c.expectClosed()
	require.Eventually(t, func() bool { return s.reg.count() == 0 }, ioTimeout, time.Millisecond)
	assert.Zero(t, s.Queue().Stats().Waiting)
}
