package codec

// ReplyBodySize reports whether a reply line (its CRLF included or not)
// announces a body - "RESERVED <id> <bytes>", "FOUND <id> <bytes>" or
// "OK <bytes>", as AppendReserved, AppendFound and AppendOK write them -
// and that body's size. The body and a CRLF follow the line. A line of
// another shape, or a size that is not a decimal number below 2^31,
// announces none. It is the one framing of replies for the parts that read
// them: the cluster front, the CLI's client and the wire-test kit. It does
// not allocate.
func ReplyBodySize[T string | []byte](line T) (int, bool) {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
	}
	if n > 0 && line[n-1] == '\r' {
		n--
	}
	line = line[:n]
	args := 0
	switch {
	case hasWord(line, "RESERVED "):
		line, args = line[len("RESERVED "):], 2
	case hasWord(line, "FOUND "):
		line, args = line[len("FOUND "):], 2
	case hasWord(line, "OK "):
		line, args = line[len("OK "):], 1
	default:
		return 0, false
	}
	if args == 2 { // skip the id
		i := 0
		for i < len(line) && line[i] != ' ' {
			i++
		}
		if i == 0 || i == len(line) {
			return 0, false
		}
		line = line[i+1:]
	}
	if len(line) == 0 || len(line) > 10 {
		return 0, false
	}
	size := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		size = size*10 + int(c-'0')
	}
	if size >= 1<<31 {
		return 0, false
	}
	return size, true
}

func hasWord[T string | []byte](line T, word string) bool {
	return len(line) >= len(word) && string(line[:len(word)]) == word
}
