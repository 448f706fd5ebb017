package admin

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEncodeBody(t *testing.T) {
	for _, c := range []struct {
		name      string
		body      string
		limit     int
		text      string
		truncated bool
		utf8      bool
	}{
		{"empty", "", 10, "", false, true},
		{"ascii", "hello", 10, "hello", false, true},
		{"cut ascii", "hello", 3, "hel", true, true},
		{"cut inside a 2-byte rune", "aé", 2, "a", true, true},
		{"cut after a rune", "aé", 3, "aé", false, true},
		{"cut inside a 4-byte rune", "x😀y", 3, "x", true, true},
		{"invalid byte", "a\xffb", 10, "a\uFFFDb", false, false},
		{"invalid then cut", "\xff\xfeabc", 3, "\uFFFDa", true, false},
		{"markup stays text", "<img src=x onerror=alert(1)>", 100, "<img src=x onerror=alert(1)>", false, true},
		{"zero limit", "abc", 0, "", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := encodeBody([]byte(c.body), c.limit)
			assert.Equal(t, c.text, b.Text)
			assert.Equal(t, c.truncated, b.Truncated)
			assert.Equal(t, c.utf8, b.UTF8)
			assert.Equal(t, len(c.body), b.Size)
			raw, err := base64.StdEncoding.DecodeString(b.Base64)
			assert.NoError(t, err)
			assert.Equal(t, c.body[:b.Returned], string(raw))
		})
	}
}
