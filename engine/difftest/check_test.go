package difftest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// check states a script's intent about a step's replies. It runs on each
// server's raw replies (before masks and rewrites) and returns an error when
// the intent is not met.
type check func(rs []reply) error

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
func docOf(rs []reply) ([]enginetest.Pair, error) {
	if len(rs) > 1 {
		rs = rs[len(rs)-1:]
	}
	if len(rs) == 0 || !rs[0].HasBody {
		return nil, fmt.Errorf("no document in %q", render(rs))
	}
	pairs, ok := enginetest.ParseYAMLPairs(rs[0].Body)
	if !ok {
		return nil, fmt.Errorf("not a YAML mapping: %q", rs[0].Body)
	}
	return pairs, nil
}

// lines requires each line, byte for byte (quotes and all), in the last
// reply's document: for what a client that splits lines by hand reads.
func lines(want ...string) check {
	return func(rs []reply) error {
		if len(rs) > 1 {
			rs = rs[len(rs)-1:]
		}
		if len(rs) == 0 || !rs[0].HasBody {
			return fmt.Errorf("no document in %q", render(rs))
		}
		for _, l := range want {
			if !strings.Contains("\n"+string(rs[0].Body), "\n"+l+"\n") {
				return fmt.Errorf("no line %q in %q", l, rs[0].Body)
			}
		}
		return nil
	}
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
			got[p.Key] = unquote(p.Value)
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
			if p.Key == key {
				n, err := strconv.ParseInt(p.Value, 10, 64)
				if err != nil || n < lo || n > hi {
					return fmt.Errorf("%s: got %q, want %d..%d", key, p.Value, lo, hi)
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
			got[i] = p.Key
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
		if len(rs) == 0 || string(rs[0].Body) != want {
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
			got[i] = r.Head
			ok = ok && strings.HasPrefix(r.Head, prefixes[i])
		}
		if !ok {
			return fmt.Errorf("reply lines: got %q, want prefixes %q", got, prefixes)
		}
		return nil
	}
}
