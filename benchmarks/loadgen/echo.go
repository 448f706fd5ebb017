package loadgen

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"sync"
)

// EchoServer is a trivial beanstalk responder with no queue: put is answered
// INSERTED, any reserve RESERVED with a fixed body (stamped with the current
// time, so e2e latency reads ~0), delete DELETED, use USING, watch and ignore
// WATCHING 1, stats an OK document with zero counts. It exists to measure the
// generator's own ceiling: the throughput the generator reaches against a
// server that costs next to nothing, on the same CPUs.
//
// One goroutine serves each connection. Close may be called from any goroutine.
type EchoServer struct {
	ln    net.Listener
	body  []byte
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
	r := bufio.NewReaderSize(nc, 16<<10)
	w := bufio.NewWriterSize(nc, 64<<10)
	body := append([]byte(nil), s.body...)
	var id uint64
	var num []byte
	for {
		line, err := r.ReadSlice('\n')
		if err != nil || len(line) < 2 {
			return
		}
		line = line[:len(line)-2]
		if !echoReply(r, w, line, body, &id, &num) {
			return
		}
		if r.Buffered() == 0 && w.Flush() != nil {
			return
		}
	}
}

// echoReply answers one command line; false means close the connection.
func echoReply(r *bufio.Reader, w *bufio.Writer, line, body []byte, id *uint64, num *[]byte) bool {
	switch {
	case hasWord(line, "put "):
		n, err := parseUint(line[bytes.LastIndexByte(line, ' ')+1:])
		if err != nil {
			w.WriteString("BAD_FORMAT\r\n")
			return true
		}
		if _, err := r.Discard(int(n) + 2); err != nil {
			return false
		}
		*id++
		*num = strconv.AppendUint(append((*num)[:0], "INSERTED "...), *id, 10)
		w.Write(append(*num, '\r', '\n'))
	case hasWord(line, "reserve"):
		*id++
		putStamp(body, nanotime())
		b := strconv.AppendUint(append((*num)[:0], "RESERVED "...), *id, 10)
		b = strconv.AppendUint(append(b, ' '), uint64(len(body)), 10)
		*num = b
		w.Write(append(b, '\r', '\n'))
		w.Write(body)
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
