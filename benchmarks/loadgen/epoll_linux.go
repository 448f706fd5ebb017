package loadgen

import (
	"bytes"
	"errors"
	"net"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// ServeEchoEpoll answers like EchoServer, but from one OS thread running an
// epoll loop over non-blocking sockets, the way the reference server is
// built. A goroutine per connection pays the Go netpoller's park and wake on
// every round trip, which with 100 request/response connections made the Go
// echo slower than the reference itself; this loop costs about what a C
// server costs, so the ceiling it gives is a ceiling.
//
// It listens on addr (an IPv4 host:port; port 0 picks one), calls ready
// with the bound address, and serves until stop is closed. It owns every
// socket it opens and closes them all before returning. Linux only.
func ServeEchoEpoll(addr string, bodySize int, ready func(string), stop <-chan struct{}) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	lfd, bound, err := listenRaw(addr)
	if err != nil {
		return err
	}
	defer syscall.Close(lfd)
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	defer syscall.Close(ep)
	if err := epollCtl(ep, syscall.EPOLL_CTL_ADD, lfd, syscall.EPOLLIN); err != nil {
		return err
	}
	l := &epollLoop{ep: ep, lfd: lfd, conns: map[int32]*epollConn{},
		body: bytes.Repeat([]byte{'e'}, max(bodySize, stampLen))}
	defer l.closeAll()
	ready(bound)
	events := make([]syscall.EpollEvent, 256)
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		n, err := epollWait(ep, events, 100)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return err
		}
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd == int32(lfd) {
				l.accept()
			} else if c := l.conns[ev.Fd]; c != nil {
				l.serve(c, ev.Events)
			}
		}
	}
}

// maxEchoLine bounds the unparsed input the epoll echo keeps per connection.
const maxEchoLine = 1 << 20

// epollLoop is the state of one ServeEchoEpoll; only its thread touches it.
type epollLoop struct {
	ep, lfd int
	conns   map[int32]*epollConn
	body    []byte // RESERVED body, stamped with the latest put's first 8 bytes
	id      uint64
}

// epollConn is one connection: unparsed input, unsent output, and the
// bytes of a put body still to skip before its INSERTED is due.
type epollConn struct {
	fd       int
	in, out  []byte
	skip     int
	inserted bool // an INSERTED is owed once skip reaches 0
	blocked  bool // registered for EPOLLOUT: the socket would not take c.out
}

func listenRaw(addr string) (int, string, error) {
	ta, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return 0, "", err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, "", err
	}
	syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	sa := &syscall.SockaddrInet4{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To4())
	if err = syscall.Bind(fd, sa); err == nil {
		err = syscall.Listen(fd, 1024)
	}
	if err != nil {
		syscall.Close(fd)
		return 0, "", err
	}
	got, _ := syscall.Getsockname(fd)
	port := got.(*syscall.SockaddrInet4).Port
	return fd, net.JoinHostPort(ta.IP.String(), strconv.Itoa(port)), nil
}

// The loop's hot system calls are raw: they do not tell the Go scheduler
// they are in the kernel. Read and write never block (the sockets are
// non-blocking); epoll_wait blocks for at most 100 ms, holding this locked
// thread's P meanwhile. Going through syscall.Syscall instead made the
// scheduler hand the P off and take it back around every wait, which cost
// more than the echo's own work.
func epollWait(ep int, events []syscall.EpollEvent, msec int) (int, error) {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(ep),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(msec), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func rawIO(trap uintptr, fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if errno != 0 {
		return -1, errno
	}
	return int(n), nil
}

func epollCtl(ep, op, fd int, events uint32) error {
	return syscall.EpollCtl(ep, op, fd, &syscall.EpollEvent{Events: events, Fd: int32(fd)})
}

func (l *epollLoop) accept() {
	for {
		fd, _, err := syscall.Accept4(l.lfd, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		if err != nil {
			return // EAGAIN: accepted everything pending
		}
		syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		if epollCtl(l.ep, syscall.EPOLL_CTL_ADD, fd, syscall.EPOLLIN) != nil {
			syscall.Close(fd)
			continue
		}
		l.conns[int32(fd)] = &epollConn{fd: fd, in: make([]byte, 0, 16<<10)}
	}
}

func (l *epollLoop) closeConn(c *epollConn) {
	delete(l.conns, int32(c.fd))
	syscall.Close(c.fd)
}

func (l *epollLoop) closeAll() {
	for _, c := range l.conns {
		l.closeConn(c)
	}
}

// serve reads what has arrived, answers every complete command, and writes
// the answers; output the socket will not take waits for EPOLLOUT, and
// input waits until it has gone.
func (l *epollLoop) serve(c *epollConn, events uint32) {
	if len(c.out) == 0 && events&(syscall.EPOLLIN|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
		if len(c.in) == cap(c.in) {
			if cap(c.in) >= maxEchoLine {
				l.closeConn(c) // no line end in 1 MiB: not a client of ours
				return
			}
			c.in = append(c.in, make([]byte, cap(c.in))...)[:len(c.in)]
		}
		n, err := rawIO(syscall.SYS_READ, c.fd, c.in[len(c.in):cap(c.in)])
		if n <= 0 {
			if !errors.Is(err, syscall.EAGAIN) {
				l.closeConn(c)
			}
			return
		}
		c.in = c.in[:len(c.in)+n]
		if !l.answer(c) {
			l.closeConn(c)
			return
		}
	}
	l.flush(c)
}

// flush writes pending output, switching the interest to EPOLLOUT while the
// socket is full and back to EPOLLIN once it has taken everything.
func (l *epollLoop) flush(c *epollConn) {
	for len(c.out) > 0 {
		n, err := rawIO(syscall.SYS_WRITE, c.fd, c.out)
		if n > 0 {
			c.out = c.out[n:]
			continue
		}
		if errors.Is(err, syscall.EAGAIN) {
			if !c.blocked {
				c.blocked = true
				epollCtl(l.ep, syscall.EPOLL_CTL_MOD, c.fd, syscall.EPOLLOUT)
			}
			return
		}
		l.closeConn(c)
		return
	}
	c.out = c.out[:0:cap(c.out)]
	if c.blocked {
		c.blocked = false
		epollCtl(l.ep, syscall.EPOLL_CTL_MOD, c.fd, syscall.EPOLLIN)
	}
}

// answer consumes every complete command in c.in; false closes the connection.
func (l *epollLoop) answer(c *epollConn) bool {
	in := c.in
	for {
		if c.skip > 0 {
			k := min(c.skip, len(in))
			c.skip -= k
			in = in[k:]
			if c.skip > 0 {
				break
			}
		}
		if c.inserted {
			c.inserted = false
			l.id++
			c.out = strconv.AppendUint(append(c.out, "INSERTED "...), l.id, 10)
			c.out = append(c.out, '\r', '\n')
		}
		i := bytes.Index(in, []byte("\r\n"))
		if i < 0 {
			break
		}
		line := in[:i]
		in = in[i+2:]
		if !l.command(c, line, in) {
			return false
		}
	}
	c.in = append(c.in[:0], in...)
	return true
}

// command answers one line; a put arms c.skip for its body (rest is what
// follows the line, for the stamp).
func (l *epollLoop) command(c *epollConn, line, rest []byte) bool {
	switch {
	case hasWord(line, "put "):
		n, err := parseUint(line[bytes.LastIndexByte(line, ' ')+1:])
		if err != nil {
			c.out = append(c.out, "BAD_FORMAT\r\n"...)
			return true
		}
		if t, ok := readStamp(rest); ok && n >= stampLen {
			putStamp(l.body, t)
		}
		c.skip, c.inserted = int(n)+2, true
	case hasWord(line, "reserve"):
		l.id++
		c.out = strconv.AppendUint(append(c.out, "RESERVED "...), l.id, 10)
		c.out = strconv.AppendUint(append(c.out, ' '), uint64(len(l.body)), 10)
		c.out = append(append(append(c.out, '\r', '\n'), l.body...), '\r', '\n')
	case hasWord(line, "delete "):
		c.out = append(c.out, "DELETED\r\n"...)
	case hasWord(line, "use "):
		c.out = append(append(append(c.out, "USING "...), line[4:]...), '\r', '\n')
	case hasWord(line, "watch "), hasWord(line, "ignore "):
		c.out = append(c.out, "WATCHING 1\r\n"...)
	case hasWord(line, "quit"):
		return false
	default:
		c.out = append(c.out, "UNKNOWN_COMMAND\r\n"...)
	}
	return true
}
