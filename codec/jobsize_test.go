package codec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMaxJobSize(t *testing.T) {
	for _, c := range []struct {
		setting, size uint32
		ok            bool
	}{
		{0, DefaultMaxJobSize, true},
		{MaxJobSizeZero, 0, true},
		{1, 1, true},
		{MaxJobSizeLimit, MaxJobSizeLimit, true},
		{MaxJobSizeLimit + 1, MaxJobSizeLimit + 1, false},
	} {
		size, ok := MaxJobSize(c.setting)
		assert.Equal(t, c.size, size, "%d", c.setting)
		assert.Equal(t, c.ok, ok, "%d", c.setting)
	}
}
