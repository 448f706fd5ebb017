package codec

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRepliesDeclared: every command declares its reply words (quit has
// none), each a word of the protocol's reply list (REFERENCE.md §2.8) or,
// only for stalkd's own commands, one of stalkd's; no command of the
// reference's may get a word 1.12 does not send.
func TestRepliesDeclared(t *testing.T) {
	protocol := []string{"INSERTED", "BURIED", "USING", "WATCHING", "KICKED", "PAUSED", "DELETED", "RELEASED",
		"TOUCHED", "NOT_FOUND", "NOT_IGNORED", "TIMED_OUT", "DEADLINE_SOON", "DRAINING", "JOB_TOO_BIG",
		"EXPECTED_CRLF", "RESERVED", "FOUND", "OK"}
	ours := []string{"CLEARED", "AUTHENTICATED", "UNAUTHORIZED"}
	for _, s := range Commands() {
		if s.Op == OpQuit {
			assert.Empty(t, s.Replies, "quit closes the connection")
			continue
		}
		assert.NotEmpty(t, s.Replies, "%v declares its replies", s.Op)
		for _, w := range s.Replies {
			ok := slices.Contains(protocol, w) || s.Ours && slices.Contains(ours, w)
			assert.True(t, ok, "%v: %q is not a word 1.12 sends", s.Op, w)
			assert.True(t, ReplyAllowed(s.Op, w))
		}
		for _, w := range GenericReplies {
			assert.True(t, ReplyAllowed(s.Op, w), "%v: %s", s.Op, w)
		}
	}
	assert.False(t, ReplyAllowed(OpPutHeader, "QUEUE_FULL"), "a word of no protocol")
	assert.False(t, ReplyAllowed(OpPutHeader, "CLEARED"), "stalkd's words stay with stalkd's commands")
	assert.False(t, ReplyAllowed(OpDelete, "BURIED"))
}
