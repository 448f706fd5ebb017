package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/enginetest/inproc"
	"github.com/stalkd/stalkd/engine/node"
)

// startServer starts an in-process stalkd (a node, as the daemon runs) on a free loopback port and
// returns its address; it stops when the test ends.
func startServer(t *testing.T) string { t.Helper(); return startServerAt(t, "127.0.0.1:0") }

// startServerAt starts an in-process stalkd on addr.
func startServerAt(t *testing.T, addr string) string {
	t.Helper()
	return inproc.StartNode(t, node.Config{Engine: engine.Config{Addr: addr}, Logger: zerolog.New(zerolog.NewTestWriter(t))}).Addr().String()
}

// beanConn is an independent client (go-beanstalk) to set up and check
// what stalkctl did.
func beanConn(t *testing.T, addr string) *beanstalk.Conn {
	t.Helper()
	c, err := beanstalk.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// syncBuffer is a buffer safe for a writer and a polling reader.
type syncBuffer = enginetest.Buffer

// run is one stalkctl run.
type run struct {
	code           int
	stdout, stderr string
}

// testApp returns an app with buffers for its streams and no terminal.
func testApp(stdin io.Reader, stdout, stderr io.Writer, env map[string]string) *app {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	return &app{
		stdin: stdin, stdout: stdout, stderr: stderr,
		getenv:      func(k string) string { return env[k] },
		dialTimeout: 10 * time.Second, ioTimeout: 20 * time.Second,
	}
}

// ctl runs stalkctl against addr with the given stdin (may be "").
func ctl(t *testing.T, addr, stdin string, args ...string) run {
	t.Helper()
	var out, errb bytes.Buffer
	a := testApp(strings.NewReader(stdin), &out, &errb, map[string]string{"STALKD_ADDR": addr})
	code := a.main(context.Background(), args)
	return run{code, out.String(), errb.String()}
}

// mustCtl runs stalkctl and fails the test unless it exits 0.
func mustCtl(t *testing.T, addr string, args ...string) string {
	t.Helper()
	r := ctl(t, addr, "", args...)
	if r.code != 0 {
		t.Fatalf("stalkctl %v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return r.stdout
}

// jsonCtl runs stalkctl --json and decodes its output into v.
func jsonCtl(t *testing.T, addr string, v any, args ...string) {
	t.Helper()
	out := mustCtl(t, addr, append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("stalkctl %v: output is not JSON: %v\n%s", args, err, out)
	}
}
