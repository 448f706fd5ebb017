package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/node"
)

// TestProcessLog runs the real binary at -VV with a flag that warns, does a
// put, a reserve and a delete, stops it with SIGTERM and checks the whole
// log: every line JSON with a microsecond timestamp and a component, the
// flag warning in the stream, one component per line (the admin listener's too), whole command lines in the trace, no job body,
// no gnet chatter, and a "stopped" line saying what the stop did.
func TestProcessLog(t *testing.T) {
	cmd, stderr := stalkd(t, "-l", "127.0.0.1", "-p", "0", "-VV", "-c", "--admin", "127.0.0.1:0")
	var all bytes.Buffer
	tee := io.TeeReader(stderr, &all)
	br := bufio.NewReader(tee)
	var addr string
	for addr == "" {
		line, err := br.ReadBytes('\n')
		require.NoError(t, err, "log so far: %s", all.String())
		var m struct{ Message, Addr string }
		if json.Unmarshal(line, &m) == nil && m.Message == "listening" {
			addr = m.Addr
		}
	}
	rest := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, br); close(rest) }()

	c := enginetest.Dial(t, addr)
	c.Do("put 2 0 60 11\r\nsecret body\r\n", "INSERTED 1\r\n")
	c.Do("reserve-with-timeout 0\r\n", "RESERVED 1 11\r\nsecret body\r\n")
	c.Do("delete 1\r\n", "DELETED\r\n")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 0, exitCode(t, cmd))
	c.Hangup()
	select {
	case <-rest:
	case <-time.After(waitLong):
		t.Fatal("stderr not closed")
	}

	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$`)
	var commands []string
	var stopped map[string]any
	warned := false
	for _, l := range strings.Split(strings.TrimSpace(all.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "not JSON: %q", l)
		assert.Regexp(t, stamp, m["time"], "sub-second timestamp: %s", l)
		assert.NotEmpty(t, m["component"], "component: %s", l)
		assert.Equal(t, 1, strings.Count(l, `"component":`), "one component per line: %s", l)
		assert.NotContains(t, strings.ToLower(l), "gnet", l)
		assert.NotContains(t, l, "secret", "no job body in the log")
		assert.NotContains(t, l, "%!", "no formatting error")
		switch m["message"] {
		case "command":
			commands = append(commands, m["line"].(string))
		case "stopped":
			stopped = m
		}
		if strings.Contains(l, "-c flag was removed") {
			warned = true
			assert.Equal(t, "warn", m["level"], l)
		}
	}
	assert.True(t, warned, "the -c warning is a log line")
	assert.Equal(t, []string{"put 2 0 60 11", "reserve-with-timeout 0", "delete 1"}, commands)
	require.NotNil(t, stopped, "a line after stopping says what stop did")
	assert.Equal(t, 1.0, stopped["connections_closed"])
	assert.Contains(t, stopped, "took_ms")
	assert.Equal(t, "cmd", stopped["component"])
}

// TestConsoleTimestamps checks that the console format shows milliseconds
// of the real time, not ".000".
func TestConsoleTimestamps(t *testing.T) {
	stamp := regexp.MustCompile(`^\d\d:\d\d:\d\d\.(\d{3}) `)
	for i := 0; ; i++ {
		var b bytes.Buffer
		l := newLogger(&b, 0, formatConsole)
		l.Info().Msg("hello")
		m := stamp.FindStringSubmatch(b.String())
		require.NotNil(t, m, "console line %q", b.String())
		if m[1] != "000" {
			return
		}
		// One in a thousand lines really is at .000; ten in a row is not.
		require.Less(t, i, 10, "milliseconds are always 000")
		time.Sleep(time.Millisecond)
	}
}

func TestLevels(t *testing.T) {
	for v, want := range map[int]zerolog.Level{0: zerolog.InfoLevel, 1: zerolog.DebugLevel, 2: zerolog.TraceLevel, 3: zerolog.TraceLevel} {
		assert.Equal(t, want, newLogger(io.Discard, v, formatJSON).GetLevel(), "-V x %d", v)
	}
}

// TestWaitServerGone: a server that stops without an error (gnet shut down
// under it) is reported in words, not as a formatting error.
func TestWaitServerGone(t *testing.T) {
	n, err := node.Start(context.Background(), node.Config{Engine: engine.Config{Addr: "127.0.0.1:0"}})
	require.NoError(t, err)
	require.NoError(t, n.Stop(context.Background()))
	err = waitSignals(n, make(chan os.Signal), zerolog.Nop())
	require.Error(t, err)
	assert.Equal(t, "server stopped on its own", err.Error())
}

// TestProcessAllInterfaces: started as make run starts it (no -l), the
// server names the addresses it listens on and warns that other hosts can
// reach it.
func TestProcessAllInterfaces(t *testing.T) {
	cmd, stderr := stalkd(t, "-p", "0")
	sc := bufio.NewScanner(stderr)
	var addrs []any
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		if m["message"] == "listening" {
			addrs, _ = m["addrs"].([]any)
			continue
		}
		if m["level"] == "warn" && strings.Contains(sc.Text(), "every interface") {
			assert.Equal(t, addrs, m["addrs"])
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			assert.Equal(t, 0, exitCode(t, cmd))
			require.NotEmpty(t, addrs)
			assert.True(t, strings.HasPrefix(addrs[0].(string), "0.0.0.0:"), "%v", addrs)
			return
		}
	}
	t.Fatal("no warning about listening on every interface")
}
