package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func listJobs(name string, state int8, offset uint64, count uint32) Command {
	c := named(OpListJobs, name)
	c.State, c.ID, c.Count = state, offset, count
	return c
}

// clear-tube and list-jobs, stalkd's own commands.
func TestDecodeAdminCommands(t *testing.T) {
	n200 := strings.Repeat("n", 200)
	runCases(t, []decodeCase{
		{"clear-tube", "clear-tube emails\r\n", 0, []Command{named(OpClearTube, "emails")}},
		{"clear-tube 200", "clear-tube " + n200 + "\r\n", 0, []Command{named(OpClearTube, n200)}},
		{"clear-tube bad name", "clear-tube -x\r\n", 0, []Command{bad(OpClearTube)}},
		{"clear-tube no name", "clear-tube \r\n", 0, []Command{bad(OpClearTube)}},
		{"clear-tube alone", "clear-tube\r\n", 0, []Command{unknown}},
		{"clear-tube two names", "clear-tube a b\r\n", 0, []Command{bad(OpClearTube)}},

		{"list-jobs ready", "list-jobs default ready 0 10\r\n", 0, []Command{listJobs("default", 0, 0, 10)}},
		{"list-jobs delayed", "list-jobs a delayed 5 1\r\n", 0, []Command{listJobs("a", 1, 5, 1)}},
		{"list-jobs buried", "list-jobs a buried 0 0\r\n", 0, []Command{listJobs("a", 2, 0, 0)}},
		{"list-jobs reserved", "list-jobs a reserved 4294967295 1000\r\n", 0, []Command{listJobs("a", 3, 4294967295, 1000)}},
		{"list-jobs count capped", "list-jobs a ready 0 4294967295\r\n", 0, []Command{listJobs("a", 0, 0, MaxListJobs)}},
		{"list-jobs bad state", "list-jobs a ready2 0 1\r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs state case", "list-jobs a READY 0 1\r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs bad name", "list-jobs -a ready 0 1\r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs missing count", "list-jobs a ready 0\r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs trailing", "list-jobs a ready 0 1 \r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs negative", "list-jobs a ready -1 1\r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs offset past 32 bits", "list-jobs a ready 4294967296 1\r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs two spaces", "list-jobs a  ready 0 1\r\n", 0, []Command{bad(OpListJobs)}},
		{"list-jobs alone", "list-jobs\r\n", 0, []Command{unknown}},
	})
}

func TestAdminEncoders(t *testing.T) {
	assert.Equal(t, "CLEARED 0\r\n", string(AppendCleared(nil, 0)))
	assert.Equal(t, "CLEARED 1234567\r\n", string(AppendCleared(nil, 1234567)))
	assert.Equal(t, "---\n", string(AppendIDList(nil, nil)))
	assert.Equal(t, "---\n- 1\n- 18446744073709551615\n", string(AppendIDList(nil, []uint64{1, 1<<64 - 1})))
	assert.Equal(t, "clear-tube", OpClearTube.String())
	assert.Equal(t, "list-jobs ", OpListJobs.Prefix())
}

// A dropped body is swallowed silently, whatever its size and however it arrives, and the
// next line is a command again.
func TestDropBody(t *testing.T) {
	for _, in := range []string{
		"put 0 0 0 5\r\nhello\r\nlist-tubes\r\n",
		"put 0 0 0 99999\r\n" + strings.Repeat("q", 99999) + "\r\nlist-tubes\r\n", // too big
		"put 0 0 0 10\r\nlist-tubes\r\nlist-tubes\r\n",                            // a body that looks like a command
	} {
		for _, piece := range []int{1, 7, len(in)} {
			d := NewDecoder(65535)
			var got []Op
			var buf []byte
			for off := 0; off < len(in); {
				end := min(off+piece, len(in))
				buf = append(buf, in[off:end]...)
				off = end
				for {
					cmd, n, ok := d.Decode(buf)
					buf = buf[n:]
					if !ok {
						break
					}
					assert.NoError(t, cmd.Err)
					got = append(got, cmd.Op)
					if cmd.Op == OpPutHeader {
						d.DropBody()
					}
				}
			}
			assert.Equal(t, []Op{OpPutHeader, OpListTubes}, got, "%.20q in pieces of %d", in, piece)
			assert.False(t, d.InBody())
		}
	}
}
