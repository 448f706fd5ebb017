package codec

import (
	"strings"
	"unicode/utf8"
)

// YAML strings in the stats documents and tube lists.
//
// Two kinds of client read these documents. YAML parsers need a value that
// is not a plain string (1.12's bare `os: #1 SMP ...` reads as a comment, a
// tube named 1.5 as a float) to be quoted; clients that split `key: value`
// lines by hand (go-beanstalk, the most used Go client) keep the quotes as
// part of the value, so quoting an ordinary name (1.13 quotes every one)
// breaks them. AppendYAMLString serves both: a value goes out bare, byte for
// byte as 1.12 prints it, when its bare form reads back as the same string
// under YAML 1.1 and 1.2 alike, and double-quoted otherwise.

// AppendYAMLString appends s as a YAML scalar: bare when that reads back as
// the same string, else double-quoted with YAML escapes.
func AppendYAMLString(dst []byte, s string) []byte {
	if PlainYAML(s) {
		return append(dst, s...)
	}
	return appendYAMLQuoted(dst, s)
}

// PlainYAML reports whether s, written bare as a block-context value, reads
// back as the string s in every common YAML parser (1.1 resolvers such as
// PyYAML and Psych included). It errs on the side of quoting.
func PlainYAML(s string) bool {
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
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	return !yamlSpecial(s) && !yamlNumberLike(s)
}

// yamlIndicators may not start a plain scalar (or start one only in some
// parsers: '-', '?' and ':' followed by a non-space are legal in 1.2 only).
const yamlIndicators = "-?:,[]{}#&*!|>'\"%@`"

// yamlSpecialWords resolve to null, booleans or special floats in YAML 1.1
// or 1.2, compared case-insensitively.
var yamlSpecialWords = []string{
	"~", "null", "true", "false", "yes", "no", "on", "off", "y", "n",
	".inf", "+.inf", ".nan", "<<", "=",
}

func yamlSpecial(s string) bool {
	for _, w := range yamlSpecialWords {
		if strings.EqualFold(s, w) {
			return true
		}
	}
	return false
}

// yamlNumberLike reports whether s could resolve to a number or a timestamp
// in YAML 1.1 or 1.2: it starts with a digit, a sign or a dot, holds a digit,
// and nothing but the characters of ints, floats, hex/octal/binary,
// sexagesimals and dates.
func yamlNumberLike(s string) bool {
	if !isDigit(s[0]) && s[0] != '+' && s[0] != '.' {
		return false
	}
	digit := false
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case isDigit(c):
			digit = true
		case 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		case strings.IndexByte("xXoO_+-.:tTzZ ", c) >= 0:
		default:
			return false
		}
	}
	return digit
}

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
