package engine

import (
	"errors"
	"fmt"
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
		jobs.ErrNotFound:                            "NOT_FOUND\r\n",
		jobs.ErrNotIgnored:                          "NOT_IGNORED\r\n",
		jobs.ErrBadTubeName:                         "BAD_FORMAT\r\n",
		jobs.ErrTimedOut:                            "TIMED_OUT\r\n",
		jobs.ErrDeadlineSoon:                        "DEADLINE_SOON\r\n",
		jobs.ErrDraining:                            "DRAINING\r\n",
		jobs.ErrOutOfMemory:                         "OUT_OF_MEMORY\r\n",
		jobs.ErrJournal:                             "INTERNAL_ERROR\r\n",
		fmt.Errorf("wrapped: %w", jobs.ErrNotFound): "NOT_FOUND\r\n",
		errors.New("a bug"):                         "INTERNAL_ERROR\r\n",
	} {
		assert.Equal(t, want, wordFor(err), err.Error())
	}
	assert.Equal(t, codec.OutOfMemory, commitFailWord(codec.OpPut))
	assert.Equal(t, codec.InternalError, commitFailWord(codec.OpDelete))
}
