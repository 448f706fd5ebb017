package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// The real binary with --auth-token-file: commands wait for auth.
func TestAuthTokenFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(file, []byte("# operators\n  first-token-0123456789  \n\nsecond-token-abcdefghij\n"), 0o600))
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "--auth-token-file", file)
	c := enginetest.Dial(t, p.Addr())
	c.Do("put 0 0 10 1\r\nx\r\n", "UNKNOWN_COMMAND\r\n")
	c.Do("auth second-token-abcdefghij\r\nput 0 0 10 1\r\nx\r\n", "AUTHENTICATED\r\nINSERTED 1\r\n")
}

func TestReadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	toks, err := readTokens(write("ok", "\n# c\n aaaaaaaaaaaaaaaa \nbbbbbbbbbbbbbbbbbbbb\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb"}, toks)
	for name, body := range map[string]string{
		"empty": "\n# nothing\n", "short": "tooshort\n", "space": "aaaaaaaa aaaaaaaaaa\n",
	} {
		_, err := readTokens(write(name, body))
		assert.Error(t, err, name)
		assert.NotContains(t, err.Error(), "aaaaaaaa", "errors never quote a token")
	}
	_, err = readTokens(filepath.Join(dir, "missing"))
	assert.Error(t, err)
}
