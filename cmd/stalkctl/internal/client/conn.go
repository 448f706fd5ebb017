package client

import (
	"bufio"
	"context"
	"fmt"
	"github.com/stalkd/stalkd/codec"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultPort is the beanstalk protocol's port, added to an address that
// names only a host.
const DefaultPort = "11300"

// maxReplyBody bounds a reply body the client will read (a job body is at
// most 1 GiB on the server; a stats document is a few KiB).
const maxReplyBody = 1<<30 + 2

// Conn is one connection to a beanstalk server. Not safe for concurrent
// use; see the package doc.
type Conn struct {
	// Timeout bounds each command's round trip (write and read); zero
	// means no deadline. Set it before issuing commands.
	Timeout time.Duration

	nc net.Conn
	r  *bufio.Reader
	w  *bufio.Writer

	interrupted atomic.Bool // Interrupt was called: every deadline is past
}

// Reply is one reply: its first word, the words after it, the whole line
// (without CRLF) and, for replies that carry data, the body.
type Reply struct {
	Word string
	Args []string
	Line string
	Body []byte
}

// Network splits an address as stalkctl accepts it: "unix:/path" is a Unix
// socket; anything else is TCP "host:port", where a missing port means
// DefaultPort.
func Network(addr string) (network, address string) {
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		return "unix", p
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		// No port (or a bare IPv6 address): add the default one.
		return "tcp", net.JoinHostPort(strings.Trim(addr, "[]"), DefaultPort)
	}
	return "tcp", addr
}

// Dial connects to addr (see Network) within ctx.
func Dial(ctx context.Context, addr string) (*Conn, error) {
	network, address := Network(addr)
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return NewConn(nc), nil
}

// NewConn wraps an established connection; the Conn owns it from then on.
func NewConn(nc net.Conn) *Conn {
	return &Conn{nc: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}
}

// Close sends quit and closes the connection.
func (c *Conn) Close() error {
	c.w.WriteString("quit\r\n")
	c.w.Flush()
	return c.nc.Close()
}

// Interrupt makes the command in progress, and every later one, fail at
// once with a timeout error. Unlike the other methods it may be called
// from any goroutine (a signal handler's), concurrently with a command.
func (c *Conn) Interrupt() {
	c.interrupted.Store(true)
	c.nc.SetDeadline(pastDeadline)
}

// pastDeadline is a deadline long gone.
var pastDeadline = time.Unix(1, 0)

// deadline arms the per-command deadline.
func (c *Conn) deadline() {
	switch {
	case c.interrupted.Load():
		c.nc.SetDeadline(pastDeadline)
	case c.Timeout > 0:
		c.nc.SetDeadline(time.Now().Add(c.Timeout))
	}
}

// queue buffers one command line (and body, for put) without sending it.
func (c *Conn) queue(line string, body []byte) {
	c.w.WriteString(line)
	c.w.WriteString("\r\n")
	if body != nil {
		c.w.Write(body)
		c.w.WriteString("\r\n")
	}
}

// flush sends what queue buffered.
func (c *Conn) flush() error {
	c.deadline()
	return c.w.Flush()
}

// Do sends one command line (and body, for put) and reads its reply. The
// replies OK, FOUND and RESERVED carry a body whose length is their last
// argument; Do reads it into Reply.Body.
func (c *Conn) Do(line string, body []byte) (Reply, error) {
	c.queue(line, body)
	if err := c.flush(); err != nil {
		return Reply{}, err
	}
	return c.read()
}

// read reads one reply, with its body when the word carries one.
func (c *Conn) read() (Reply, error) {
	c.deadline()
	line, err := c.r.ReadString('\n')
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Reply{}, fmt.Errorf("reading the reply: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	f := strings.Fields(line)
	if len(f) == 0 {
		return Reply{}, fmt.Errorf("%w: empty line", ErrProtocol)
	}
	r := Reply{Word: f[0], Args: f[1:], Line: line}
	switch r.Word {
	case "OK", "FOUND", "RESERVED":
		n, ok := codec.ReplyBodySize(line)
		if !ok || n > maxReplyBody {
			return r, fmt.Errorf("%w %q", ErrProtocol, line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return r, fmt.Errorf("reading the reply body: %w", err)
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return r, fmt.Errorf("%w: reply body not followed by CRLF", ErrProtocol)
		}
		r.Body = buf[:n]
	}
	return r, nil
}

// uint returns reply argument i as an unsigned integer.
func (r Reply) uint(i int) (uint64, error) {
	if i >= len(r.Args) {
		return 0, fmt.Errorf("%w %q", ErrProtocol, r.Line)
	}
	n, err := strconv.ParseUint(r.Args[i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w %q", ErrProtocol, r.Line)
	}
	return n, nil
}
