package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A doc that names a file in prose - a code span such as `engine/tls.go`,
// `POLICIES.md` or `../../jobs/policy/` - must name one that exists, as a
// link must (TestDocsLinksResolve checks both). A mention resolves from the
// doc's own directory or from the repository's root. Paths outside the
// repository, and files of other projects that a doc names, are listed in
// mentionsElsewhere. Plain words count too where they end in .md or .go
// ("see DESIGN.md"); a link's text does not (its target is checked).

// mentionExts are the file kinds a code span must end in to count as a file
// mention; a span with a slash also counts when its first element is one of
// the repository's top-level entries (`engine/embed`, `jobs/policy/`).
var mentionExts = []string{".go", ".md", ".yaml", ".yml", ".json", ".sh", ".service", ".socket", ".mod", ".sum", ".txt", ".golden"}

var (
	mentionRE   = regexp.MustCompile(`^(?:\.\.?/)*[A-Za-z0-9][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*/?$`)
	urlRE       = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://\S*`)
	proseFileRE = regexp.MustCompile(`(?:^|[\s(\["'])((?:\.\.?/)*[A-Za-z0-9][A-Za-z0-9_./-]*\.(?:md|go))(?:$|[\s).,;:!?'"\]])`)
	topLevel    = map[string]bool{"engine": true, "codec": true, "jobs": true, "wal": true, "cmd": true,
		"benchmarks": true, "fuzz": true, ".ci": true}
)

// mentionsElsewhere are file mentions that are not the repository's files:
// by prefix, paths outside it (the shared notes beside the checkout, named
// from the repository's root), and per doc, the files of other projects or
// of the reader's machine that it names.
var mentionsElsewhere = struct {
	prefixes []string
	byDoc    map[string][]string
}{
	prefixes: []string{"../shared/"},
	byDoc: map[string][]string{
		"README.md":                {"doc.go"},             // "each package's doc.go"
		"benchmarks/BENCHMARKS.md": {"wal.go"},             // tidwall/wal's source
		"cmd/stalkd/SWITCHING.md":  {"beanstalkd.service"}, // Debian's unit
	},
}

// proseMentions returns the markdown and Go files that a line of prose
// (its code spans removed) names in plain words, such as "see DESIGN.md" or
// "(nudge.go)"; link targets and URLs are not prose.
func proseMentions(plain string) []string {
	plain = inlineRE.ReplaceAllString(plain, " ")
	plain = urlRE.ReplaceAllString(plain, "")
	var out []string
	for _, m := range proseFileRE.FindAllStringSubmatch(plain, -1) {
		out = append(out, m[1])
	}
	return out
}

// fileMention returns the path a code span names, if it names one.
func fileMention(span string) (string, bool) {
	p := strings.TrimSpace(strings.Trim(span, "`"))
	if !mentionRE.MatchString(p) {
		return "", false
	}
	for _, ext := range mentionExts {
		if strings.HasSuffix(p, ext) {
			return p, true
		}
	}
	first, _, slash := strings.Cut(strings.TrimLeft(p, "./"), "/")
	if slash && topLevel[first] && !strings.HasPrefix(p, "../") {
		return p, true
	}
	return "", false
}

// checkMention says what is wrong with one file mention of the doc rel
// (its path from root, slashed) in the repository at root, or "".
func checkMention(root, rel, mention string) string {
	for _, pre := range mentionsElsewhere.prefixes {
		if strings.HasPrefix(mention, pre) {
			return ""
		}
	}
	for _, name := range mentionsElsewhere.byDoc[rel] {
		if mention == name {
			return ""
		}
	}
	p := filepath.FromSlash(mention)
	for _, base := range []string{filepath.Join(root, filepath.Dir(filepath.FromSlash(rel))), root} {
		dest := filepath.Join(base, p)
		if inside(root, dest) && exists(dest) {
			return ""
		}
	}
	return "no such file"
}

// inside reports whether p lies in the directory root.
func inside(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestDocsPendingBites: a pending problem is dropped wherever its line, and
// a pending entry that matches nothing is reported.
func TestDocsPendingBites(t *testing.T) {
	rest, gone := withoutPending([]string{
		"README.md:12: a.md#x: no heading \"x\" in a.md",
		"README.md:40: `b.go`: no such file",
		"sub/C.md:3: `b.go`: no such file",
	}, []string{"README.md a.md#x", "sub/C.md `b.go`", "README.md fixed.md"})
	assert.Equal(t, []string{"README.md:40: `b.go`: no such file"}, rest)
	assert.Equal(t, []string{"README.md fixed.md"}, gone)
}
