package loadgen

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// EchoServer is a trivial beanstalk responder with no queue: put is answered
// INSERTED, any reserve RESERVED with a fixed body whose first 8 bytes repeat
// those of the latest put body (so e2e latency reads as the time since the
// latest put, whether the echo runs in the generator's process or not), delete DELETED, use USING, watch and ignore
// WATCHING 1, stats an OK document with zero counts. It exists to measure the
// generator's own ceiling: the throughput the generator reaches against a
// server that costs next to nothing, on the same CPUs.
//
// One goroutine serves each connection. Close may be called from any goroutine.
type EchoServer struct {
	ln    net.Listener
	body  []byte
	stamp atomic.Int64 // first 8 bytes of the latest put body
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// StartEcho listens on addr ("127.0.0.1:0" for any free port) and serves
// reserves with bodies of bodySize bytes (at least stampLen).
func StartEcho(addr string, bodySize int) (*EchoServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &EchoServer{ln: ln, body: bytes.Repeat([]byte{'e'}, max(bodySize, stampLen)),
		conns: make(map[net.Conn]struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the bound host:port.
func (s *EchoServer) Addr() string { return s.ln.Addr().String() }

// Close stops accepting, closes every connection and waits for their goroutines.
func (s *EchoServer) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *EchoServer) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[nc] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(nc)
	}
}

func (s *EchoServer) serve(nc net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, nc)
		s.mu.Unlock()
		nc.Close()
	}()
	e := &echoConn{s: s, r: bufio.NewReaderSize(nc, 16<<10), w: bufio.NewWriterSize(nc, 64<<10),
		body: append([]byte(nil), s.body...)}
	for {
		line, err := e.r.ReadSlice('\n')
		if err != nil || len(line) < 2 {
			return
		}
		if !e.reply(line[:len(line)-2]) {
			return
		}
		if e.r.Buffered() == 0 && e.w.Flush() != nil {
			return
		}
	}
}

// echoConn is one echo connection's state, owned by its goroutine.
type echoConn struct {
	s    *EchoServer
	r    *bufio.Reader
	w    *bufio.Writer
	body []byte // RESERVED body; its first bytes carry the latest put stamp
	id   uint64
	num  []byte
}

// reply answers one command line; false means close the connection.
func (e *echoConn) reply(line []byte) bool {
	w := e.w
	switch {
	case hasWord(line, "put "):
		return e.put(line)
	case hasWord(line, "reserve"):
		e.id++
		putStamp(e.body, e.s.stamp.Load())
		b := strconv.AppendUint(append(e.num[:0], "RESERVED "...), e.id, 10)
		b = strconv.AppendUint(append(b, ' '), uint64(len(e.body)), 10)
		e.num = append(b, '\r', '\n')
		w.Write(e.num)
		w.Write(e.body)
		w.WriteString("\r\n")
	case hasWord(line, "delete "):
		w.WriteString("DELETED\r\n")
	case hasWord(line, "use "):
		w.WriteString("USING ")
		w.Write(line[4:])
		w.WriteString("\r\n")
	case hasWord(line, "watch "), hasWord(line, "ignore "):
		w.WriteString("WATCHING 1\r\n")
	case hasWord(line, "stats"):
		const doc = "---\ncurrent-jobs-ready: 0\ncurrent-jobs-reserved: 0\n"
		w.WriteString("OK " + strconv.Itoa(len(doc)) + "\r\n" + doc + "\r\n")
	case hasWord(line, "quit"):
		return false
	default:
		w.WriteString("UNKNOWN_COMMAND\r\n")
	}
	return true
}

// put skips the body, keeping its stamp (the e2e put time) for later
// reserves, and answers INSERTED.
func (e *echoConn) put(line []byte) bool {
	n, err := parseUint(line[bytes.LastIndexByte(line, ' ')+1:])
	if err != nil {
		e.w.WriteString("BAD_FORMAT\r\n")
		return true
	}
	if n >= stampLen {
		head, err := e.r.Peek(stampLen)
		if err != nil {
			return false
		}
		if t, ok := readStamp(head); ok {
			e.s.stamp.Store(t)
		}
	}
	if _, err := e.r.Discard(int(n) + 2); err != nil {
		return false
	}
	e.id++
	e.num = strconv.AppendUint(append(e.num[:0], "INSERTED "...), e.id, 10)
	e.num = append(e.num, '\r', '\n')
	e.w.Write(e.num)
	return true
}
