package main

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A doc that names a file in prose - a code span such as `engine/tls.go`,
// `POLICIES.md` or `../../jobs/policy/` - must name one that exists, as a
// link must (TestDocsLinksResolve checks both). A mention resolves from the
// doc's own directory or one above it, up to the repository's root. Paths
// outside the repository, and files of other projects that a doc names,
// are listed in mentionsElsewhere. Plain words count too where they end in
// .md or .go ("see engine/COMPATIBILITY.md"); a link's text does not (its
// target is checked). TestGoCommentsMentionFiles holds the Go comments to
// the same rules.

// mentionExts are the file kinds a code span must end in to count as a file
// mention; a span with a slash also counts when its first element is one of
// the repository's top-level entries (`engine/embed`, `jobs/policy/`).
var mentionExts = []string{".go", ".md", ".yaml", ".yml", ".json", ".sh", ".service", ".socket", ".mod", ".sum", ".txt", ".golden"}

var (
	mentionRE   = regexp.MustCompile(`^(?:\.\.?/)*[A-Za-z0-9][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*/?$`)
	urlRE       = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://\S*`)
	proseFileRE = regexp.MustCompile(`(?:^|[\s(\["'])((?:\.\.?/)*[A-Za-z0-9][A-Za-z0-9_./-]*\.(?:md|go))(?:$|[\s).,;:!?'"\]])`)
	topLevel    = map[string]bool{"engine": true, "codec": true, "jobs": true, "wal": true, "cmd": true,
		"benchmarks": true, "fuzz": true}
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
		"README.md":                {"doc.go"},                      // each package's doc file
		"benchmarks/BENCHMARKS.md": {"wal.go"},                      // tidwall/wal's source
		"cmd/stalkd/SWITCHING.md":  {"beanstalkd.service"},          // Debian's unit
		"wal/raft/README.md":       {"summary.json", "explain.txt"}, // what a robustness run writes
	},
}

// proseMentions returns the markdown and Go files that a line of prose
// (its code spans removed) names in plain words, such as "see
// jobs/POLICIES.md" or "(engine/nudge.go)"; link targets and URLs are not
// prose.
func proseMentions(plain string) []string {
	if !strings.Contains(plain, ".md") && !strings.Contains(plain, ".go") {
		return nil // the common case, without the regular expressions
	}
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
	rest := p
	for strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
		_, rest, _ = strings.Cut(rest, "/")
	}
	if first, _, slash := strings.Cut(rest, "/"); slash && topLevel[first] {
		return p, true
	}
	return "", false
}

// checkMention says what is wrong with one file mention of the doc rel
// (its path from root, slashed) in the repository at root, or "". The
// mention may be relative to the doc's directory or any directory above it
// up to root (the benchmarks' notes named from benchmarks/cmd/stalkd-bench).
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
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		dest := filepath.Join(root, filepath.FromSlash(dir), p)
		if inside(root, dest) && exists(dest) {
			return ""
		}
		if dir == "." {
			return "no such file"
		}
	}
}

// inside reports whether p lies in the directory root.
func inside(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// exists reports whether p names a file or directory.
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

// TestGoCommentsMentionFiles: the Go sources' comments are docs too (go doc
// shows them); a .go or .md file they name in words must exist, by the
// same rules as the markdown's mentions (from the package's directory or
// the repository's root).
func TestGoCommentsMentionFiles(t *testing.T) {
	assert.Empty(t, checkGoMentions(t, "../.."), "comments naming files that do not exist")
}

// TestGoCommentsMentionFilesBites: a missing file named in a comment is
// found, in a doc comment and a line comment alike; what exists is not.
func TestGoCommentsMentionFilesBites(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("README.md", "# x\n")
	write("a/doc.go", "// Package a: see README.md, b.go and a/doc.go; not gone.go.\npackage a\n")
	write("a/c/c.go", "// Package c: NOTES.md, as a/NOTES.md, and README.md are above; ../c.go is not.\npackage c\n")
	write("a/NOTES.md", "notes\n")
	write("a/b.go", "package a\n\nvar x = 1 // as in GONE.md, https://example.com/c.go\n")
	assert.ElementsMatch(t, []string{
		"a/doc.go:1: gone.go: no such file",
		"a/b.go:3: GONE.md: no such file",
		"a/c/c.go:1: ../c.go: no such file",
	}, checkGoMentions(t, dir))
}

// checkGoMentions returns one line per file mention in a Go comment under
// root that names no file: "file:line: mention: why".
func checkGoMentions(t *testing.T, root string) []string {
	t.Helper()
	var problems []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		var sc scanner.Scanner
		file := fset.AddFile(p, -1, len(src))
		sc.Init(file, src, nil, scanner.ScanComments)
		for {
			pos, tok, lit := sc.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.COMMENT {
				continue
			}
			line := file.Line(pos)
			for i, text := range strings.Split(lit, "\n") {
				for _, m := range proseMentions(text) {
					if why := checkMention(root, rel, m); why != "" {
						problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", rel, line+i, m, why))
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	return problems
}
