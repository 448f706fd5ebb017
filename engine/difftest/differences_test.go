package difftest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/engine/enginetest"
)

// The one table of what may differ between the reference and stalkd. Every
// row says why. A step's replies must match byte for byte once the rows have
// been applied: deliberate rows turn the reference's reply into what stalkd
// must send instead; masked rows blank, on both sides, values that cannot be
// equal (after checking that they still have the right shape). Nothing else
// may differ.
var differences = []difference{
	// Deliberate: stalkd follows 1.13 (or does its own thing) on purpose.
	{name: "stats-uname-yaml", kind: deliberate, edit: yamlValues(docStats, "hostname", "os", "platform"),
		reason: "hostname, os and platform are quoted only where bare they would break the YAML document " +
			"(os '#1 SMP ...' is a comment bare; #592, #610, #640), as 1.13 quotes os; an ordinary hostname stays bare as in 1.12. " +
			"Tube names are bare everywhere, byte for byte as 1.12 (issue 19): no row"},
	{name: "stats-version", kind: deliberate, edit: ourVersion,
		reason: "stats reports the protocol version stalkd implements, \"1.13\" (clients gate features on it), quoted like the reference's \"1.12\""},
	{name: "reserve-with-timeout-strict", kind: deliberate, edit: strictReserveTimeout,
		reason: "1.13 reads the timeout with read_u32: spaces then digits only, nothing after, at most INT_MAX; " +
			"anything else is BAD_FORMAT. 1.12's strtol took tabs, '+' and trailing garbage, and wrapped values " +
			"past 32 bits. stalkd keeps 1.12's one useful reading: a negative number waits forever (Java clients send -1)"},
	{name: "window-edge-crlf", kind: deliberate, edit: windowEdgeCRLF,
		reason: "a line whose CRLF straddles a 224-byte window (223 bytes, then CRLF) gets BAD_FORMAT at its CRLF; " +
			"the reference misses that CRLF and swallows the next command as the end of the bad line"},

	// Masked: values that legitimately differ between two processes.
	{name: "stats-pid", kind: masked, edit: maskValue(docStats, "pid", `[1-9][0-9]*`),
		reason: "two different processes"},
	{name: "stats-rusage-utime", kind: masked, edit: maskValue(docStats, "rusage-utime", `[0-9]+\.[0-9]{6}`),
		reason: "CPU time used by the process"},
	{name: "stats-rusage-stime", kind: masked, edit: maskValue(docStats, "rusage-stime", `[0-9]+\.[0-9]{6}`),
		reason: "CPU time used by the process"},
	{name: "stats-uptime", kind: masked, edit: maskValue(docStats, "uptime", `[0-9]+`),
		reason: "seconds since start: the servers may straddle a second boundary"},
	{name: "stats-id", kind: masked, edit: maskValue(docStats, "id", `[0-9a-f]{16}`),
		reason: "random per process"},
	{name: "stats-job-age", kind: masked, edit: maskValue(docJob, "age", `[0-9]+`),
		reason: "seconds since put: may straddle a second boundary (scripts check ranges instead)"},
	{name: "stats-job-time-left", kind: masked, edit: maskValue(docJob, "time-left", `-?[0-9]+`),
		reason: "truncated seconds to a deadline: may straddle a second boundary (scripts check ranges instead)"},
	{name: "stats-tube-pause-time-left", kind: masked, edit: maskValue(docTube, "pause-time-left", `-?[0-9]+`),
		reason: "truncated seconds to the unpause: may straddle a second boundary (scripts check ranges instead)"},
}

// diffKind says whether a row is a masked value or a deliberate departure.
type diffKind int

const (
	masked     diffKind = iota // cannot match between two processes; blanked on both sides
	deliberate                 // stalkd differs on purpose; the reference's reply is rewritten
)

// difference is one row of the table.
type difference struct {
	name   string
	kind   diffKind
	reason string
	edit   edit
}

// edit applies a row to one step's replies. It returns the new replies and
// whether it changed anything, or an error if a value does not have the shape
// the row expects.
type edit func(x stepCtx, rs []reply) ([]reply, bool, error)

// stepCtx is what an edit may know about the step.
type stepCtx struct {
	sent    string // all bytes the step wrote
	version string // the version stalkd's stats report
}

// normalize applies the table to one side's replies: the deliberate rows too
// when rewrite is set (the reference's replies, compared with stalkd's). It
// returns the comparable transcript, the rows that changed something, and
// any shape errors.
func normalize(x stepCtx, rs []reply, rewrite bool) (string, []string, []error) {
	var used []string
	var errs []error
	for _, d := range differences {
		if d.kind == deliberate && !rewrite {
			continue
		}
		out, changed, err := d.edit(x, rs)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.name, err))
			continue
		}
		if changed {
			used = append(used, d.name)
			rs = out
		}
	}
	return render(rs), used, errs
}

// docKind names the YAML documents that have per-key rows.
type docKind string

const (
	docStats docKind = "stats"
	docTube  docKind = "stats-tube"
	docJob   docKind = "stats-job"
)

// kindOf tells which document a reply carries, if any.
func kindOf(r reply) (docKind, []enginetest.Pair) {
	if r.Note != "" || !r.HasBody || !strings.HasPrefix(r.Head, "OK ") {
		return "", nil
	}
	pairs, ok := enginetest.ParseYAMLPairs(r.Body)
	if !ok || len(pairs) < 2 {
		return "", nil
	}
	switch {
	case pairs[0].Key == "current-jobs-urgent":
		return docStats, pairs
	case pairs[0].Key == "name":
		return docTube, pairs
	case pairs[0].Key == "id" && pairs[1].Key == "tube":
		return docJob, pairs
	}
	return "", nil
}

// editValues returns an edit that runs fn on the value of key in every
// document of kind k among the replies, re-encoding the body (and its byte
// count) when fn changes it.
func editValues(k docKind, key string, fn func(x stepCtx, v string) (string, error)) edit {
	return func(x stepCtx, rs []reply) ([]reply, bool, error) {
		changed := false
		out := append([]reply(nil), rs...)
		for i, r := range out {
			kind, pairs := kindOf(r)
			if kind != k {
				continue
			}
			for j, p := range pairs {
				if p.Key != key {
					continue
				}
				v, err := fn(x, p.Value)
				if err != nil {
					return nil, false, err
				}
				if v != p.Value {
					pairs[j].Value = v
					changed = true
				}
			}
			out[i] = r.WithBody(encodeDoc(pairs))
		}
		return out, changed, nil
	}
}

// encodeDoc renders pairs as the servers do: "---\n" then "key: value\n".
func encodeDoc(pairs []enginetest.Pair) []byte {
	b := []byte("---\n")
	for _, p := range pairs {
		b = append(b, p.Key+": "+p.Value+"\n"...)
	}
	return b
}

// yamlValues: stalkd quotes a free-form value only where bare it would break
// the YAML document (codec.AppendYAMLString).
func yamlValues(k docKind, keys ...string) edit {
	edits := make([]edit, len(keys))
	for i, key := range keys {
		edits[i] = yamlValue(k, key)
	}
	return func(x stepCtx, rs []reply) ([]reply, bool, error) {
		any := false
		for _, e := range edits {
			var changed bool
			var err error
			if rs, changed, err = e(x, rs); err != nil {
				return nil, false, err
			}
			any = any || changed
		}
		return rs, any, nil
	}
}

func yamlValue(k docKind, key string) edit {
	return editValues(k, key, func(_ stepCtx, v string) (string, error) {
		return string(codec.AppendYAMLString(nil, unquote(v))), nil
	})
}

// edgeLine matches a step that sent one over-long line, then list-tube-used.
var edgeLine = regexp.MustCompile("^([^\r\n]*)\r\nlist-tube-used\r\n$")

// windowEdgeCRLF: where the over-long line's \r was the last byte of a
// window, the reference answers only BAD_FORMAT (list-tube-used was eaten);
// stalkd also answers list-tube-used, which on the scripts' fresh
// connections is USING default.
func windowEdgeCRLF(x stepCtx, rs []reply) ([]reply, bool, error) {
	m := edgeLine.FindStringSubmatch(x.sent)
	if m == nil || len(m[1])%224 != 223 {
		return rs, false, nil
	}
	if len(rs) == 0 || rs[0].Head != "BAD_FORMAT" {
		return nil, false, fmt.Errorf("window edge: the reference answered %q", render(rs))
	}
	return append([]reply{rs[0], {Head: "USING default"}}, rs[1:]...), true, nil
}

// ourVersion: the reference's quoted version becomes stalkd's.
func ourVersion(x stepCtx, rs []reply) ([]reply, bool, error) {
	return editValues(docStats, "version", func(x stepCtx, v string) (string, error) {
		if !strings.HasPrefix(v, `"`) {
			return "", fmt.Errorf("version %s is not quoted", v)
		}
		return strconv.Quote(x.version), nil
	})(x, rs)
}

// maskValue blanks the value of key (keeping 1.13's quotes), after checking
// that it matches pattern.
func maskValue(k docKind, key, pattern string) edit {
	re := regexp.MustCompile(`^(?:` + pattern + `)$`)
	return editValues(k, key, func(_ stepCtx, v string) (string, error) {
		if !re.MatchString(unquote(v)) {
			return "", fmt.Errorf("%s %s: value %q does not match %s", k, key, v, pattern)
		}
		if unquote(v) != v {
			return `"*"`, nil
		}
		return "*", nil
	})
}

// rwtLine matches a step that sent exactly one reserve-with-timeout line.
var rwtLine = regexp.MustCompile("^reserve-with-timeout ([^\r\n]*)\r\n$")

// strictReserveTimeout: stalkd answers BAD_FORMAT to any timeout that is not
// spaces, then decimal digits up to INT_MAX (1.13), or a '-' and digits up to
// 2^31 (1.12's wait forever), then the end of the line.
func strictReserveTimeout(x stepCtx, rs []reply) ([]reply, bool, error) {
	m := rwtLine.FindStringSubmatch(x.sent)
	if m == nil {
		return rs, false, nil
	}
	arg := strings.TrimLeft(m[1], " ")
	limit := uint64(1<<31 - 1)
	if neg, ok := strings.CutPrefix(arg, "-"); ok {
		arg, limit = neg, 1<<31
	}
	n, err := strconv.ParseUint(arg, 10, 64)
	if err == nil && arg[0] >= '0' && arg[0] <= '9' && n <= limit {
		return rs, false, nil
	}
	return []reply{{Head: "BAD_FORMAT"}}, true, nil
}
