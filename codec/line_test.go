package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command of the table (commands.go) is rebuilt exactly from its
// decoded fields, from the sample line the table gives it: the -VV trace
// line names every argument of every command, and an auth token never.
func TestAppendLineRoundTripsEveryCommand(t *testing.T) {
	for _, s := range Commands() {
		cmd := decodeOne(t, s.Sample)
		require.NoError(t, cmd.Err, s.Sample)
		want := s.Sample
		if cmd.Token != nil {
			want = strings.TrimSuffix(s.Prefix, " ") + " ***"
		}
		assert.Equal(t, want, string(AppendLine(nil, &cmd)), "%s", s.Op)
	}
}

func TestAppendLineCanonicalAndFailed(t *testing.T) {
	cmd := decodeOne(t, "release 0042 1 2")
	assert.Equal(t, "release 42 1 2", string(AppendLine(nil, &cmd)))
	cmd = decodeOne(t, "reserve-with-timeout -1")
	assert.Equal(t, "reserve-with-timeout -1", string(AppendLine(nil, &cmd)))
	cmd = decodeOne(t, "delete x")
	require.Equal(t, ErrBadFormat, cmd.Err)
	assert.Equal(t, "delete", string(AppendLine(nil, &cmd)))
	cmd = decodeOne(t, "auth a b")
	assert.NotContains(t, string(AppendLine(nil, &cmd)), "a b")
}

func TestAppendLineAllocatesNothing(t *testing.T) {
	cmd := decodeOne(t, "list-jobs emails ready 0 10")
	buf := make([]byte, 0, 128)
	assert.Zero(t, testing.AllocsPerRun(100, func() { buf = AppendLine(buf[:0], &cmd) }))
}

// decodeOne decodes one line (CRLF added) with a fresh decoder.
func decodeOne(t *testing.T, line string) Command {
	t.Helper()
	d := NewDecoder(1 << 16)
	in := []byte(line + "\r\n")
	cmd, n, ok := d.Decode(in)
	require.True(t, ok, "%q", line)
	require.Equal(t, len(in), n, "%q consumed", line)
	return cmd
}
