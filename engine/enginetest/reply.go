package enginetest

import (
	"bufio"
	"errors"
	"github.com/stalkd/stalkd/codec"
	"io"
	"net"
	"strconv"
	"strings"
)

// Reply is one reply read from a server, or a pseudo-reply recording what the
// reader saw instead of a complete reply (end of stream, a timeout, bytes that
// do not form a reply).
type Reply struct {
	Head    string // the reply line without its CRLF; the raw bytes when Note is set
	Body    []byte // body of a RESERVED/FOUND/OK reply, without the trailing CRLF
	HasBody bool
	Note    string // "" for a well-formed reply; else what went wrong (NoteEOF, NoteTimeout, ...)
}

// Pseudo-reply notes.
const (
	NoteEOF     = "EOF"     // the server closed the connection
	NoteTimeout = "timeout" // no complete reply in time; Head holds what had arrived
)

// String renders the reply as the exact bytes on the wire, or as a marker
// <note ...> for a pseudo-reply, so transcripts compare as strings.
func (r Reply) String() string {
	if r.Note != "" {
		if r.Head == "" && r.Body == nil {
			return "<" + r.Note + ">"
		}
		return "<" + r.Note + " after " + strconv.Quote(r.Head+string(r.Body)) + ">"
	}
	if !r.HasBody {
		return r.Head + "\r\n"
	}
	return r.Head + "\r\n" + string(r.Body) + "\r\n"
}

// WithBody returns r with a new body and the byte count in its head updated
// to match, as the server would have sent it.
func (r Reply) WithBody(body []byte) Reply {
	i := strings.LastIndexByte(r.Head, ' ')
	r.Head = r.Head[:i+1] + strconv.Itoa(len(body))
	r.Body = body
	return r
}

// ReadReply reads one complete reply: a line ending in CRLF and, when the
// line announces one, a body of that many bytes followed by CRLF. Anything
// else becomes a pseudo-reply (see Reply.Note); the caller stops reading
// after one.
func ReadReply(br *bufio.Reader) Reply {
	line, err := br.ReadString('\n')
	if err != nil {
		return failed(line, nil, err)
	}
	if !strings.HasSuffix(line, "\r\n") {
		return Reply{Head: line, Note: "line ends in a bare LF"}
	}
	head := line[:len(line)-2]
	n, ok := codec.ReplyBodySize(head)
	if !ok {
		return Reply{Head: head}
	}
	buf := make([]byte, n+2)
	k, err := io.ReadFull(br, buf)
	if err != nil {
		return failed(line, buf[:k], err)
	}
	if string(buf[n:]) != "\r\n" {
		return Reply{Head: line, Body: buf, Note: "body not followed by CRLF"}
	}
	return Reply{Head: head, Body: buf[:n], HasBody: true}
}

// failed turns a read error into a pseudo-reply that keeps the partial bytes.
func failed(head string, body []byte, err error) Reply {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return Reply{Head: head, Body: body, Note: NoteEOF}
	case errors.As(err, &ne) && ne.Timeout():
		return Reply{Head: head, Body: body, Note: NoteTimeout}
	default:
		return Reply{Head: head, Body: body, Note: err.Error()}
	}
}

// ParseReplies splits a literal transcript into replies. A trailing "<EOF>"
// means the server must close the connection after them. It panics on bytes
// that do not form replies: a literal is the test's own text.
func ParseReplies(s string) (rs []Reply, eof bool) {
	s, eof = strings.CutSuffix(s, "<EOF>")
	br := bufio.NewReader(strings.NewReader(s))
	for {
		if _, err := br.Peek(1); err != nil {
			return rs, eof
		}
		r := ReadReply(br)
		if r.Note != "" {
			panic("enginetest: malformed transcript " + strconv.Quote(s))
		}
		rs = append(rs, r)
	}
}

// Render joins replies into one comparable transcript.
func Render(rs []Reply) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.String())
	}
	return b.String()
}

// SplitReplies cuts a reply stream into its replies' bytes: a reply ends at
// CRLF, except that a job or YAML body stays with its header. A truncated
// tail is returned as the last piece.
func SplitReplies(s string) []string {
	var r []string
	for s != "" {
		i := strings.Index(s, "\r\n")
		if i < 0 {
			return append(r, s)
		}
		n := i + 2
		if size, ok := codec.ReplyBodySize(s[:i]); ok {
			n = min(len(s), n+size+2)
		}
		r, s = append(r, s[:n]), s[n:]
	}
	return r
}

// ParseYAML reads a stats-like document ("---\n" then "key: value\n" lines)
// into a map, values as written (1.13 quotes some). ok is false if the body
// has another shape.
func ParseYAML(body []byte) (m map[string]string, ok bool) {
	pairs, ok := ParseYAMLPairs(body)
	if !ok {
		return nil, false
	}
	m = make(map[string]string, len(pairs))
	for _, p := range pairs {
		m[p.Key] = p.Value
	}
	return m, true
}

// Pair is one "key: value" line of a YAML document.
type Pair struct{ Key, Value string }

// ParseYAMLPairs is ParseYAML keeping the document's order.
func ParseYAMLPairs(body []byte) (pairs []Pair, ok bool) {
	s, found := strings.CutPrefix(string(body), "---\n")
	if !found || !strings.HasSuffix(s, "\n") {
		return nil, false
	}
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		k, v, found := strings.Cut(line, ": ")
		if !found {
			return nil, false
		}
		pairs = append(pairs, Pair{k, v})
	}
	return pairs, true
}
