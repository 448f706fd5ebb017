package codec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEncoders(t *testing.T) {
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"inserted", AppendInserted(nil, 1), "INSERTED 1\r\n"},
		{"inserted max", AppendInserted(nil, math.MaxUint64), "INSERTED 18446744073709551615\r\n"},
		{"buried id", AppendBuriedID(nil, 7), "BURIED 7\r\n"},
		{"reserved header", AppendReservedHeader(nil, 3, 5), "RESERVED 3 5\r\n"},
		{"reserved", AppendReserved(nil, 3, []byte("hello")), "RESERVED 3 5\r\nhello\r\n"},
		{"reserved empty", AppendReserved(nil, 4, nil), "RESERVED 4 0\r\n\r\n"},
		{"found header", AppendFoundHeader(nil, 9, 0), "FOUND 9 0\r\n"},
		{"found", AppendFound(nil, 1, []byte("ab")), "FOUND 1 2\r\nab\r\n"},
		{"using", AppendUsing(nil, "default"), "USING default\r\n"},
		{"watching", AppendWatching(nil, 2), "WATCHING 2\r\n"},
		{"kicked n", AppendKickedN(nil, 0), "KICKED 0\r\n"},
		// [observed] list-tubes on a fresh server: OK 14.
		{"list-tubes", AppendOK(nil, AppendYAMLList(nil, []string{"default"})), "OK 14\r\n---\n- default\n\r\n"},
		{"yaml list", AppendYAMLList(nil, []string{"default", "t3", "t2"}), "---\n- default\n- t3\n- t2\n"},
		{"yaml empty", AppendYAMLList(nil, nil), "---\n"},
		{"ok empty", AppendOK(nil, nil), "OK 0\r\n\r\n"},
		{"error", AppendError(nil, ErrBadFormat), "BAD_FORMAT\r\n"},
		{"error too big", AppendError(nil, ErrJobTooBig), "JOB_TOO_BIG\r\n"},
		{"appends", AppendInserted([]byte("DELETED\r\n"), 2), "DELETED\r\nINSERTED 2\r\n"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, string(tc.got), tc.name)
	}
}

func TestReplyWords(t *testing.T) {
	words := map[string]string{
		Deleted: "DELETED", Released: "RELEASED", Buried: "BURIED", Touched: "TOUCHED",
		Kicked: "KICKED", Paused: "PAUSED", NotFound: "NOT_FOUND", NotIgnored: "NOT_IGNORED",
		TimedOut: "TIMED_OUT", DeadlineSoon: "DEADLINE_SOON", Draining: "DRAINING",
		OutOfMemory: "OUT_OF_MEMORY", InternalError: "INTERNAL_ERROR",
	}
	require.Len(t, words, 13)
	for got, word := range words {
		require.Equal(t, word+"\r\n", got)
	}
}

// Encoding a batch of replies into a buffer with room allocates nothing.
func TestEncodeAllocs(t *testing.T) {
	dst := make([]byte, 0, 4096)
	body := []byte("hello")
	items := []string{"default", "tube-1"}
	allocs := testing.AllocsPerRun(100, func() {
		b := dst[:0]
		b = AppendInserted(b, 12345)
		b = AppendBuriedID(b, 1)
		b = AppendReserved(b, 12345, body)
		b = AppendFound(b, 1, body)
		b = AppendUsing(b, "tube-1")
		b = AppendWatching(b, 2)
		b = AppendKickedN(b, 3)
		b = AppendYAMLList(b, items)
		b = AppendError(b, ErrBadFormat)
		b = append(b, Deleted...)
		_ = b
	})
	require.Zero(t, allocs)
}
