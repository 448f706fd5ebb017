package codec

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestAppendYAMLStringTable(t *testing.T) {
	for in, want := range map[string]string{
		// Ordinary names stay bare, byte for byte as 1.12 prints them.
		"default": "default", "emails": "emails", "a.b-c_d": "a.b-c_d", "x86_64": "x86_64",
		"foo(bar)": "foo(bar)", "$x;y/z+": "$x;y/z+", "e5": "e5", "123go": "123go",
		"#1 SMP PREEMPT_DYNAMIC": `"#1 SMP PREEMPT_DYNAMIC"`,
		// What YAML would read as something else is quoted.
		"1.5": `"1.5"`, "123": `"123"`, "0x1F": `"0x1F"`, "1_000": `"1_000"`, "2026-11-23": `"2026-11-23"`,
		"1:20": `"1:20"`, ".5": `".5"`, "+1": `"+1"`, ".inf": `".inf"`, ".NaN": `".NaN"`,
		"null": `"null"`, "Null": `"Null"`, "~": `"~"`, "true": `"true"`, "No": `"No"`, "on": `"on"`,
		"y": `"y"`, "<<": `"<<"`, "=": `"="`,
		"a: b": `"a: b"`, "a #b": `"a #b"`, "trailing:": `"trailing:"`, " lead": `" lead"`,
		"trail ": `"trail "`, "-x": `"-x"`, "?x": `"?x"`, "*x": `"*x"`, "&x": `"&x"`, "!x": `"!x"`,
		"'x": `"'x"`, `"x`: `"\"x"`, "[x": `"[x"`, "{x": `"{x"`, "%x": `"%x"`, "@x": `"@x"`, "`x": "\"`x\"",
		"|x": `"|x"`, ">x": `">x"`, "": `""`, `back\slash`: `back\slash`, "tab\there": `"tab\x09here"`,
		"é": `"é"`, "\xff": `"\xFF"`,
	} {
		assert.Equal(t, want, string(AppendYAMLString(nil, in)), "%q", in)
	}
}

// tubeAlphabet is every byte a tube name may hold.
const tubeAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+/;.$_()"

// Every generated value, written as "key: value", reads back through a real
// YAML parser as the same string.
func TestAppendYAMLStringRoundTripsThroughAParser(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	hostile := tubeAlphabet + ` :#'"!&*?,[]{}|>%@` + "`\t\\~=<e"
	gen := func(alpha string) string {
		b := make([]byte, 1+r.IntN(8))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	cases := append([]string{}, yamlSpecialWords...)
	for range 20000 {
		cases = append(cases, gen(tubeAlphabet), gen(hostile), gen("0123456789.:-_+xeE"))
	}
	for _, s := range cases {
		doc := "---\nname: " + string(AppendYAMLString(nil, s)) + "\n"
		var m map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &m), "%q", doc)
		assert.Equal(t, s, m["name"], "%q", doc)
		list := "---\n- " + string(AppendYAMLString(nil, s)) + "\n"
		var l []any
		require.NoError(t, yaml.Unmarshal([]byte(list), &l), "%q", list)
		assert.Equal(t, []any{s}, l, "%q", list)
	}
}

// Clients that split "key: value" lines by hand (go-beanstalk) read an
// ordinary tube name back without quotes.
func TestAppendYAMLStringNaiveSplit(t *testing.T) {
	for _, name := range []string{"default", "emails", "jobs.high-pri", "a_b", "q(1)", "x$y"} {
		line := "tube: " + string(AppendYAMLString(nil, name))
		_, v, ok := strings.Cut(line, ": ")
		require.True(t, ok)
		assert.Equal(t, name, v)
	}
}

// The list document quotes what needs it, item by item.
func TestAppendYAMLListQuotesWhenNeeded(t *testing.T) {
	assert.Equal(t, "---\n- default\n- \"1.5\"\n", string(AppendYAMLList(nil, []string{"default", "1.5"})))
}
