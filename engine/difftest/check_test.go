package difftest

import (
	"fmt"
	"strconv"
	"strings"
)

// check states a script's intent about a step's replies. It runs on each
// server's raw replies (before masks and rewrites) and returns an error when
// the intent is not met.
type check func(rs []reply) error

// yamlPair is one "key: value" line of a YAML reply body.
type yamlPair struct{ key, value string }

// parseDoc splits a stats-like YAML document ("---\n" then "key: value\n"
// lines) into its pairs, in order. ok is false if the body has another shape.
func parseDoc(body []byte) (pairs []yamlPair, ok bool) {
	s, found := strings.CutPrefix(string(body), "---\n")
	if !found || !strings.HasSuffix(s, "\n") {
		return nil, false
	}
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		k, v, found := strings.Cut(line, ": ")
		if !found {
			return nil, false
		}
		pairs = append(pairs, yamlPair{k, v})
	}
	return pairs, true
}

// unquote strips the double quotes 1.13 puts around some string values, so
// checks read the same value from both servers.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// docOf returns the pairs of the last reply's document (the only one, in
// most steps).
func docOf(rs []reply) ([]yamlPair, error) {
	if len(rs) > 1 {
		rs = rs[len(rs)-1:]
	}
	if len(rs) == 0 || !rs[0].hasBody {
		return nil, fmt.Errorf("no document in %q", render(rs))
	}
	pairs, ok := parseDoc(rs[0].body)
	if !ok {
		return nil, fmt.Errorf("not a YAML mapping: %q", rs[0].body)
	}
	return pairs, nil
}

// fields requires "key: value" pairs in the last reply's document (values
// compared without 1.13's quotes).
func fields(kv ...string) check {
	return func(rs []reply) error {
		pairs, err := docOf(rs)
		if err != nil {
			return err
		}
		got := make(map[string]string, len(pairs))
		for _, p := range pairs {
			got[p.key] = unquote(p.value)
		}
		for _, want := range kv {
			k, v, _ := strings.Cut(want, ": ")
			if g, ok := got[k]; !ok || g != v {
				return fmt.Errorf("%s: got %q, want %q", k, g, v)
			}
		}
		return nil
	}
}

// between requires the integer value of key to lie in [lo, hi]: for times,
// which are masked in the comparison.
func between(key string, lo, hi int64) check {
	return func(rs []reply) error {
		pairs, err := docOf(rs)
		if err != nil {
			return err
		}
		for _, p := range pairs {
			if p.key == key {
				n, err := strconv.ParseInt(p.value, 10, 64)
				if err != nil || n < lo || n > hi {
					return fmt.Errorf("%s: got %q, want %d..%d", key, p.value, lo, hi)
				}
				return nil
			}
		}
		return fmt.Errorf("%s: missing", key)
	}
}

// keys requires the last reply's document to have exactly these keys, in
// this order.
func keys(want ...string) check {
	return func(rs []reply) error {
		pairs, err := docOf(rs)
		if err != nil {
			return err
		}
		got := make([]string, len(pairs))
		for i, p := range pairs {
			got[i] = p.key
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			return fmt.Errorf("keys:\n got  %v\n want %v", got, want)
		}
		return nil
	}
}

// list requires the first reply's body to be the YAML list of items, in
// this order.
func list(items ...string) check {
	return func(rs []reply) error {
		want := "---\n"
		for _, it := range items {
			want += "- " + it + "\n"
		}
		if len(rs) == 0 || string(rs[0].body) != want {
			return fmt.Errorf("list: got %q, want %q", render(rs), want)
		}
		return nil
	}
}

// heads requires as many replies as prefixes, each reply line starting with
// its prefix (a byte count may differ: 1.13 quotes some values).
func heads(prefixes ...string) check {
	return func(rs []reply) error {
		ok := len(rs) == len(prefixes)
		got := make([]string, len(rs))
		for i, r := range rs {
			got[i] = r.head
			ok = ok && strings.HasPrefix(r.head, prefixes[i])
		}
		if !ok {
			return fmt.Errorf("reply lines: got %q, want prefixes %q", got, prefixes)
		}
		return nil
	}
}
