package difftest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
)

// reply is one reply read from a server, or a pseudo-reply that records what
// the reader saw instead of a complete reply (end of stream, a timeout, bytes
// that do not form a reply).
type reply struct {
	head    string // the reply line without its CRLF; the raw bytes when note is set
	body    []byte // body of a RESERVED/FOUND/OK reply, without the trailing CRLF
	hasBody bool
	note    string // "" for a well-formed reply; else what went wrong ("EOF", "timeout", ...)
}

// Pseudo-reply notes.
const (
	noteEOF     = "EOF"     // the server closed the connection
	noteTimeout = "timeout" // no complete reply in time; head holds what had arrived
)

// String renders the reply as the exact bytes on the wire, or as a marker
// <note ...> for a pseudo-reply, so transcripts can be compared as strings.
func (r reply) String() string {
	if r.note != "" {
		if r.head == "" && r.body == nil {
			return "<" + r.note + ">"
		}
		return "<" + r.note + " after " + strconv.Quote(r.head+string(r.body)) + ">"
	}
	if !r.hasBody {
		return r.head + "\r\n"
	}
	return r.head + "\r\n" + string(r.body) + "\r\n"
}

// withBody returns r with a new body and the byte count in its head updated
// to match, as the server would have sent it.
func (r reply) withBody(body []byte) reply {
	i := strings.LastIndexByte(r.head, ' ')
	r.head = r.head[:i+1] + strconv.Itoa(len(body))
	r.body = body
	return r
}

// bodySize reports whether a reply line announces a body (RESERVED <id> <n>,
// FOUND <id> <n>, OK <n>) and its size.
func bodySize(head string) (int, bool) {
	f := strings.Split(head, " ")
	switch {
	case len(f) == 3 && (f[0] == "RESERVED" || f[0] == "FOUND"):
	case len(f) == 2 && f[0] == "OK":
	default:
		return 0, false
	}
	n, err := strconv.ParseUint(f[len(f)-1], 10, 31)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

// readReply reads one complete reply: a line ending in CRLF and, when the
// line announces one, a body of that many bytes followed by CRLF. Anything
// else becomes a pseudo-reply (see reply.note); the caller stops reading
// after one.
func readReply(br *bufio.Reader) reply {
	line, err := br.ReadString('\n')
	if err != nil {
		return failed(line, nil, err)
	}
	if !strings.HasSuffix(line, "\r\n") {
		return reply{head: line, note: "line ends in a bare LF"}
	}
	head := line[:len(line)-2]
	n, ok := bodySize(head)
	if !ok {
		return reply{head: head}
	}
	buf := make([]byte, n+2)
	k, err := io.ReadFull(br, buf)
	if err != nil {
		return failed(line, buf[:k], err)
	}
	if string(buf[n:]) != "\r\n" {
		return reply{head: line, body: buf, note: "body not followed by CRLF"}
	}
	return reply{head: head, body: buf[:n], hasBody: true}
}

// failed turns a read error into a pseudo-reply that keeps the partial bytes.
func failed(head string, body []byte, err error) reply {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return reply{head: head, body: body, note: noteEOF}
	case errors.As(err, &ne) && ne.Timeout():
		return reply{head: head, body: body, note: noteTimeout}
	default:
		return reply{head: head, body: body, note: err.Error()}
	}
}

// parseReplies splits a literal transcript (a step's want) into replies. A
// trailing "<EOF>" means the server must close the connection after them.
func parseReplies(s string) (rs []reply, eof bool) {
	s, eof = strings.CutSuffix(s, "<EOF>")
	br := bufio.NewReader(strings.NewReader(s))
	for {
		if _, err := br.Peek(1); err != nil {
			return rs, eof
		}
		r := readReply(br)
		if r.note != "" {
			panic("difftest: malformed want transcript " + strconv.Quote(s))
		}
		rs = append(rs, r)
	}
}

// render joins replies into one comparable transcript.
func render(rs []reply) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.String())
	}
	return b.String()
}

// okDoc is the literal reply "OK <n>\r\n<body>\r\n" for a script's want.
func okDoc(body string) string {
	return "OK " + strconv.Itoa(len(body)) + "\r\n" + body + "\r\n"
}

// okList is the literal reply carrying the YAML list of items.
func okList(items ...string) string {
	body := "---\n"
	for _, it := range items {
		body += "- " + it + "\n"
	}
	return okDoc(body)
}
