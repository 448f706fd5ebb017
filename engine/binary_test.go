package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// allBytes is every byte value, twice, with "\r\n" sequences inside.
func allBytes() []byte {
	var b bytes.Buffer
	for i := 0; i < 512; i++ {
		b.WriteByte(byte(i))
	}
	b.WriteString("\r\n\r\nput 0 0 1 1\r\n\r")
	return b.Bytes()
}

func TestBinaryBodyEveryByte(t *testing.T) {
	c := dial(t, startServer(t))
	body := string(allBytes())
	n := len(body)
	c.Do(fmt.Sprintf("put 0 0 60 %d\r\n%s\r\n", n, body), "INSERTED 1\r\n")
	c.Do("peek 1\r\n", fmt.Sprintf("FOUND 1 %d\r\n%s\r\n", n, body))
	c.Do("reserve\r\n", fmt.Sprintf("RESERVED 1 %d\r\n%s\r\n", n, body))
	c.Do("list-tube-used\r\n", "USING default\r\n")
}

func TestBytesOneAtATime(t *testing.T) {
	c := dial(t, startServer(t))
	body := string(allBytes())
	req := fmt.Sprintf("put 0 0 60 %d\r\n%s\r\nuse bytewise\r\n%s\r\nlist-tube-used\r\n",
		len(body), body, strings.Repeat("z", 300))
	for i := 0; i < len(req); i++ {
		c.Send(req[i : i+1])
	}
	c.Expect("INSERTED 1\r\nUSING bytewise\r\nBAD_FORMAT\r\nUSING bytewise\r\n")
	c.Do("peek 1\r\n", fmt.Sprintf("FOUND 1 %d\r\n%s\r\n", len(body), body))
}

func TestMaxJobSizeBoundary(t *testing.T) {
	s := startServer(t, func(c *Config) { c.MaxJobSize = 1 << 20 })
	c := dial(t, s)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // exactly 1 MiB
	c.Send(fmt.Sprintf("put 0 0 60 %d\r\n", len(big)))
	c.Send(string(big) + "\r\n")
	c.Expect("INSERTED 1\r\n")
	c.Send(fmt.Sprintf("put 0 0 60 %d\r\n%s", len(big)+1, big))
	c.Send("x\r\nlist-tube-used\r\n")
	c.Expect("JOB_TOO_BIG\r\nUSING default\r\n")
	c.Do("reserve\r\n", fmt.Sprintf("RESERVED 1 %d\r\n%s\r\n", len(big), big))
	st := s.Queue().Stats()
	require.Equal(t, uint64(1), st.TotalJobs)
}
