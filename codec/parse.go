package codec

import (
	"bytes"
	"math"
)

// argForm says how the rest of a line after a command prefix is parsed.
type argForm uint8

const (
	argNone     argForm = iota // nothing may follow the prefix
	argAny                     // anything may follow (quit)
	argID                      // one u64 that ends the line
	argPut                     // pri delay ttr bytes
	argTimeout                 // reserve-with-timeout (1.13 rules)
	argRelease                 // id pri delay
	argBury                    // id pri
	argKick                    // C strtoul
	argName                    // the whole rest is a tube name
	argPause                   // name run, then delay
	argListJobs                // name state offset count
	argToken                   // the rest of the line, no spaces (auth)
	argNever                   // not matched from a line (OpNone, the put body)
)

// byFirst groups verbs by first byte, keeping their order, so matching tries only the few
// prefixes that can match.
var byFirst [256][]verb

// nameChar marks the bytes allowed in a tube name: A-Z a-z 0-9 - + / ; . $ _ ( )
var nameChar [256]bool

func init() {
	const extra = "-+/;.$_()"
	for c := 0; c < 256; c++ {
		b := byte(c)
		nameChar[c] = 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' ||
			bytes.IndexByte([]byte(extra), b) >= 0
	}
}

// lookup returns the first verb whose prefix the line starts with, or nil.
func lookup(line []byte) *verb {
	if len(line) == 0 {
		return nil
	}
	vs := byFirst[line[0]]
	for i := range vs {
		p := vs[i].prefix
		if len(line) >= len(p) && string(line[:len(p)]) == p {
			return &vs[i]
		}
	}
	return nil
}

// parseLine decodes one command line (CRLF excluded) into *c, which must be zero. maxJob is
// the largest body a put may announce. c.Name becomes a view into line. For an accepted put
// line it leaves c.Op == OpPutHeader with c.Err == nil; the caller switches state.
func parseLine(c *Command, line []byte, maxJob uint32) {
	if bytes.IndexByte(line, 0) >= 0 {
		c.Err = errBadFormat
		return
	}
	v := lookup(line)
	if v == nil {
		c.Err = errUnknownCommand
		return
	}
	c.Op, c.Matched = v.op, v.op
	if !parseArgs(c, v.form, line[len(v.prefix):], maxJob) {
		*c = Command{Err: errBadFormat, Matched: v.op}
	} else if c.Err != nil { // counted, but rejected: nothing else to carry
		*c = Command{Op: v.op, Matched: v.op, Err: c.Err}
	}
}

// parseArgs fills c from args according to form and reports whether they are well formed.
// Where the reference counts the command although it then replies BAD_FORMAT, parseArgs sets
// c.Err itself and returns true.
func parseArgs(c *Command, form argForm, args []byte, maxJob uint32) bool {
	var ok bool
	switch form {
	case argNone:
		return len(args) == 0
	case argAny:
		return true
	case argID:
		c.ID, ok = readLast(args, math.MaxUint64)
		return ok
	case argTimeout:
		return parseTimeout(c, args)
	case argRelease:
		return parseRelease(c, args)
	case argBury:
		return parseBury(c, args)
	case argKick:
		var n uint64
		n, ok = strtoul(args)
		c.Count = uint32(n) // the reference stores strtoul's result in a 32-bit uint
		return ok
	case argName:
		c.Name = args
		return validName(args)
	case argPause:
		return parsePause(c, args)
	case argPut:
		return parsePut(c, args, maxJob)
	case argListJobs:
		return parseListJobs(c, args)
	case argToken:
		c.Token = args
		return len(args) > 0 && bytes.IndexByte(args, ' ') < 0
	}
	return false
}

// parseTimeout reads reserve-with-timeout's seconds: digits up to MaxInt32 with nothing after
// them, as 1.13 reads them, or a '-' right before the digits, which waits forever, as 1.12
// reads it (a Java client sends -1). A magnitude past 32 bits, a '+', a non-number or trailing
// bytes are refused, where 1.12 silently wraps them to 0.
func parseTimeout(c *Command, args []byte) bool {
	i := skipSpaces(args)
	if i+1 < len(args) && args[i] == '-' && isDigit(args[i+1]) {
		t, ok := readLast(args[i+1:], math.MaxInt32+1)
		if ok && t > 0 {
			c.Timeout = -1
		}
		return ok
	}
	t, ok := readLast(args, math.MaxInt32)
	c.Timeout = int32(t)
	return ok
}

// parsePut reads "pri delay ttr bytes". The size check precedes the garbage check, as in the
// reference: an over-size put is accepted as TooBig even with garbage after its size.
func parsePut(c *Command, args []byte, maxJob uint32) bool {
	var v [4]uint64
	rest := args
	for i := range v {
		var ok bool
		if v[i], rest, ok = readUint(rest, math.MaxUint32); !ok {
			return false
		}
	}
	c.Pri, c.Delay, c.TTR, c.Size = uint32(v[0]), uint32(v[1]), uint32(v[2]), uint32(v[3])
	switch {
	case c.Size > maxJob:
		c.TooBig = true
	case len(rest) != 0:
		c.Err = errBadFormat // counted as a put, but nothing is swallowed
	}
	return true
}

// parseRelease reads "id pri delay".
func parseRelease(c *Command, args []byte) bool {
	id, rest, ok := readUint(args, math.MaxUint64)
	if !ok {
		return false
	}
	pri, rest, ok := readUint(rest, math.MaxUint32)
	if !ok {
		return false
	}
	delay, ok := readLast(rest, math.MaxUint32)
	c.ID, c.Pri, c.Delay = id, uint32(pri), uint32(delay)
	return ok
}

// parseBury reads "id pri".
func parseBury(c *Command, args []byte) bool {
	id, rest, ok := readUint(args, math.MaxUint64)
	if !ok {
		return false
	}
	pri, ok := readLast(rest, math.MaxUint32)
	c.ID, c.Pri = id, uint32(pri)
	return ok
}

// parsePause follows the reference's pause-tube: skip spaces, take the longest run of name
// characters, read the delay (which must end the line), and only then validate the name. The
// command counts from the moment the delay parses, so a bad name keeps Op == OpPauseTube.
func parsePause(c *Command, args []byte) bool {
	i := skipSpaces(args)
	j := i
	for j < len(args) && nameChar[args[j]] {
		j++
	}
	if j == i {
		return false
	}
	delay, ok := readLast(args[j:], math.MaxUint32)
	if !ok {
		return false
	}
	c.Name, c.Delay = args[i:j], uint32(delay)
	if j-i > MaxTubeName || args[i] == '-' {
		c.Err = errBadFormat
	}
	return true
}

// ListStates are the job states list-jobs takes, by name.
var ListStates = [...]string{"ready", "delayed", "buried", "reserved"}

// MaxListJobs is the most ids one list-jobs answers with; a larger count is
// lowered to it (page with the offset).
const MaxListJobs = 1000

// parseListJobs reads "tube state offset count": a valid tube name, one space, one of
// ListStates, then two numbers of at most 32 bits, nothing after them. c.Name is the tube,
// c.State the state's index in ListStates, c.ID the offset and c.Count the count (at most
// MaxListJobs).
func parseListJobs(c *Command, args []byte) bool {
	name, rest, ok := bytes.Cut(args, []byte(" "))
	if !ok || !validName(name) {
		return false
	}
	word, rest, ok := bytes.Cut(rest, []byte(" "))
	if !ok {
		return false
	}
	c.State = -1
	for i, s := range ListStates {
		if string(word) == s {
			c.State = int8(i)
		}
	}
	if c.State < 0 {
		return false
	}
	offset, rest, ok := readUint(rest, math.MaxUint32)
	if !ok {
		return false
	}
	count, ok := readLast(rest, math.MaxUint32)
	if !ok {
		return false
	}
	c.Name, c.ID, c.Count = name, offset, uint32(min(count, MaxListJobs))
	return true
}

// ValidTubeName reports whether name is a legal tube name: 1..200 name characters
// (A-Z a-z 0-9 - + / ; . $ _ ( )), not starting with '-'. Package jobs has the same rule; a
// test keeps the two equal byte for byte.
func ValidTubeName(name []byte) bool { return validName(name) }

// validName reports whether name is a legal tube name: 1..200 name characters, not starting
// with '-'.
func validName(name []byte) bool {
	if len(name) == 0 || len(name) > MaxTubeName || name[0] == '-' {
		return false
	}
	for _, b := range name {
		if !nameChar[b] {
			return false
		}
	}
	return true
}
