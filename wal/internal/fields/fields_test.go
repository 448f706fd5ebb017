package fields

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

var errBad = errors.New("bad")

func TestReader(t *testing.T) {
	b := []byte{7}
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -5)
	b = binary.AppendUvarint(b, 1<<32-1)
	b = binary.AppendUvarint(b, 3)
	b = append(b, "abcZ"...)
	d := Reader{B: b, Malformed: errBad}
	assert.Equal(t, byte(7), d.Byte())
	assert.Equal(t, uint64(300), d.Uvarint())
	assert.Equal(t, int64(-5), d.Varint())
	assert.Equal(t, uint32(1<<32-1), d.Uint32())
	v := d.Bytes()
	assert.Equal(t, "abc", string(v))
	assert.Equal(t, 3, cap(v), "capped: appending cannot overwrite the rest")
	assert.NoError(t, d.Err)
	assert.Equal(t, "Z", string(d.B))

	for name, in := range map[string][]byte{
		"empty byte":   {},
		"short varint": {0x80},
		"long bytes":   {5, 'a'},
		"past 32 bits": binary.AppendUvarint(nil, 1<<32),
	} {
		d := Reader{B: in, Malformed: errBad}
		switch name {
		case "empty byte":
			d.Byte()
		case "short varint":
			d.Uvarint()
		case "long bytes":
			assert.Nil(t, d.Bytes())
		case "past 32 bits":
			d.Uint32()
		}
		assert.ErrorIs(t, d.Err, errBad, name)
		assert.Zero(t, d.Uvarint(), "%s: a failure sticks", name)
	}
}

func TestVarintMatchesBinary(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64} {
		d := Reader{B: binary.AppendVarint(nil, v), Malformed: errBad}
		assert.Equal(t, v, d.Varint(), "value %d", v)
		assert.NoError(t, d.Err)
		assert.Empty(t, d.B)
	}
	d := Reader{B: []byte{0x80}, Malformed: errBad}
	assert.Zero(t, d.Varint(), "truncated")
	assert.ErrorIs(t, d.Err, errBad)
}
