package loadgen

import (
	"bytes"
	"errors"
	"fmt"
)

// Kind is the word a server replied with, reduced to what the generator acts on.
type Kind uint8

// Reply kinds the client recognises; anything else is KindOther.
const (
	KindOther        Kind = iota // an error word or a reply the generator does not use
	KindInserted                 // INSERTED <id>
	KindBuried                   // BURIED <id> (put could not grow a heap) or BURIED
	KindReserved                 // RESERVED <id> <bytes> + body
	KindDeleted                  // DELETED
	KindTimedOut                 // TIMED_OUT
	KindDeadlineSoon             // DEADLINE_SOON
	KindUsing                    // USING <tube>
	KindWatching                 // WATCHING <n>
	KindOK                       // OK <bytes> + body
	KindFound                    // FOUND <id> <bytes> + body
	KindNotFound                 // NOT_FOUND
)

var kindNames = [...]string{"OTHER", "INSERTED", "BURIED", "RESERVED", "DELETED", "TIMED_OUT",
	"DEADLINE_SOON", "USING", "WATCHING", "OK", "FOUND", "NOT_FOUND"}

// String returns the protocol word of k.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Reply is one parsed server reply. Line and Body are views into the
// connection's read buffer: they stay valid only until the next read on the
// same Conn. Copy them to keep them.
type Reply struct {
	Kind Kind
	ID   uint64 // job id for INSERTED, BURIED <id>, RESERVED, FOUND; count for WATCHING
	Line []byte // the reply line without CRLF
	Body []byte // body of RESERVED, FOUND and OK, without its CRLF
}

// ErrProtocol is wrapped by every error about a malformed reply.
var ErrProtocol = errors.New("loadgen: malformed reply")

// parseLine classifies one reply line (without CRLF). For replies that carry a
// body it returns the body length in n (hasBody true).
func parseLine(line []byte) (r Reply, n uint64, hasBody bool, err error) {
	r.Line = line
	switch {
	case hasWord(line, "INSERTED "):
		r.Kind = KindInserted
		r.ID, err = parseUint(line[len("INSERTED "):])
	case hasWord(line, "RESERVED "):
		r.Kind, hasBody = KindReserved, true
		r.ID, n, err = parseTwo(line[len("RESERVED "):])
	case bytes.Equal(line, []byte("DELETED")):
		r.Kind = KindDeleted
	case bytes.Equal(line, []byte("TIMED_OUT")):
		r.Kind = KindTimedOut
	case bytes.Equal(line, []byte("DEADLINE_SOON")):
		r.Kind = KindDeadlineSoon
	case hasWord(line, "USING "):
		r.Kind = KindUsing
	case hasWord(line, "WATCHING "):
		r.Kind = KindWatching
		r.ID, err = parseUint(line[len("WATCHING "):])
	case hasWord(line, "OK "):
		r.Kind, hasBody = KindOK, true
		n, err = parseUint(line[len("OK "):])
	case hasWord(line, "FOUND "):
		r.Kind, hasBody = KindFound, true
		r.ID, n, err = parseTwo(line[len("FOUND "):])
	case hasWord(line, "BURIED"):
		r.Kind = KindBuried
		if len(line) > len("BURIED ") {
			r.ID, err = parseUint(line[len("BURIED "):])
		}
	case bytes.Equal(line, []byte("NOT_FOUND")):
		r.Kind = KindNotFound
	default:
		r.Kind = KindOther
	}
	return r, n, hasBody, err
}

func hasWord(line []byte, w string) bool {
	return len(line) >= len(w) && string(line[:len(w)]) == w
}

// parseUint parses a whole field of decimal digits without allocating.
func parseUint(b []byte) (uint64, error) {
	if len(b) == 0 || len(b) > 20 {
		return 0, ErrProtocol
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, ErrProtocol
		}
		v = v*10 + uint64(c-'0')
	}
	return v, nil
}

// parseTwo parses "<a> <b>".
func parseTwo(b []byte) (a, c uint64, err error) {
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return 0, 0, ErrProtocol
	}
	if a, err = parseUint(b[:i]); err != nil {
		return 0, 0, err
	}
	c, err = parseUint(b[i+1:])
	return a, c, err
}
