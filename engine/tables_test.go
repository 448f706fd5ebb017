package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// Every command in codec's table is parsed, dispatched, counted as
// declared and documented; every op has a handler or is OpNone.
func TestCommandTableIsComplete(t *testing.T) {
	specs := codec.Commands()
	require.Len(t, specs, codec.NumOps-2, "every op but OpNone and the put body")
	for op := codec.Op(1); int(op) < codec.NumOps; op++ {
		assert.NotNil(t, handlers[op], "%v has a handler", op)
	}
	assert.Nil(t, handlers[codec.OpNone])
	for _, s := range specs {
		assert.NotEmpty(t, s.Usage, "%v is documented", s.Op)
		assert.Equal(t, s.Counted, counted[s.Op], "%v", s.Op)
	}
	assert.True(t, counted[codec.OpPutHeader] && !counted[codec.OpPut], "a put counts once, on its line")
	assert.False(t, counted[codec.OpQuit])
	assert.Len(t, reported, 22, "the stats document's cmd-* keys")
}

// Each command of codec's table, sent over the wire as its sample line,
// bumps its own counter (if it is counted) and no other. A command without a
// sample fails the test; quit goes last, since it closes the connection.
func TestEveryCommandIsCounted(t *testing.T) {
	s := startServer(t)
	c := dial(t, s)
	sent := 0
	for _, spec := range codec.Commands() {
		require.NotEmpty(t, spec.Sample, "%v: codec's table gives it no sample line", spec.Op)
		if spec.Op == codec.OpQuit {
			continue
		}
		line := sampleWire(spec)
		before := s.Queue().Stats().Cmds
		c.Send(line)
		skipReply(c)
		after := s.Queue().Stats().Cmds
		for i := range after {
			want := before[i]
			if i == int(spec.Op) && spec.Counted {
				want++
			}
			assert.Equal(t, want, after[i], "%q: counter %v", line, codec.Op(i))
		}
		sent++
	}
	assert.Equal(t, len(codec.Commands())-1, sent, "every command but quit was sent")
	before := s.Queue().Stats().Cmds
	c.Send(codec.OpQuit.Spec().Sample + "\r\n")
	c.ExpectEOF()
	assert.Equal(t, before, s.Queue().Stats().Cmds, "quit counts nothing")
}

func TestErrorWords(t *testing.T) {
	for err, want := range map[error]string{
		jobs.ErrNotFound:     "NOT_FOUND\r\n",
		jobs.ErrNotIgnored:   "NOT_IGNORED\r\n",
		jobs.ErrBadTubeName:  "BAD_FORMAT\r\n",
		jobs.ErrTimedOut:     "TIMED_OUT\r\n",
		jobs.ErrDeadlineSoon: "DEADLINE_SOON\r\n",
		jobs.ErrDraining:     "DRAINING\r\n",
		jobs.ErrQueueFull:    "OUT_OF_MEMORY\r\n",
		jobs.ErrNoSpace:      "OUT_OF_MEMORY\r\n",
		jobs.ErrJournal:      "INTERNAL_ERROR\r\n",
		fmt.Errorf("wrapped: %w", jobs.ErrNotFound): "NOT_FOUND\r\n",
		errors.New("a bug"):                         "INTERNAL_ERROR\r\n",
	} {
		assert.Equal(t, want, wordFor(err), err.Error())
	}
	assert.Equal(t, codec.OutOfMemory, commitFailWord(codec.OpPut))
	assert.Equal(t, codec.InternalError, commitFailWord(codec.OpDelete))
}

// codec and jobs each check tube names (the codec while parsing, the queue
// for embedders who never see the wire); they must agree on every byte.
func TestTubeNameGrammarsAgree(t *testing.T) {
	agree := func(name []byte) {
		t.Helper()
		assert.Equal(t, codec.ValidTubeName(name), jobs.ValidTubeName(name), "%q", name)
	}
	valid := 0
	for b := range 256 {
		for _, name := range [][]byte{{byte(b)}, {'a', byte(b)}, {byte(b), 'a'}} {
			agree(name)
		}
		if codec.ValidTubeName([]byte{'a', byte(b)}) {
			valid++
		}
	}
	assert.Equal(t, 71, valid, "letters, digits and -+/;.$_()")
	for _, n := range []int{0, 1, 199, 200, 201} {
		agree([]byte(strings.Repeat("x", n)))
	}
}

// skipReply reads one reply, its body too.
func skipReply(c *rawConn) { c.Reply() }

// sampleWire is a command's sample line from codec's table as sent on the
// wire: with its CRLF, and a put's with its 1-byte body.
func sampleWire(spec codec.Spec) string {
	if spec.Op == codec.OpPutHeader {
		return spec.Sample + "\r\nx\r\n"
	}
	return spec.Sample + "\r\n"
}
