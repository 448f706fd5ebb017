package codec

import "strconv"

// Fixed replies, CRLF included. Append them with append(dst, codec.Deleted...).
const (
	Deleted       = "DELETED\r\n"
	Released      = "RELEASED\r\n"
	Buried        = "BURIED\r\n"
	Touched       = "TOUCHED\r\n"
	Kicked        = "KICKED\r\n"
	Authenticated = "AUTHENTICATED\r\n" // stalkd's own: auth accepted
	Unauthorized  = "UNAUTHORIZED\r\n"  // stalkd's own: auth refused, or a command before auth
	Paused        = "PAUSED\r\n"
	NotFound      = "NOT_FOUND\r\n"
	NotIgnored    = "NOT_IGNORED\r\n"
	TimedOut      = "TIMED_OUT\r\n"
	DeadlineSoon  = "DEADLINE_SOON\r\n"
	Draining      = "DRAINING\r\n"
	OutOfMemory   = "OUT_OF_MEMORY\r\n"
	InternalError = "INTERNAL_ERROR\r\n"
)

// The Append functions encode one reply at the end of dst and return the extended slice, like
// strconv.AppendInt. They allocate only when dst must grow, so a server can gather the replies
// of a pipelined batch in one reused buffer and write it once. They keep no reference to
// their arguments and are safe for concurrent use on distinct dst slices.

const crlf = "\r\n"

// appendWordNum appends "<word> <n>\r\n"; word carries its trailing space.
func appendWordNum(dst []byte, word string, n uint64) []byte {
	dst = append(dst, word...)
	dst = strconv.AppendUint(dst, n, 10)
	return append(dst, crlf...)
}

// AppendInserted appends "INSERTED <id>\r\n".
func AppendInserted(dst []byte, id uint64) []byte { return appendWordNum(dst, "INSERTED ", id) }

// AppendBuriedID appends "BURIED <id>\r\n", the put reply when the job could not be queued.
func AppendBuriedID(dst []byte, id uint64) []byte { return appendWordNum(dst, "BURIED ", id) }

// AppendWatching appends "WATCHING <n>\r\n".
func AppendWatching(dst []byte, n int) []byte { return appendWordNum(dst, "WATCHING ", uint64(n)) }

// AppendCleared appends "CLEARED <n>\r\n", the reply to clear-tube.
func AppendCleared(dst []byte, n int) []byte { return appendWordNum(dst, "CLEARED ", uint64(n)) }

// AppendIDList appends the YAML document for a list of job ids (list-jobs): "---\n" then
// "- <id>\n" per id, shaped like list-tubes' document.
func AppendIDList(dst []byte, ids []uint64) []byte {
	dst = append(dst, "---\n"...)
	for _, id := range ids {
		dst = append(dst, "- "...)
		dst = strconv.AppendUint(dst, id, 10)
		dst = append(dst, '\n')
	}
	return dst
}

// AppendKickedN appends "KICKED <n>\r\n", the reply to kick.
func AppendKickedN(dst []byte, n int) []byte { return appendWordNum(dst, "KICKED ", uint64(n)) }

// appendJobHeader appends "<word> <id> <size>\r\n".
func appendJobHeader(dst []byte, word string, id uint64, size int) []byte {
	dst = append(dst, word...)
	dst = strconv.AppendUint(dst, id, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(size), 10)
	return append(dst, crlf...)
}

// AppendReservedHeader appends "RESERVED <id> <size>\r\n"; size is the body's length (its
// CRLF excluded). Use it when the body and its CRLF are written separately (e.g. a large body
// sent without copying).
func AppendReservedHeader(dst []byte, id uint64, size int) []byte {
	return appendJobHeader(dst, "RESERVED ", id, size)
}

// AppendReserved appends the whole reply to a reserve: the header, the job's data body and
// "\r\n".
func AppendReserved(dst []byte, id uint64, body []byte) []byte {
	dst = AppendReservedHeader(dst, id, len(body))
	dst = append(dst, body...)
	return append(dst, crlf...)
}

// AppendFoundHeader appends "FOUND <id> <size>\r\n"; size is the body's length (its CRLF
// excluded).
func AppendFoundHeader(dst []byte, id uint64, size int) []byte {
	return appendJobHeader(dst, "FOUND ", id, size)
}

// AppendFound appends the whole reply to a peek: the header, the job's data body and "\r\n".
func AppendFound(dst []byte, id uint64, body []byte) []byte {
	dst = AppendFoundHeader(dst, id, len(body))
	dst = append(dst, body...)
	return append(dst, crlf...)
}

// AppendUsing appends "USING <name>\r\n", the reply to use and list-tube-used.
func AppendUsing(dst []byte, name string) []byte {
	dst = append(dst, "USING "...)
	dst = append(dst, name...)
	return append(dst, crlf...)
}

// AppendOK appends "OK <len(doc)>\r\n", then doc, then "\r\n": the reply carrying a YAML
// document (stats, stats-job, stats-tube, list-tubes, list-tubes-watched).
func AppendOK(dst []byte, doc []byte) []byte {
	dst = appendWordNum(dst, "OK ", uint64(len(doc)))
	dst = append(dst, doc...)
	return append(dst, crlf...)
}

// AppendYAMLList appends the YAML document for a list of tube names byte for byte as the
// reference prints it: "---\n" then "- <name>\n" per name, bare, LF line ends, no CRLF
// (AppendOK adds that). Names are never quoted (see yaml.go): clients that split lines keep
// quotes as part of the name.
func AppendYAMLList(dst []byte, names []string) []byte {
	dst = append(dst, "---\n"...)
	for _, n := range names {
		dst = append(dst, "- "...)
		dst = append(dst, n...)
		dst = append(dst, '\n')
	}
	return dst
}

// AppendError appends err's wire word and "\r\n", e.g. "BAD_FORMAT\r\n".
func AppendError(dst []byte, err WireError) []byte {
	dst = append(dst, err...)
	return append(dst, crlf...)
}
