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
		b.Write(scalarJSON(f.Value))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
