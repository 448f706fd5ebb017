package admin

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// bodyJSON is a job body as the API returns it: never raw. Base64 holds the
// exact bytes of the first Returned bytes; Text is the same prefix as UTF-8
// with every invalid sequence replaced by U+FFFD (for display as text, never
// as HTML).
type bodyJSON struct {
	Size      int    `json:"size"`
	Returned  int    `json:"returned"`
	Truncated bool   `json:"truncated"`
	Base64    string `json:"base64"`
	Text      string `json:"text"`
	// UTF8 reports whether the returned bytes are valid UTF-8 (so Text is
	// exact rather than a preview).
	UTF8 bool `json:"utf8"`
}

// encodeBody encodes at most limit bytes of body. A cut never splits a
// UTF-8 sequence in Text: a partial rune at the cut is left out of Text
// (it is still in Base64).
func encodeBody(body []byte, limit int) bodyJSON {
	b := body
	if len(b) > limit {
		b = b[:limit]
	}
	text := b
	if len(b) < len(body) {
		text = trimPartialRune(b)
	}
	return bodyJSON{
		Size: len(body), Returned: len(b), Truncated: len(b) < len(body),
		Base64: base64.StdEncoding.EncodeToString(b),
		Text:   strings.ToValidUTF8(string(text), "\uFFFD"),
		UTF8:   utf8.Valid(b) || (len(b) < len(body) && utf8.Valid(text)),
	}
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return b // ASCII: nothing partial
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
