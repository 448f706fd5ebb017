package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpNames(t *testing.T) {
	require.Equal(t, "put", OpPutHeader.String())
	require.Equal(t, "put", OpPut.String())
	require.Equal(t, "put ", OpPut.Prefix())
	require.Equal(t, "peek-ready", OpPeekReady.String())
	require.Equal(t, "reserve-with-timeout", OpReserveWithTimeout.String())
	require.Equal(t, "reserve-with-timeout ", OpReserveWithTimeout.Prefix())
	require.Equal(t, "pause-tube", OpPauseTube.Prefix())
	require.Equal(t, "<unknown>", OpNone.String())
	require.Equal(t, "<unknown>", Op(200).String())
	require.Equal(t, "<unknown>", Op(200).Prefix())

	// Every op but OpNone has a name, String is Prefix without its space, and the matching
	// table agrees with Prefix.
	for o := OpNone + 1; o < opCount; o++ {
		assert.NotEmpty(t, o.String())
		assert.Equal(t, strings.TrimSuffix(o.Prefix(), " "), o.String())
	}
	for _, v := range verbs {
		assert.Equal(t, v.prefix, v.op.Prefix())
	}
	require.Len(t, verbs, int(opCount)-2, "every op but OpNone and OpPut is matched by a prefix")
}

func TestWireError(t *testing.T) {
	require.Equal(t, "BAD_FORMAT", ErrBadFormat.Error())
	require.Equal(t, "UNKNOWN_COMMAND", ErrUnknownCommand.Error())
	require.Equal(t, "EXPECTED_CRLF", ErrExpectedCRLF.Error())
	require.Equal(t, "JOB_TOO_BIG", ErrJobTooBig.Error())
	var err error = ErrJobTooBig
	require.Equal(t, errJobTooBig, err)
}

func TestNameChars(t *testing.T) {
	var allowed []byte
	for c := range 256 {
		if nameChar[c] {
			allowed = append(allowed, byte(c))
		}
	}
	require.Equal(t, "$()+-./0123456789;ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", string(allowed))
}
