package loadgen

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// DefaultBufSize is the read and write buffer size of a Conn unless Dial is
// given another; it holds a pipelined window of small commands or one 64 KiB body.
const DefaultBufSize = 64 << 10

// Put parameters every generated job uses.
const (
	putPri = 1024
	putTTR = 60
)

// Conn is a minimal beanstalk protocol client on one TCP connection: buffered
// writes that go out on Flush, and replies parsed in place. It parses only what
// the generator needs and allocates nothing per command once its buffers exist.
//
// A Conn is owned by one goroutine; none of its methods may be called
// concurrently, except Close, which may be called from any goroutine to unblock
// a pending read.
type Conn struct {
	nc   net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
	skip int    // body+CRLF of the last reply, discarded at the next read
	big  []byte // holds bodies that do not fit the read buffer
	line []byte // scratch for command lines
}

// Dial connects to addr (host:port) with read and write buffers of bufSize
// bytes (DefaultBufSize if bufSize <= 0).
func Dial(addr string, bufSize int) (*Conn, error) { return DialTLS(addr, bufSize, nil) }

// DialTLS is Dial over TLS when tc is not nil: the handshake is done before
// it returns, so a run's timings never include it.
func DialTLS(addr string, bufSize int, tc *tls.Config) (*Conn, error) {
	nc, err := dialNet(addr, tc)
	if err != nil {
		return nil, err
	}
	return NewConn(nc, bufSize), nil
}

// dialTimeout bounds connecting, and the TLS handshake.
const dialTimeout = 10 * time.Second

// dialNet connects over TCP, then completes a TLS handshake if tc is set.
func dialNet(addr string, tc *tls.Config) (net.Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil || tc == nil {
		return nc, err
	}
	if tc.ServerName == "" && !tc.InsecureSkipVerify {
		tc = tc.Clone()
		tc.ServerName, _, _ = net.SplitHostPort(addr)
	}
	tlc := tls.Client(nc, tc)
	tlc.SetDeadline(time.Now().Add(dialTimeout))
	if err := tlc.Handshake(); err != nil {
		nc.Close()
		return nil, fmt.Errorf("loadgen: TLS handshake with %s: %w", addr, err)
	}
	tlc.SetDeadline(time.Time{})
	return tlc, nil
}

// NewConn wraps an established connection; the Conn owns nc from now on.
func NewConn(nc net.Conn, bufSize int) *Conn {
	if bufSize <= 0 {
		bufSize = DefaultBufSize
	}
	return &Conn{nc: nc, r: bufio.NewReaderSize(nc, bufSize), w: bufio.NewWriterSize(nc, bufSize),
		line: make([]byte, 0, 64)}
}

// Close closes the connection. Safe to call from another goroutine.
func (c *Conn) Close() error { return c.nc.Close() }

// Flush sends every buffered command.
func (c *Conn) Flush() error { return c.w.Flush() }

// Buffered reports how many reply bytes can be read without a system call.
func (c *Conn) Buffered() int { return c.r.Buffered() - c.skip }

// WritePut buffers `put 1024 0 60 <len>` and the body. The body is copied: the
// caller may change it as soon as WritePut returns.
func (c *Conn) WritePut(body []byte) error {
	b := append(c.line[:0], "put "...)
	b = strconv.AppendUint(b, putPri, 10)
	b = append(b, " 0 "...)
	b = strconv.AppendUint(b, putTTR, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(len(body)), 10)
	b = append(b, '\r', '\n')
	c.line = b
	c.w.Write(b)
	c.w.Write(body)
	_, err := c.w.WriteString("\r\n")
	return err
}

// WriteReserve buffers `reserve-with-timeout <timeout>`, or a plain `reserve`
// when timeout is negative.
func (c *Conn) WriteReserve(timeout int) error {
	if timeout < 0 {
		_, err := c.w.WriteString("reserve\r\n")
		return err
	}
	b := append(c.line[:0], "reserve-with-timeout "...)
	b = strconv.AppendInt(b, int64(timeout), 10)
	b = append(b, '\r', '\n')
	c.line = b
	_, err := c.w.Write(b)
	return err
}

// WriteDelete buffers `delete <id>`.
func (c *Conn) WriteDelete(id uint64) error {
	b := append(c.line[:0], "delete "...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, '\r', '\n')
	c.line = b
	_, err := c.w.Write(b)
	return err
}

// WriteCommand buffers one command line; the CRLF is added here.
func (c *Conn) WriteCommand(cmd string) error {
	c.w.WriteString(cmd)
	_, err := c.w.WriteString("\r\n")
	return err
}

// Do sends one command line, flushes, and reads its reply.
func (c *Conn) Do(cmd string) (Reply, error) {
	c.WriteCommand(cmd)
	if err := c.Flush(); err != nil {
		return Reply{}, err
	}
	return c.ReadReply()
}

// Expect is Do that fails unless the reply is of kind want.
func (c *Conn) Expect(cmd string, want Kind) (Reply, error) {
	r, err := c.Do(cmd)
	if err == nil && r.Kind != want {
		err = fmt.Errorf("loadgen: %q: want %v, got %q", cmd, want, r.Line)
	}
	return r, err
}

// ReadReply reads and parses the next reply. Its Line (replies without a body)
// and Body (RESERVED, FOUND, OK) are views valid until the next ReadReply.
func (c *Conn) ReadReply() (Reply, error) {
	if c.skip > 0 {
		c.r.Discard(c.skip)
		c.skip = 0
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		if err == bufio.ErrBufferFull {
			err = fmt.Errorf("%w: reply line longer than %d bytes", ErrProtocol, c.r.Size())
		}
		return Reply{}, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return Reply{}, fmt.Errorf("%w: line without CRLF: %q", ErrProtocol, line)
	}
	r, n, hasBody, err := parseLine(line[:len(line)-2])
	if err != nil || !hasBody {
		if err != nil {
			err = fmt.Errorf("%w: %q", err, line)
		}
		return r, err
	}
	r.Line = nil // a Peek below may move the buffer under the line
	r.Body, err = c.readBody(int(n))
	return r, err
}

// readBody returns a view of the next n body bytes and checks the CRLF after them.
func (c *Conn) readBody(n int) ([]byte, error) {
	var b []byte
	var err error
	if n+2 <= c.r.Size() {
		b, err = c.r.Peek(n + 2)
		c.skip = len(b)
	} else {
		if cap(c.big) < n+2 {
			c.big = make([]byte, n+2)
		}
		b = c.big[:n+2]
		_, err = io.ReadFull(c.r, b)
	}
	if err != nil {
		return nil, err
	}
	if b[n] != '\r' || b[n+1] != '\n' {
		return nil, fmt.Errorf("%w: body not followed by CRLF", ErrProtocol)
	}
	return b[:n], nil
}
