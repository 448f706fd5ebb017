package enginetest

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FreeAddr's ports bind, lie below the ephemeral range, and never repeat.
func TestFreeAddr(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		a := FreeAddr(t)
		assert.False(t, seen[a], "%s twice", a)
		seen[a] = true
		_, p, err := net.SplitHostPort(a)
		require.NoError(t, err)
		port, _ := strconv.Atoi(p)
		assert.GreaterOrEqual(t, port, freeFloor)
		assert.Less(t, port, ephemeralLow())
		ln, err := net.Listen("tcp", a)
		require.NoError(t, err, "it binds")
		_ = ln.Close()
	}
}
