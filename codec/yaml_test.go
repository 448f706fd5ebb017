package codec

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// Free-form strings are quoted only where bare they would break the YAML
// document (issue 19's rule), never for the type a parser would give them.
func TestAppendYAMLStringTable(t *testing.T) {
	for in, want := range map[string]string{
		// Ordinary values stay bare, byte for byte as 1.12 prints them,
		// numbers and YAML's special words included.
		"default": "default", "build-7.example.com": "build-7.example.com", "x86_64": "x86_64",
		"foo(bar)": "foo(bar)", "$x;y/z+": "$x;y/z+", "123": "123", "1.5": "1.5", "007": "007",
		"yes": "yes", "null": "null", "~": "~", "1:20": "1:20", "a#b": "a#b", "a:b": "a:b",
		`back\slash`: `back\slash`, "6.1.0-18-amd64": "6.1.0-18-amd64",
		// Linux's os: a leading '#' would start a comment.
		"#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)": `"#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)"`,
		// ": " and " #" inside, a trailing ':', spaces at either end, empty.
		"a: b": `"a: b"`, "a #b": `"a #b"`, "trailing:": `"trailing:"`, " lead": `" lead"`,
		"trail ": `"trail "`, "": `""`,
		// An indicator first.
		"-x": `"-x"`, "?x": `"?x"`, ":x": `":x"`, ",x": `",x"`, "*x": `"*x"`, "&x": `"&x"`, "!x": `"!x"`,
		"'x": `"'x"`, `"x`: `"\"x"`, "[x": `"[x"`, "]x": `"]x"`, "{x": `"{x"`, "}x": `"}x"`, "%x": `"%x"`,
		"@x": `"@x"`, "`x": "\"`x\"", "|x": `"|x"`, ">x": `">x"`,
		// Control and non-ASCII bytes, escaped.
		"tab\there": `"tab\x09here"`, "é": `"é"`, "\xff": `"\xFF"`, "a\"b\x01": `"a\"b\x01"`,
	} {
		assert.Equal(t, want, string(AppendYAMLString(nil, in)), "%q", in)
	}
}

// Every generated value, written as "key: value" or "- value", keeps the
// document's structure: a YAML parser reads one scalar whose text is the
// value (what type it then resolves to is the parser's business, as in 1.12).
func TestAppendYAMLStringKeepsTheStructure(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	hostile := tubeAlphabet + ` :#'"!&*?,[]{}|>%@` + "`\t\\~=<e\x01\xc3\xa9"
	gen := func(alpha string) string {
		b := make([]byte, 1+r.IntN(8))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	cases := []string{"", " ", "#", ": ", "a: b #c", "null", "yes", "1.5"}
	for range 20000 {
		cases = append(cases, gen(tubeAlphabet), gen(hostile), gen("0123456789.:-_+xeE #"))
	}
	for _, s := range cases {
		if !utf8.ValidString(s) {
			continue // yaml.v3 refuses invalid UTF-8 in any form; the escapes are pinned above
		}
		doc := "---\nname: " + string(AppendYAMLString(nil, s)) + "\nnext: 1\n"
		var m yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(doc), &m), "%q", doc)
		body := m.Content[0]
		require.Len(t, body.Content, 4, "%q", doc)
		assert.Equal(t, s, body.Content[1].Value, "%q", doc)
		assert.Equal(t, "next", body.Content[2].Value, "%q", doc)

		list := "---\n- " + string(AppendYAMLString(nil, s)) + "\n- z\n"
		var l yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(list), &l), "%q", list)
		require.Len(t, l.Content[0].Content, 2, "%q", list)
		assert.Equal(t, s, l.Content[0].Content[0].Value, "%q", list)
	}
}

// tubeAlphabet is every byte a tube name may hold.
const tubeAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+/;.$_()"

// A tube name never holds what BareYAMLSafe refuses but a leading '-' (a
// name may not start with one), so names that the quoting rule would
// touch cannot exist, and lists print them bare regardless.
func TestValidTubeNamesAreBareSafe(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = tubeAlphabet[r.IntN(len(tubeAlphabet))]
		}
		if b[0] == '-' {
			continue
		}
		assert.True(t, BareYAMLSafe(string(b)), "%q", b)
	}
}

// A list document prints every name bare, byte for byte as 1.12 does, even
// names a YAML parser would type as numbers, booleans or null.
func TestAppendYAMLListIsBare(t *testing.T) {
	names := []string{"default", "0.5", "123", "007", "yes", "null", "a-b", "foo.bar"}
	want := "---\n- default\n- 0.5\n- 123\n- 007\n- yes\n- null\n- a-b\n- foo.bar\n"
	assert.Equal(t, want, string(AppendYAMLList(nil, names)))
}

// Clients that split lines by hand read every name back exactly.
func TestAppendYAMLListNaiveSplit(t *testing.T) {
	names := []string{"0.5", "123", "007", "yes", "null", "a-b", "foo.bar", "q(1)", "x$y"}
	doc := string(AppendYAMLList(nil, names))
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(doc, "---\n"), "\n"), "\n") {
		got = append(got, strings.TrimPrefix(line, "- "))
	}
	assert.Equal(t, names, got)
}
