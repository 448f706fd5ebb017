package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestTraceLogNamesEveryArgument: stalkd's own commands, which a hand-kept
// switch once missed, are traced with their arguments (every command's line
// is pinned by codec's TestAppendLineRoundTripsEveryCommand).
func TestTraceLogNamesEveryArgument(t *testing.T) {
	var buf syncBuffer
	s := startServer(t, func(c *Config) {
		c.Logger = zerolog.New(&buf).Level(zerolog.TraceLevel)
	})
	c := dial(t, s)
	c.Do("use jobs.x\r\nclear-tube jobs.x\r\n", "USING jobs.x\r\nCLEARED 0\r\n")
	c.Do("list-jobs jobs.x buried 0 10\r\n", "OK 4\r\n---\n\r\n")
	r := c.Ask("stats-cluster\r\n")
	require.True(t, strings.HasPrefix(r.Head, "OK "), r.Head)
	for _, line := range []string{"clear-tube jobs.x", "list-jobs jobs.x buried 0 10", "stats-cluster"} {
		require.Eventually(t, func() bool {
			return strings.Contains(buf.String(), `"line":"`+line+`"`)
		}, ioTimeout, 5*time.Millisecond, line)
	}
}

// syncBuffer is a log sink safe for the event loops' concurrent writes.
type syncBuffer = enginetest.Buffer

// TestTraceLog runs a put, a reserve and a delete on a server logging at
// trace level and checks the command and reply lines: whole command lines,
// never the body, and nothing of gnet's own chatter.
func TestTraceLog(t *testing.T) {
	var buf syncBuffer
	s := startServer(t, func(c *Config) {
		c.Logger = zerolog.New(&buf).Level(zerolog.TraceLevel)
	})
	c := dial(t, s)
	c.Do("put 3 0 60 11\r\nsecret body\r\n", "INSERTED 1\r\n")
	c.Do("reserve-with-timeout 0\r\n", "RESERVED 1 11\r\nsecret body\r\n")
	c.Do("delete 1\r\n", "DELETED\r\n")
	var out string
	require.Eventually(t, func() bool {
		out = buf.String()
		return strings.Contains(out, `"reply":"DELETED"`)
	}, ioTimeout, 5*time.Millisecond)
	var lines, replies []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		assert.NotContains(t, strings.ToLower(l), "gnet", "gnet's own lines stay out of the log")
		switch m["message"] {
		case "command":
			lines = append(lines, fmt.Sprint(m["line"]))
		case "reply":
			replies = append(replies, fmt.Sprint(m["reply"]))
		case "job":
			assert.Equal(t, 11.0, m["size_bytes"], l)
			assert.Equal(t, 1.0, m["job_id"], l)
		}
	}
	assert.NotContains(t, out, "secret", "job bodies are never logged")
	assert.Equal(t, []string{"put 3 0 60 11", "reserve-with-timeout 0", "delete 1"}, lines)
	assert.Equal(t, []string{"INSERTED 1", "RESERVED 1 11", "DELETED"}, replies)
}

// TestVerbosityOf: the logger's level is the only verbosity control.
func TestVerbosityOf(t *testing.T) {
	assert.Equal(t, 0, verbosityOf(zerolog.Logger{}), "the zero Logger discards")
	assert.Equal(t, 0, verbosityOf(zerolog.Nop()))
	assert.Equal(t, 0, verbosityOf(zerolog.New(io.Discard).Level(zerolog.InfoLevel)))
	assert.Equal(t, 1, verbosityOf(zerolog.New(io.Discard).Level(zerolog.DebugLevel)))
	assert.Equal(t, 2, verbosityOf(zerolog.New(io.Discard).Level(zerolog.TraceLevel)))
}

// TestDebugLogHasNoCommands: at debug level accepts and closes are logged,
// commands are not.
func TestDebugLogHasNoCommands(t *testing.T) {
	var buf syncBuffer
	s := startServer(t, func(c *Config) { c.Logger = zerolog.New(&buf).Level(zerolog.DebugLevel) })
	c := dial(t, s)
	c.Do("use x\r\n", "USING x\r\n")
	c.Hangup()
	require.Eventually(t, func() bool { return strings.Contains(buf.String(), `"message":"close"`) }, ioTimeout, 5*time.Millisecond)
	assert.Contains(t, buf.String(), `"message":"accept"`)
	assert.NotContains(t, buf.String(), `"message":"command"`)
	assert.NotContains(t, buf.String(), `"message":"reply"`)
}

func TestListenAddrs(t *testing.T) {
	never := func() bool { t.Fatal("V6ONLY asked of a socket that is not an IPv6 wildcard"); return false }
	tcp := func(ip string) *net.TCPAddr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 11300} }
	for _, tc := range []struct {
		addr   net.Addr
		v6only bool
		want   []string
		public bool
	}{
		{tcp("::"), false, []string{"0.0.0.0:11300", "[::]:11300"}, true},
		{tcp("::"), true, []string{"[::]:11300"}, true},
		{tcp("0.0.0.0"), false, []string{"0.0.0.0:11300"}, true},
		{tcp("127.0.0.1"), false, []string{"127.0.0.1:11300"}, false},
		{tcp("::1"), false, []string{"[::1]:11300"}, false},
		{&net.UnixAddr{Name: "/run/q.sock", Net: "unix"}, false, []string{"/run/q.sock"}, false},
	} {
		v6 := never
		if ta, ok := tc.addr.(*net.TCPAddr); ok && ta.IP.IsUnspecified() && ta.IP.To4() == nil {
			v6 = func() bool { return tc.v6only }
		}
		got, public := listenAddrs(tc.addr, v6)
		assert.Equal(t, tc.want, got, "%v", tc.addr)
		assert.Equal(t, tc.public, public, "%v", tc.addr)
	}
}

// TestListeningLine: the start-up line lists the bound addresses, and a
// server on every interface warns that other hosts can reach it.
func TestListeningLine(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		public bool
	}{{"127.0.0.1:0", false}, {":0", true}} {
		var buf syncBuffer
		startServer(t, func(c *Config) { c.Addr = tc.addr; c.Logger = zerolog.New(&buf) })
		// OnBoot logs once Serve has let it go on: wait for its lines.
		require.Eventually(t, func() bool {
			out := buf.String()
			return strings.Contains(out, `"listening"`) && (!tc.public || strings.Contains(out, "every interface"))
		}, ioTimeout, 5*time.Millisecond)
		var listening, warning map[string]any
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m), l)
			switch {
			case m["message"] == "listening":
				listening = m
			case m["level"] == "warn" && strings.Contains(l, "every interface"):
				warning = m
			}
		}
		require.NotNil(t, listening, "%s: %s", tc.addr, buf.String())
		addrs, _ := listening["addrs"].([]any)
		require.NotEmpty(t, addrs, tc.addr)
		if !tc.public {
			assert.Nil(t, warning, tc.addr)
			assert.Equal(t, []any{listening["addr"]}, addrs)
			continue
		}
		require.NotNil(t, warning, "%s: %s", tc.addr, buf.String())
		assert.Equal(t, addrs, warning["addrs"])
		assert.Contains(t, fmt.Sprint(addrs), "0.0.0.0:", "IPv4 on every interface")
	}
}
