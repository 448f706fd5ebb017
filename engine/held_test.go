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

// A reply with a job body is held as its header and a view of the body:
// releaseSome stops after that header and hands the body back to be written
// from where it is; release (for the paths that gather) copies it.
func TestHeldRepliesBody(t *testing.T) {
	body := []byte("0123456789")
	var h heldReplies
	h.addPending(1, "OOM\r\n", []byte("DELETED\r\n"))
	h.addBody(0, "", []byte("RESERVED 7 10\r\n"), body)
	h.addReady([]byte("TIMED_OUT\r\n"))
	h.addBody(2, "INTERNAL_ERROR\r\n", []byte("RESERVED 8 10\r\n"), body)
	assert.Len(t, h.entries, 4, "a ready reply does not merge into a body's entry")
	assert.Equal(t, 9+15+12+11+15+12, h.size(), "the bodies and their CRLFs count as held")

	out, b := h.releaseSome(nil, fakeCommits{})
	assert.Empty(t, out)
	assert.Nil(t, b)

	out, b = h.releaseSome(nil, fakeCommits{upTo: 1})
	assert.Equal(t, "DELETED\r\nRESERVED 7 10\r\n", string(out))
	assert.Same(t, &body[0], &b[0], "the body is the job's own buffer, not a copy")
	assert.Equal(t, 11+15+12, h.size())

	out, b = h.releaseSome(nil, fakeCommits{upTo: 1})
	assert.Equal(t, "TIMED_OUT\r\n", string(out), "stops at the reply still waiting")
	assert.Nil(t, b)

	assert.Equal(t, "INTERNAL_ERROR\r\n", string(h.release(nil, fakeCommits{upTo: 1, failAt: 2})),
		"a failed journal sends the fail word, not the body")
	assert.True(t, h.empty())
	assert.Zero(t, h.size())
	assert.Nil(t, h.entries[:cap(h.entries)][0].body, "no view is kept once released")

	h.addBody(0, "", []byte("FOUND 9 10\r\n"), body)
	assert.Equal(t, "FOUND 9 10\r\n0123456789\r\n", string(h.release(nil, fakeCommits{})), "release copies the body")
}
