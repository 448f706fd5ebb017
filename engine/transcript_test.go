package engine

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// Golden wire transcripts: engine/testdata/transcripts/*.txt hold scripted
// conversations, byte for byte. Each runs against a fresh in-process server
// and, when the reference beanstalkd is on PATH, against it too (unless the
// file says "# ref: skip"), so the expected bytes are the reference's own.
//
// Syntax, one directive per line:
//
//	# comment            ("# server: -z 10" sets max-job-size for both servers;
//	                     "# ref: skip" runs it against stalkd only)
//	> bytes              send
//	< bytes              expect exactly these bytes
//	@name                switch to connection name (opened on first use)
//	!waiting N           wait until N clients are blocked in reserve
//	!halfclose           half-close the current connection
//	!eof                 expect the server to close the current connection
//
// Bytes use Go escapes (\r \n \t \x00 \\) and {{N*text}} repeats text N
// times. go test -run TestTranscripts -update rewrites every "<" line from
// what our server answers.
var update = flag.Bool("update", false, "rewrite the expected bytes of golden transcripts")

type step struct {
	kind byte // '>', '<', '@', '!'
	arg  string
	line int
}

type transcript struct {
	name     string
	path     string
	steps    []step
	maxJob   uint32
	refSkip  bool
	rawLines []string
}

var repeatRE = regexp.MustCompile(`\{\{(\d+)\*([^}]*)\}\}`)

// unescape expands {{N*text}} and Go escapes.
func unescape(t testing.TB, s string) string {
	s = repeatRE.ReplaceAllStringFunc(s, func(m string) string {
		p := repeatRE.FindStringSubmatch(m)
		n, _ := strconv.Atoi(p[1])
		return strings.Repeat(p[2], n)
	})
	u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	require.NoError(t, err, "bad escape in %q", s)
	return u
}

func loadTranscript(t testing.TB, path string) *transcript {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	tr := &transcript{name: strings.TrimSuffix(filepath.Base(path), ".txt"), path: path}
	tr.rawLines = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i, l := range tr.rawLines {
		switch {
		case l == "":
		case strings.HasPrefix(l, "# server: -z "):
			n, err := strconv.ParseUint(strings.TrimPrefix(l, "# server: -z "), 10, 32)
			require.NoError(t, err)
			tr.maxJob = uint32(n)
		case strings.HasPrefix(l, "# ref: skip"):
			tr.refSkip = true
		case l[0] == '#':
		case strings.HasPrefix(l, "> "), strings.HasPrefix(l, "< "):
			tr.steps = append(tr.steps, step{kind: l[0], arg: unescape(t, l[2:]), line: i})
		case l[0] == '@', l[0] == '!':
			tr.steps = append(tr.steps, step{kind: l[0], arg: l[1:], line: i})
		default:
			t.Fatalf("%s:%d: cannot parse %q", path, i+1, l)
		}
	}
	return tr
}

// target is a server a transcript runs against.
type target struct {
	addr    string
	pid     int        // the process serving it, for enginetest.Settle
	waiting func() int // clients blocked in reserve
}

// run plays tr against tg. In update mode it returns the replies received
// for each "<" step instead of comparing them.
func (tr *transcript) run(t *testing.T, tg target, record bool) map[int]string {
	conns := map[string]*rawConn{}
	halfClosed := map[string]bool{}
	cur := "a"
	get := func() *rawConn {
		if conns[cur] == nil {
			conns[cur] = dialRaw(t, "tcp", tg.addr)
		}
		return conns[cur]
	}
	got := map[int]string{}
	for i, st := range tr.steps {
		where := fmt.Sprintf("%s:%d", tr.path, st.line+1)
		switch st.kind {
		case '>':
			get().Send(st.arg)
		case '<':
			if record {
				if i > 0 && tr.steps[i-1].kind == '<' {
					continue
				}
				got[st.line] = readSettled(t, get(), tg.pid, halfClosed[cur])
				continue
			}
			t.Log(where)
			get().Expect(st.arg)
		case '@':
			cur = st.arg
		case '!':
			halfClosed[cur] = halfClosed[cur] || st.arg == "halfclose"
			tr.directive(t, tg, get(), st.arg, where)
		}
	}
	return got
}

func (tr *transcript) directive(t *testing.T, tg target, c *rawConn, d, where string) {
	switch {
	case strings.HasPrefix(d, "waiting "):
		n, err := strconv.Atoi(strings.TrimPrefix(d, "waiting "))
		require.NoError(t, err, where)
		require.Eventually(t, func() bool { return tg.waiting() == n }, ioTimeout, time.Millisecond, where)
	case d == "halfclose":
		c.CloseWrite()
	case d == "eof":
		c.ExpectEOF()
	default:
		t.Fatalf("%s: unknown directive !%s", where, d)
	}
}

// readSettled reads whatever the server has answered once it has handled
// every byte sent (enginetest.Settle): no quiet window. A half-closed
// connection is finished off the event loop: it is read once the server
// has closed it.
func readSettled(t *testing.T, rc *rawConn, pid int, halfClosed bool) string {
	if halfClosed {
		require.NoError(t, enginetest.Closed(rc.NetConn().LocalAddr(), rc.NetConn().RemoteAddr()))
	} else {
		require.NoError(t, enginetest.Settle(rc.NetConn(), pid))
	}
	n, err := enginetest.Unread(rc.NetConn())
	require.NoError(t, err)
	b := make([]byte, rc.Reader().Buffered()+n)
	_, err = io.ReadFull(rc.Reader(), b)
	require.NoError(t, err)
	return string(b)
}

// rewrite replaces each "<" run of tr's file by the recorded replies.
func (tr *transcript) rewrite(t *testing.T, got map[int]string) {
	var out []string
	for i := 0; i < len(tr.rawLines); i++ {
		l := tr.rawLines[i]
		if !strings.HasPrefix(l, "< ") {
			out = append(out, l)
			continue
		}
		start, want := i, unescape(t, l[2:])
		for i+1 < len(tr.rawLines) && strings.HasPrefix(tr.rawLines[i+1], "< ") {
			i++
			want += unescape(t, tr.rawLines[i][2:])
		}
		if want == got[start] {
			out = append(out, tr.rawLines[start:i+1]...)
			continue
		}
		for _, r := range splitReplies(got[start]) {
			out = append(out, "< "+escape(r))
		}
	}
	require.NoError(t, os.WriteFile(tr.path, []byte(strings.Join(out, "\n")+"\n"), 0o644))
}

// splitReplies cuts a reply stream into replies, one per line of the file.
func splitReplies(s string) []string { return enginetest.SplitReplies(s) }

func escape(s string) string {
	q := strconv.Quote(s)
	return strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
}

func transcripts(t *testing.T) []*transcript {
	paths, err := filepath.Glob("testdata/transcripts/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var trs []*transcript
	for _, p := range paths {
		trs = append(trs, loadTranscript(t, p))
	}
	return trs
}

func TestTranscripts(t *testing.T) {
	for _, tr := range transcripts(t) {
		t.Run(tr.name, func(t *testing.T) {
			s := startServer(t, func(c *Config) {
				c.MaxJobSize = tr.maxJob
				c.Logger = c.Logger.Level(zerolog.TraceLevel)
				c.EventLoops = 1 // for enginetest.Settle in -update mode
			})
			tg := target{addr: addrOf(t, s), pid: os.Getpid(), waiting: func() int { return int(s.Queue().Stats().Waiting) }}
			got := tr.run(t, tg, *update)
			if *update {
				tr.rewrite(t, got)
			}
		})
	}
}

// TestTranscriptsRecord records every transcript as -update does and finds
// the expected bytes again: what the kernel barrier lets the recorder read
// is all the server answers, no more and no less.
func TestTranscriptsRecord(t *testing.T) {
	if *update {
		t.Skip("TestTranscripts records")
	}
	for _, tr := range transcripts(t) {
		t.Run(tr.name, func(t *testing.T) {
			s := startServer(t, func(c *Config) {
				c.MaxJobSize = tr.maxJob
				c.EventLoops = 1
			})
			tg := target{addr: addrOf(t, s), pid: os.Getpid(), waiting: func() int { return int(s.Queue().Stats().Waiting) }}
			got := tr.run(t, tg, true)
			for i := 0; i < len(tr.steps); i++ {
				if tr.steps[i].kind != '<' {
					continue
				}
				start, want := tr.steps[i].line, tr.steps[i].arg
				for i+1 < len(tr.steps) && tr.steps[i+1].kind == '<' {
					i++
					want += tr.steps[i].arg
				}
				assert.Equal(t, want, got[start], "%s:%d", tr.path, start+1)
			}
		})
	}
}

// TestTranscriptsAgainstReference replays the transcripts against the
// reference beanstalkd, proving the expected bytes are the reference's.
func TestTranscriptsAgainstReference(t *testing.T) {
	if *update {
		t.Skip("not while updating")
	}
	for _, tr := range transcripts(t) {
		t.Run(tr.name, func(t *testing.T) {
			if tr.refSkip {
				t.Skip("differs from beanstalkd 1.12 on purpose")
			}
			var args []string
			if tr.maxJob != 0 {
				args = []string{"-z", strconv.FormatUint(uint64(tr.maxJob), 10)}
			}
			ref := enginetest.Reference(t, args...)
			ctl := enginetest.Dial(t, ref.Addr())
			tr.run(t, target{addr: ref.Addr(), pid: ref.Pid(), waiting: func() int { return int(ctl.Stat("current-waiting")) }}, false)
		})
	}
}
