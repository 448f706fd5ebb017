package codec

import "math"

// The number grammars of the reference: read_u32/read_u64 for almost every field, and C
// strtoul for kick.

func skipSpaces(b []byte) int {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// readUint is the reference's read_u64/read_u32: skip spaces (only spaces), require a digit,
// then read base-10 digits. A value above max, or above 2^64-1, is an error. It returns the
// bytes after the digits.
func readUint(b []byte, max uint64) (v uint64, rest []byte, ok bool) {
	i := skipSpaces(b)
	if i == len(b) || !isDigit(b[i]) {
		return 0, nil, false
	}
	v, i, ok = digits(b, i)
	if !ok || v > max {
		return 0, nil, false
	}
	return v, b[i:], true
}

// readLast is readUint for the last field of a line: nothing may follow the digits.
func readLast(b []byte, max uint64) (uint64, bool) {
	v, rest, ok := readUint(b, max)
	return v, ok && len(rest) == 0
}

// digits reads the run of decimal digits starting at b[i], like strtoumax: it consumes the
// whole run, and reports overflow of 64 bits as !ok.
func digits(b []byte, i int) (v uint64, end int, ok bool) {
	ok = true
	for ; i < len(b) && isDigit(b[i]); i++ {
		d := uint64(b[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			ok = false
			continue
		}
		v = v*10 + d
	}
	return v, i, ok
}

// isCSpace is C isspace() in the "C" locale.
func isCSpace(b byte) bool {
	return b == ' ' || '\t' <= b && b <= '\r'
}

// strtoul is C strtoul(s, &end, 10) on a 64-bit platform as the reference's kick uses it:
// leading isspace() bytes, an optional sign, digits; trailing bytes are ignored. No digits, or
// a magnitude above 2^64-1 (ERANGE), is an error. A '-' negates modulo 2^64.
func strtoul(b []byte) (uint64, bool) {
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) || !isDigit(b[i]) {
		return 0, false
	}
	v, _, ok := digits(b, i)
	if !ok {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
