package codec

import (
	"strings"
	"unicode/utf8"
)

// YAML scalars in the stats documents and tube lists.
//
// Tube names are written bare everywhere (list-tubes, list-tubes-watched,
// stats-tube's name, stats-job's tube), byte for byte as beanstalkd 1.12
// prints them. Many clients split the lines by hand instead of parsing YAML
// (go-beanstalk, pheanstalk, greenstalk's lists, the Java and C++ clients)
// and keep any quotes as part of the name, so a quoted "123" breaks them.
// A valid tube name holds no space, '#', ':' or quote, so its bare form
// never breaks the document's structure; a YAML client may read `123` as a
// number, as it does from 1.12.
//
// Free-form strings (stats' hostname, os and platform) are another matter:
// Linux's os ("#1 SMP ...") is a YAML comment bare. AppendYAMLString quotes
// such a value, and only when its bare form would break YAML's structure,
// as 1.13 quotes os; an ordinary hostname stays bare.

// AppendYAMLString appends a free-form string as a YAML scalar: bare unless
// the bare form would break the document's structure (BareYAMLSafe), else
// double-quoted with YAML escapes.
func AppendYAMLString(dst []byte, s string) []byte {
	if BareYAMLSafe(s) {
		return append(dst, s...)
	}
	return appendYAMLQuoted(dst, s)
}

// BareYAMLSafe reports whether s may be written bare as a block-context
// value without breaking the YAML document around it: it is not empty, has
// no leading or trailing space, does not start with a character YAML treats
// as an indicator, holds no ": " or " #", does not end in ':', and holds
// only printable ASCII. It does not ask what type a parser would resolve the
// value to (123 and yes stay bare, as 1.12 prints them).
func BareYAMLSafe(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	if strings.IndexByte(yamlIndicators, s[0]) >= 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false // control bytes and non-ASCII: quoted and escaped
		}
	}
	return !strings.Contains(s, ": ") && !strings.Contains(s, " #")
}

// yamlIndicators may not start a plain scalar (or start one only in some
// parsers: '-', '?' and ':' followed by a non-space are legal in 1.2 only).
const yamlIndicators = "-?:,[]{}#&*!|>'\"%@`"

// appendYAMLQuoted appends s in YAML's double-quoted style.
func appendYAMLQuoted(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c >= 0x20 && c < 0x7f:
			dst = append(dst, c)
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
	}
	return append(dst, '"')
}
