package engine

import (
	"io"
	"net"
	"strconv"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// BenchmarkPipelinedCycle measures put + reserve + delete over one
// connection, 64 cycles per write. allocs/op counts both ends; the client
// side reuses its buffers.
func BenchmarkPipelinedCycle(b *testing.B) {
	s := startServer(b, func(c *Config) { c.Logger = zerolog.Nop() })
	benchCycle(b, addrOf(b, s))
}

// BenchmarkPipelinedCycleReference runs the same against beanstalkd, for
// comparison, when it is on PATH.
func BenchmarkPipelinedCycleReference(b *testing.B) {
	benchCycle(b, enginetest.Reference(b).Addr())
}

func benchCycle(b *testing.B, addr string) {
	const batch = 64
	c, err := net.Dial("tcp", addr)
	require.NoError(b, err)
	defer c.Close()
	var req []byte
	want := 0
	for id := 1; id <= b.N; id++ {
		n := strconv.Itoa(id)
		req = append(req, "put 0 0 60 5\r\nhello\r\nreserve\r\ndelete "...)
		req = append(req, n...)
		req = append(req, "\r\n"...)
		want += len("INSERTED \r\nRESERVED  5\r\nhello\r\nDELETED\r\n") + 2*len(n)
	}
	per := len(req) / b.N
	buf := make([]byte, 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	sent, got := 0, 0
	for got < want {
		if sent < len(req) {
			end := min(len(req), sent+batch*per)
			for end < len(req) && req[end-1] != '\n' {
				end++
			}
			_, err := c.Write(req[sent:end])
			require.NoError(b, err)
			sent = end
		}
		n, err := c.Read(buf)
		if err != nil && err != io.EOF {
			require.NoError(b, err)
		}
		got += n
	}
}
