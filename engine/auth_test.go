package engine

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/engine/enginetest"
)

const goodToken = "s3cret-token-with-some-length"

// lockedBuf is a log sink the server's goroutines may share.
type lockedBuf = enginetest.Buffer

func startAuthServer(t *testing.T) (*Server, *lockedBuf) {
	logs := &lockedBuf{}
	s := startServer(t, func(c *Config) {
		c.AuthTokens = []string{"", "another-token", goodToken}
		c.Logger = zerolog.New(logs)
	})
	return s, logs
}

// Before auth, every command (each word of the table) is refused with
// UNKNOWN_COMMAND - a word 1.12 may send for any command, never one of
// stalkd's own - runs nothing and counts nothing; the log says why, naming
// the peer, at most once a second.
func TestAuthRefusesEveryCommandFirst(t *testing.T) {
	s, logs := startAuthServer(t)
	c := dial(t, s)
	refused := 0
	for _, spec := range codec.Commands() {
		require.NotEmpty(t, spec.Sample, "%v: codec's table gives it no sample line", spec.Op)
		if spec.Op == codec.OpAuth || spec.Op == codec.OpQuit {
			continue // the two commands the gate lets through
		}
		c.Do(sampleWire(spec), "UNKNOWN_COMMAND\r\n")
		assert.True(t, codec.ReplyAllowed(spec.Op, "UNKNOWN_COMMAND"), "%v", spec.Op)
		refused++
	}
	assert.Equal(t, len(codec.Commands())-2, refused)
	c.Do("reserve\r\nreserve-with-timeout 5\r\n", "UNKNOWN_COMMAND\r\nUNKNOWN_COMMAND\r\n")
	c.Do("bogus\r\nput x\r\n\r\n", "UNKNOWN_COMMAND\r\nUNKNOWN_COMMAND\r\nUNKNOWN_COMMAND\r\n")
	assert.Equal(t, [64]uint64{}, s.Queue().Stats().Cmds, "nothing was counted")
	assert.Zero(t, s.Queue().Stats().TotalJobs)
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "a command before auth") },
		ioTimeout, ioTimeout/100)
	assert.Less(t, strings.Count(logs.String(), "a command before auth"), refused/2, "not one line per command")
	assert.Contains(t, logs.String(), `"remote_addr":"127.0.0.1:`)

	c.Do("auth "+goodToken+"\r\n", "AUTHENTICATED\r\n")
	c.Do("list-tube-used\r\n", "USING default\r\n")
	c.Do("quit\r\n", "")
	c.ExpectEOF()
}

// A put refused before auth does not have its body read as commands, even
// when the body looks like commands or is too big.
func TestAuthPutBodyIsNeverParsed(t *testing.T) {
	s, _ := startAuthServer(t)
	c := dial(t, s)
	c.Do("put 0 0 10 17\r\nclear-tube dflt\r\n\r\n", "UNKNOWN_COMMAND\r\n")
	c.Do("put 0 0 10 100000\r\n"+strings.Repeat("use x\r\n", 14285)+"abcde\r\n", "UNKNOWN_COMMAND\r\n")
	c.Do("auth "+goodToken+"\r\nlist-tube-used\r\n", "AUTHENTICATED\r\nUSING default\r\n")
	assert.Zero(t, s.Queue().Stats().TotalJobs)
	c.Do("put 0 0 10 2\r\nok\r\n", "INSERTED 1\r\n")
}

// Wrong, then right; three wrong tokens close the connection, and the log
// names the attempt but never the token.
func TestAuthFailures(t *testing.T) {
	s, logs := startAuthServer(t)
	c := dial(t, s)
	c.Do("auth nope\r\n", "UNAUTHORIZED\r\n")
	c.Do("auth another-token\r\n", "AUTHENTICATED\r\n")
	c.Do("auth wrong-again\r\n", "UNAUTHORIZED\r\n")
	c.Do("list-tube-used\r\n", "USING default\r\n")

	d := dial(t, s)
	d.Do("auth "+goodToken+"x\r\n", "UNAUTHORIZED\r\n")
	d.Do("auth x"+goodToken+"\r\n", "UNAUTHORIZED\r\n")
	d.Do("auth "+goodToken[:10]+"\r\n", "UNAUTHORIZED\r\n")
	d.ExpectEOF()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "repeated wrong auth tokens") },
		ioTimeout, ioTimeout/100)
	assert.NotContains(t, logs.String(), goodToken[:10])
	assert.NotContains(t, logs.String(), "wrong-again")
	assert.Contains(t, logs.String(), `"failures":3`)
	assert.Contains(t, logs.String(), `"remote_addr":"127.0.0.1:`)

	q := dial(t, s)
	q.Do("quit\r\n", "")
	q.ExpectEOF()
}

// Without tokens, nothing is gated and auth with any token is accepted.
func TestAuthOffByDefault(t *testing.T) {
	s := startServer(t)
	c := dial(t, s)
	c.Do("list-tube-used\r\nauth anything\r\n", "USING default\r\nAUTHENTICATED\r\n")
	c.Do("auth a b\r\nauth \r\n", "BAD_FORMAT\r\nBAD_FORMAT\r\n")
}

// Garbage thrown at the gate, in random pieces, gets nothing but
// UNKNOWN_COMMAND (UNAUTHORIZED for a wrong token, and a close after three),
// changes nothing, and leaves the server serving an honest client.
func TestAuthGateGarbage(t *testing.T) {
	s, _ := startAuthServer(t)
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"put 0 0 0 3\r\n", "auth x\r\n", "auth ", "use a\r\n", "\r\n", "\r", "\n", "delete 1\r\n",
		"reserve\r\n", "clear-tube default\r\n", "\x00", "stats", " ", "list-jobs default ready 0 9\r\n"}
	for range 20 {
		c := dial(t, s)
		var b strings.Builder
		for range 1 + r.IntN(60) {
			if r.IntN(3) == 0 {
				for range r.IntN(40) {
					b.WriteByte(byte(r.IntN(256)))
				}
			} else {
				b.WriteString(words[r.IntN(len(words))])
			}
		}
		_, _ = c.NetConn().Write([]byte(b.String()))
		require.NoError(t, c.CloseWriteErr())
		all, _ := io.ReadAll(c.Reader())
		for _, line := range strings.SplitAfter(string(all), "\r\n") {
			if line != "" {
				assert.Contains(t, []string{"UNKNOWN_COMMAND\r\n", "UNAUTHORIZED\r\n"}, line, "input %q", b.String())
			}
		}
	}
	st := s.Queue().Stats()
	assert.Zero(t, st.TotalJobs)
	assert.Equal(t, 1, st.Tubes)
	c := dial(t, s)
	c.Do("auth "+goodToken+"\r\nput 0 0 10 1\r\nx\r\n", "AUTHENTICATED\r\nINSERTED 1\r\n")
}

// The recipe for go-beanstalk in cmd/stalkd/README.md (Security): dial, send auth, read its line,
// then hand the connection to the client.
func TestAuthWithGoBeanstalk(t *testing.T) {
	s, _ := startAuthServer(t)
	nc, err := net.DialTimeout("tcp", addrOf(t, s), ioTimeout)
	require.NoError(t, err)
	r := bufio.NewReader(nc)
	_, err = fmt.Fprintf(nc, "auth %s\r\n", goodToken)
	require.NoError(t, err)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "AUTHENTICATED\r\n", line)
	c := beanstalk.NewConn(nc)
	defer c.Close()
	id, err := c.Put([]byte("hello"), 1, 0, time.Minute)
	require.NoError(t, err)
	rid, body, err := c.Reserve(ioTimeout)
	require.NoError(t, err)
	assert.Equal(t, id, rid)
	assert.Equal(t, "hello", string(body))
}
