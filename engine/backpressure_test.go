package engine

import (
	"bytes"
	"fmt"
	"strings"
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
	c.Do(fmt.Sprintf("put 0 0 10 %d\r\n%s\r\n", size, body), "INSERTED 1\r\n")
	go func() { // the writes block once the server stops reading
		var req strings.Builder
		for i := 0; i < peeks; i++ {
			req.WriteString("peek 1\r\n")
		}
		req.WriteString("list-tube-used\r\n")
		_, _ = c.NetConn().Write([]byte(req.String()))
	}()
	require.Eventually(t, func() bool { return stalled(s) == 1 }, ioTimeout, time.Millisecond)
	done := s.Queue().Stats().Cmds[codec.OpPeek]
	assert.Less(t, done, uint64(peeks), "a stalled connection's commands wait")

	want := fmt.Sprintf("FOUND 1 %d\r\n%s\r\n", size, body)
	for i := 0; i < peeks; i++ {
		c.Expect(want)
	}
	c.Expect("USING default\r\n")
	assert.Equal(t, uint64(peeks), s.Queue().Stats().Cmds[codec.OpPeek])
	require.Eventually(t, func() bool { return stalled(s) == 0 }, ioTimeout, time.Millisecond)
}

// TestInboundCapWhileReserving: a client blocked in reserve that keeps
// sending is cut off past the inbound cap.
func TestInboundCapWhileReserving(t *testing.T) {
	s := startServer(t, func(c *Config) {
		c.MaxJobSize = 1000
		c.InboundLimit = 64 << 10
	})
	c := dial(t, s)
	c.Send("reserve\r\n")
	require.Eventually(t, func() bool { return s.Queue().Stats().Waiting == 1 }, ioTimeout, time.Millisecond)
	go func() {
		junk := []byte(strings.Repeat("list-tube-used\r\n", 1<<10))
		for i := 0; i < 64; i++ {
			if _, err := c.NetConn().Write(junk); err != nil {
				return
			}
		}
	}()
	c.ExpectClosed()
	require.Eventually(t, func() bool { return s.reg.count() == 0 }, ioTimeout, time.Millisecond)
	assert.Zero(t, s.Queue().Stats().Waiting)
}

// TestHeldBudget: slow readers that keep sending are closed once the memory
// held for all of them passes the budget (or one of them passes its own
// inbound cap); the count goes back to zero when they are gone, and other
// clients are served throughout.
func TestHeldBudget(t *testing.T) {
	const size = 32 << 10
	s := startServer(t, func(c *Config) {
		c.SlowReaderLimit = 64 << 10
		c.StalledInboundLimit = 4 << 20
		c.HeldBudget = 1 << 20
	})
	normal := dial(t, s)
	body := bytes.Repeat([]byte("b"), size)
	normal.Do(fmt.Sprintf("put 0 0 10 %d\r\n%s\r\n", size, body), "INSERTED 1\r\n")
	peeks := []byte(strings.Repeat("peek 1\r\n", 8<<10))
	var slow []*rawConn
	for range 8 {
		c := dial(t, s)
		slow = append(slow, c)
		go func() {
			for range 64 { // up to 4 MB each, until the server closes it
				if _, err := c.NetConn().Write(peeks); err != nil {
					return
				}
			}
		}()
	}
	require.Eventually(t, func() bool { return s.overBudget.Fired() }, ioTimeout, time.Millisecond,
		"the budget closed someone")
	normal.Do("list-tube-used\r\n", "USING default\r\n")
	// Over the budget only between a connection's growth and its close:
	// at most one connection per event loop.
	perConn := int64(s.cfg.StalledInboundLimit + s.cfg.SlowReaderLimit + 2*size + 64<<10)
	assert.LessOrEqual(t, s.held.Load(), s.cfg.HeldBudget+int64(s.cfg.EventLoops)*perConn)
	for _, c := range slow {
		_ = c.NetConn().Close()
	}
	require.Eventually(t, func() bool { return s.held.Load() == 0 }, ioTimeout, time.Millisecond,
		"every connection's share left the count")
	normal.Do("list-tube-used\r\n", "USING default\r\n")
}

// TestStalledInboundCap: a slow reader that keeps sending is closed past
// StalledInboundLimit, well before the inbound cap of a reserving client.
func TestStalledInboundCap(t *testing.T) {
	s := startServer(t, func(c *Config) {
		c.SlowReaderLimit = 64 << 10
		c.StalledInboundLimit = 256 << 10
	})
	c := dial(t, s)
	body := bytes.Repeat([]byte("b"), 32<<10)
	c.Do(fmt.Sprintf("put 0 0 10 %d\r\n%s\r\n", len(body), body), "INSERTED 1\r\n")
	go func() {
		peeks := []byte(strings.Repeat("peek 1\r\n", 8<<10))
		for range 64 {
			if _, err := c.NetConn().Write(peeks); err != nil {
				return
			}
		}
	}()
	c.ExpectClosed()
	assert.Less(t, s.Queue().Stats().Cmds[codec.OpPeek], uint64(64*8<<10), "it was closed before all ran")
}
