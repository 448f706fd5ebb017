package loadgen

import (
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startEcho starts an in-process echo server, closed at cleanup.
func startEcho(t *testing.T) *EchoServer {
	t.Helper()
	e, err := StartEcho("127.0.0.1:0", 100)
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// startReference starts the reference beanstalkd on a free port, stopped at
// cleanup; the test is skipped when beanstalkd is not on PATH.
func startReference(t *testing.T) *Server {
	t.Helper()
	if _, err := exec.LookPath("beanstalkd"); err != nil {
		t.Skip("beanstalkd (the reference server) is not on PATH")
	}
	srv, err := StartServer("beanstalkd -l 127.0.0.1 -p {port} -z 1048576", nil)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Stop() })
	return srv
}

// dialT connects to addr, closed at cleanup.
func dialT(t *testing.T, addr string) *Conn {
	t.Helper()
	c, err := Dial(addr, 0)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// testConfig is a short bounded run: generous timeouts for a loaded CI box.
func testConfig(addr, scenario string) Config {
	return Config{Addr: addr, Scenario: scenario, Timeout: 30 * time.Second}
}
