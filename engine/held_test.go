package engine

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeCommits says seq <= upTo is committed and, past failAt, that the
// journal failed.
type fakeCommits struct{ upTo, failAt uint64 }

func (f fakeCommits) Committed(seq uint64) (bool, error) {
	if seq <= f.upTo {
		return true, nil
	}
	if f.failAt != 0 && seq >= f.failAt {
		return true, errors.New("failed")
	}
	return false, nil
}

func TestHeldRepliesOrder(t *testing.T) {
	var h heldReplies
	assert.True(t, h.empty())
	h.addPending(1, "OOM\r\n", []byte("A\r\n"))
	h.addReady([]byte("B\r\n"))
	h.addReady([]byte("C\r\n"))
	h.addPending(2, "ERR\r\n", []byte("D\r\n"))
	h.addReady([]byte("E\r\n"))
	assert.Equal(t, 15, h.size())
	assert.Len(t, h.entries, 4, "adjacent ready replies share an entry")

	assert.Empty(t, h.release(nil, fakeCommits{}), "nothing passes an uncommitted reply")
	assert.Equal(t, "A\r\nB\r\nC\r\n", string(h.release(nil, fakeCommits{upTo: 1})))
	assert.Equal(t, 6, h.size())
	assert.Equal(t, "ERR\r\nE\r\n", string(h.release([]byte{}, fakeCommits{upTo: 1, failAt: 2})))
	assert.True(t, h.empty())
	assert.Zero(t, h.size())

	h.addReady([]byte("F\r\n"))
	assert.Equal(t, "F\r\n", string(h.release(nil, fakeCommits{})))
}

func TestHeldRepliesReuseBuffers(t *testing.T) {
	var h heldReplies
	var out []byte
	fc := &fakeCommits{upTo: 1}
	allocs := testing.AllocsPerRun(100, func() {
		h.addPending(1, "X\r\n", []byte("INSERTED 1\r\n"))
		h.addReady([]byte("USING default\r\n"))
		out = h.release(out[:0], fc)
	})
	assert.Zero(t, allocs)
}
