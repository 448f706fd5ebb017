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

// Each command, sent over the wire, bumps its own counter and no other.
func TestEveryCommandIsCounted(t *testing.T) {
	s := startServer(t)
	c := dial(t, s)
	c.Do("put 0 0 10 1\r\nx\r\n", "INSERTED 1\r\n")
	for _, spec := range codec.Commands() {
		line, ok := sampleLines[spec.Op]
		if !ok {
			continue // put, reserve and quit: covered elsewhere
		}
		before := s.Queue().Stats().Cmds
		c.Send(line + "\r\n")
		skipReply(c)
		after := s.Queue().Stats().Cmds
		for i := range after {
			want := before[i]
			if i == int(spec.Op) {
				want++
			}
			assert.Equal(t, want, after[i], "%q: counter %v", line, codec.Op(i))
		}
	}
}

func TestErrorWords(t *testing.T) {
	for err, want := range map[error]string{
		jobs.ErrNotFound:     "NOT_FOUND\r\n",
		jobs.ErrNotIgnored:   "NOT_IGNORED\r\n",
		jobs.ErrBadTubeName:  "BAD_FORMAT\r\n",
		jobs.ErrTimedOut:     "TIMED_OUT\r\n",
		jobs.ErrDeadlineSoon: "DEADLINE_SOON\r\n",
		jobs.ErrDraining:     "DRAINING\r\n",
		jobs.ErrQueueFull:    "QUEUE_FULL\r\n",
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

// sampleLines holds a well-formed line (CRLF left out) of each command
// that answers at once; put, reserve and quit are covered elsewhere.
var sampleLines = map[codec.Op]string{
	codec.OpPeek: "peek 1", codec.OpPeekReady: "peek-ready", codec.OpPeekDelayed: "peek-delayed",
	codec.OpPeekBuried: "peek-buried", codec.OpReserveWithTimeout: "reserve-with-timeout 0",
	codec.OpReserveJob: "reserve-job 9", codec.OpDelete: "delete 9", codec.OpRelease: "release 9 0 0",
	codec.OpUse: "use default", codec.OpWatch: "watch default", codec.OpIgnore: "ignore x",
	codec.OpBury: "bury 9 0", codec.OpKick: "kick 1", codec.OpKickJob: "kick-job 9",
	codec.OpTouch: "touch 9", codec.OpStats: "stats", codec.OpStatsJob: "stats-job 9",
	codec.OpStatsTube: "stats-tube x", codec.OpListTubes: "list-tubes", codec.OpListTubeUsed: "list-tube-used",
	codec.OpListTubesWatched: "list-tubes-watched", codec.OpPauseTube: "pause-tube x 0",
	codec.OpClearTube: "clear-tube x", codec.OpListJobs: "list-jobs x ready 0 1",
}
