package token

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSet(t *testing.T) {
	s := NewSet([]string{"a", "", "bb"})
	assert.Len(t, s, 2, "empty tokens are ignored")
	assert.False(t, s.Empty())
	assert.True(t, s.Match([]byte("a")))
	assert.True(t, s.Match([]byte("bb")))
	for _, no := range []string{"", "b", "aa", "A", "bb "} {
		assert.False(t, s.Match([]byte(no)), "%q", no)
	}
	assert.False(t, Set(nil).Match([]byte("")))
	assert.True(t, Set(nil).Empty())
}
