package enginetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// WriteFile writes text to a file called name in a fresh temporary
// directory of t (a policy file, a token file) and returns its path. Safe
// for concurrent use.
func WriteFile(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}
