package main

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestMaxConnectionsFlag: past N open connections a new one is closed at
// once, the N keep being served, the refusals are logged at most once a
// second, and a place that frees up is taken again.
func TestMaxConnectionsFlag(t *testing.T) {
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "--max-connections", "3")
	addr := p.Addr()
	var open []*enginetest.Conn
	for range 3 {
		open = append(open, dialServe(t, addr))
	}
	start := time.Now()
	for range 20 {
		c, err := net.DialTimeout("tcp", addr, waitLong)
		require.NoError(t, err)
		assert.False(t, probe(c), "connection 4 and later are closed")
		_ = c.Close()
	}
	for _, c := range open {
		c.Do("list-tube-used\r\n", "USING default\r\n")
	}
	require.Eventually(t, func() bool { return p.Count("too many connections") > 0 }, waitLong, time.Millisecond)
	elapsed := time.Since(start)
	assert.LessOrEqual(t, p.Count("too many connections"), 1+int(elapsed/time.Second),
		"20 refusals in %v, logged at most once a second", elapsed)

	open[0].Hangup()
	requireServedAgain(t, addr, "a freed place is taken again")
}

// TestIdleTimeoutFlag: a connection that sends nothing is closed; a worker
// blocked in reserve since before is not, and still gets its job.
func TestIdleTimeoutFlag(t *testing.T) {
	addr := startSelf(t, "-l", "127.0.0.1", "-p", "0", "--idle-timeout", "1s").Addr()
	worker := dialServe(t, addr)
	worker.Send("reserve\r\n")
	idle := dialServe(t, addr) // its last word comes after the worker's
	idle.ExpectEOF()           // the idle connection is closed

	producer := dialServe(t, addr)
	producer.Do("put 0 0 100 1\r\nx\r\n", "INSERTED 1\r\n")
	assert.Equal(t, "RESERVED 1 1", worker.Line(), "the worker blocked in reserve is still connected")
}
