package robustness

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// conn is a raw beanstalk client connection: one command at a time, every
// read and write bounded by a deadline (a reply that does not come in
// time is an outcome not known).
type conn struct {
	c net.Conn
	r *bufio.Reader
}

func dial(addr string) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 4096)}, nil
}

func (c *conn) close() { _ = c.c.Close() }

// do sends line (and body, for a put) and reads one reply: its first line
// and, for RESERVED, FOUND and OK, its data.
func (c *conn) do(line string, body []byte, within time.Duration) (string, []byte, error) {
	_ = c.c.SetDeadline(time.Now().Add(within))
	msg := line + "\r\n"
	if body != nil {
		msg += string(body) + "\r\n"
	}
	if _, err := io.WriteString(c.c, msg); err != nil {
		return "", nil, err
	}
	reply, err := c.r.ReadString('\n')
	if err != nil {
		return "", nil, err
	}
	reply = strings.TrimSuffix(reply, "\r\n")
	f := strings.Fields(reply)
	var n int
	switch {
	case len(f) == 3 && (f[0] == "RESERVED" || f[0] == "FOUND"):
		n, err = strconv.Atoi(f[2])
	case len(f) == 2 && f[0] == "OK":
		n, err = strconv.Atoi(f[1])
	default:
		return reply, nil, nil
	}
	if err != nil || n < 0 || n > 1<<20 {
		return reply, nil, fmt.Errorf("bad length in %q", reply)
	}
	data := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, data); err != nil {
		return reply, nil, err
	}
	if string(data[n:]) != "\r\n" {
		return reply, nil, fmt.Errorf("no CRLF after the data of %q", reply)
	}
	return reply, data[:n], nil
}
