package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleArgs gives each argument form a canonical sample, so that every
// command in the table gets a line to round-trip. A form without a sample
// fails the test below: adding one cannot be forgotten.
var sampleArgs = map[argForm]string{
	argNone: "", argAny: "", argID: " 42", argPut: " 1 2 3 4", argTimeout: " 5", argRelease: " 42 7 9",
	argBury: " 42 8", argKick: " 10", argName: " 0.5", argPause: " emails 30",
	argListJobs: " emails buried 3 20", argToken: " ***",
}

// Every command of the table (commands.go) is rebuilt exactly from its
// decoded fields: the -VV trace line names every argument of every command.
func TestAppendLineRoundTripsEveryCommand(t *testing.T) {
	for _, s := range Commands() {
		args, ok := sampleArgs[s.form]
		require.True(t, ok, "%s: argument form %d has no sample in sampleArgs", s.Op, s.form)
		line := strings.TrimSuffix(s.Prefix, " ") + args
		if s.form == argToken {
			line = strings.TrimSuffix(s.Prefix, " ") + " s3cret"
		}
		cmd := decodeOne(t, line)
		require.NoError(t, cmd.Err, line)
		want := line
		if s.form == argToken {
			want = "auth ***"
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
