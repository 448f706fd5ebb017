package client

import (
	"fmt"
	"strconv"
	"strings"
)

// Field is one "key: value" line of a stats document, the value unquoted.
type Field struct {
	Key, Value string
}

// Stats is a stats document (stats, stats-tube, stats-job) in the server's
// order.
type Stats []Field

// Get returns the value of key and whether it is present.
func (s Stats) Get(key string) (string, bool) {
	for _, f := range s {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// Int returns the value of key as an integer, 0 when absent or not a
// number.
func (s Stats) Int(key string) int64 {
	v, _ := s.Get(key)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// Float returns the value of key as a float, 0 when absent or not a
// number.
func (s Stats) Float(key string) float64 {
	v, _ := s.Get(key)
	n, _ := strconv.ParseFloat(v, 64)
	return n
}

// ParseStats parses the flat YAML mapping the stats commands return.
// Values may be bare or double-quoted (beanstalkd 1.13 and stalkd quote
// names and hostnames).
func ParseStats(b []byte) (Stats, error) {
	var s Stats
	for _, line := range lines(b) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: stats line %q", ErrProtocol, line)
		}
		s = append(s, Field{Key: strings.TrimSpace(k), Value: unquote(strings.TrimSpace(v))})
	}
	return s, nil
}

// ParseList parses the YAML sequence list-tubes and list-jobs return.
func ParseList(b []byte) ([]string, error) {
	var l []string
	for _, line := range lines(b) {
		v, ok := strings.CutPrefix(line, "- ")
		if !ok {
			return nil, fmt.Errorf("%w: list line %q", ErrProtocol, line)
		}
		l = append(l, unquote(strings.TrimSpace(v)))
	}
	return l, nil
}

// lines returns the document's lines without the "---" header, blank
// lines or an empty-sequence marker ("[]").
func lines(b []byte) []string {
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimSpace(line); t == "" || t == "---" || t == "[]" {
			continue
		}
		out = append(out, line)
	}
	return out
}

// unquote strips YAML double or single quotes from a scalar.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}
