package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// writeJSON prints v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// orderedStats is a stats document as a JSON object in the server's key
// order, numbers and booleans typed.
type orderedStats client.Stats

func (s orderedStats) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		b.Write(k)
		b.WriteByte(':')
		if textKeys[f.Key] && (f.Key != "id" || !s.isJobStats()) {
			v, _ := json.Marshal(f.Value)
			b.Write(v)
			continue
		}
		b.Write(scalarJSON(f.Value))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// textKeys are stats fields that are strings even when they look like
// numbers: the server's random id (hex digits, sometimes all decimal), its
// version and host names, tube names.
var textKeys = map[string]bool{"id": true, "version": true, "hostname": true, "os": true, "platform": true,
	"name": true, "tube": true, "state": true}

// isJobStats reports whether s is a stats-job document, whose id is the
// job's number.
func (s orderedStats) isJobStats() bool {
	_, ok := client.Stats(s).Get("time-left")
	return ok
}

// scalarJSON types a stats value: integers and decimals as numbers, true
// and false as booleans, anything else as a string.
func scalarJSON(v string) []byte {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return []byte(v)
	}
	if _, err := strconv.ParseUint(v, 10, 64); err == nil {
		return []byte(v)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && v != "" && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		b, _ := json.Marshal(f)
		return b
	}
	if v == "true" || v == "false" {
		return []byte(v)
	}
	b, _ := json.Marshal(v)
	return b
}

// writeStats prints a stats document as aligned "key  value" lines.
func writeStats(w io.Writer, s client.Stats) {
	width := 0
	for _, f := range s {
		width = max(width, len(f.Key))
	}
	for _, f := range s {
		io.WriteString(w, f.Key+":"+spaces(width-len(f.Key)+1)+f.Value+"\n")
	}
}

func spaces(n int) string { return string(bytes.Repeat([]byte{' '}, max(n, 0))) }

// printable reports whether a body can go to a terminal as it is: valid
// UTF-8 without control characters other than newline and tab.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return false
		}
	}
	return true
}
