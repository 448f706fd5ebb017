package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

func TestCounterTable(t *testing.T) {
	seen := map[jobs.Cmd]codec.Op{}
	for op := codec.OpNone; int(op) < codec.NumOps; op++ {
		c, ok := counterOf(op)
		switch op {
		case codec.OpNone, codec.OpPut, codec.OpQuit:
			assert.False(t, ok, op.String())
			continue
		}
		assert.True(t, ok, "%v has no counter", op)
		prev, dup := seen[c]
		assert.False(t, dup, "%v and %v share counter %d", op, prev, c)
		seen[c] = op
	}
	assert.Len(t, seen, int(jobs.NumCmds), "every counter is reachable")
	_, ok := counterOf(codec.Op(codec.NumOps))
	assert.False(t, ok)
}

func TestErrorWords(t *testing.T) {
	for err, want := range map[error]string{
		jobs.ErrNotFound:     "NOT_FOUND\r\n",
		jobs.ErrNotIgnored:   "NOT_IGNORED\r\n",
		jobs.ErrBadTubeName:  "BAD_FORMAT\r\n",
		jobs.ErrTimedOut:     "TIMED_OUT\r\n",
		jobs.ErrDeadlineSoon: "DEADLINE_SOON\r\n",
		jobs.ErrDraining:     "DRAINING\r\n",
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
