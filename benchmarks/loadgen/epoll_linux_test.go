package loadgen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// startEpollEcho runs ServeEchoEpoll until cleanup.
func startEpollEcho(t *testing.T, bodySize int) string {
	t.Helper()
	stop, done := make(chan struct{}), make(chan error, 1)
	addrs := make(chan string, 1)
	go func() { done <- ServeEchoEpoll("127.0.0.1:0", bodySize, func(a string) { addrs <- a }, stop) }()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("epoll echo: %v", err)
	}
	t.Cleanup(func() {
		close(stop)
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("epoll echo did not stop")
		}
	})
	return addr
}

func TestClientAgainstEpollEcho(t *testing.T) {
	exercise(t, dialT(t, startEpollEcho(t, 100)))
}

func TestScenariosAgainstEpollEcho(t *testing.T) {
	addr := startEpollEcho(t, 65535)
	for _, c := range []Config{
		{Scenario: ScenarioPut, Conns: 3, Pipeline: 16, Jobs: 500},
		{Scenario: ScenarioPut, Conns: 2, Pipeline: 4, Size: 65535, Jobs: 40}, // bodies split across reads
		{Scenario: ScenarioReserve, Conns: 2, Batch: 8, Jobs: 300},
		{Scenario: ScenarioE2E, Producers: 2, Conns: 2, Jobs: 200},
	} {
		c.Addr, c.NoDrain, c.Timeout = addr, true, 30*time.Second
		r := runOK(t, c)
		if c.Scenario == ScenarioE2E {
			assert.Equal(t, c.Jobs, r.Puts)
			assert.Positive(t, r.Latency.P50, "reserves carry the latest put's stamp")
		} else {
			assert.Equal(t, c.Jobs, r.Ops, "%s size %d", c.Scenario, c.Size)
		}
	}
}
