package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The docs are in layers (README.md teaches and maps, the detail lives beside
// the code), so they hold many relative links. Every one must resolve: the
// file or directory it names exists, and its #anchor (in this file or
// another markdown file) is one of that file's headings, slugged as GitHub
// slugs them.

// TestDocsLinksResolve checks every relative link of every *.md file in the
// repository.
func TestDocsLinksResolve(t *testing.T) {
	problems, gone := withoutPending(checkDocLinks(t, "../.."), docsPending)
	assert.Empty(t, problems, "broken links in the docs")
	assert.Empty(t, gone, "fixed since: delete these entries of docsPending")
}

// docsPending are broken links and mentions ("doc target", without the
// line) that another branch fixes in a file this one may not edit: links to
// the generated table of current figures that the benchmarks branch adds,
// and benchmarks/BENCHMARKS.md citing a design note that is not in the
// repository. TestDocsLinksResolve fails when one is no longer broken, so
// that the entry goes once the fix lands.
var docsPending = []string{}

// withoutPending drops the problems that pending lists and returns the
// rest, and the entries of pending that matched no problem.
func withoutPending(problems, pending []string) (rest, gone []string) {
	seen := map[string]bool{}
	for _, p := range problems {
		doc, after, _ := strings.Cut(p, ":")
		_, after, _ = strings.Cut(after, ": ")
		target, _, _ := strings.Cut(after, ": ")
		key := doc + " " + target
		if slices.Contains(pending, key) {
			seen[key] = true
			continue
		}
		rest = append(rest, p)
	}
	for _, k := range pending {
		if !seen[k] {
			gone = append(gone, k)
		}
	}
	return rest, gone
}

// TestDocsLinkCheckBites: the checker finds a missing file, a missing anchor
// in another file and in the same file, a file mentioned in prose that does
// not exist, and accepts what exists.
func TestDocsLinkCheckBites(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("README.md", "# Top\n\n## Quick start: `make run`\n\n## Quick start: `make run`\n\n"+
		"[ok](sub/GUIDE.md#flags-and-signals) [ok](#quick-start-make-run-1) [ok](sub/) "+
		"[ok](https://example.com/x.md) ![ok](sub/pic.png) [ok](sub/GUIDE.md)\n\n"+
		"[gone](sub/MISSING.md) [bad anchor](sub/GUIDE.md#nope) [bad local](#quick-start)\n\n"+
		"```sh\n[not a link](nowhere.md)\n# not a heading\n```\n\n`[code](nowhere.md)`\n")
	write("sub/GUIDE.md", "# Guide\n\n### Flags and signals\n\n[up](../README.md#top) [ref]\n\n[ref]: ../GONE.md\n")
	write("sub/pic.png", "png")
	write("sub/NOTES.md", "Mentions: `sub/pic.png`, `pic.png`, `../README.md`, `sub/`, `sub/GUIDE.md#flags-and-signals`,\n"+
		"see GUIDE.md and [NOTES.md](../README.md), `../shared/DESIGN.md`, https://example.com/gone.md,\n"+
		"`_test.go`, `application/json`, `-b DIR`, `jobs.Policy`, `go test ./...`, `../sub/`.\n"+
		"```sh\ncat engine/gone.go\n```\n"+
		"Gone: `engine/gone.go`, `GONE.md`, `jobs/nothing/`, `../jobs/x`, see DESIGN.md.\n")
	write(".git/x.md", "[ignored](missing.md)")

	problems := checkDocLinks(t, dir)
	assert.ElementsMatch(t, []string{
		"README.md:9: sub/MISSING.md: no such file",
		"README.md:9: sub/GUIDE.md#nope: no heading \"nope\" in sub/GUIDE.md",
		"README.md:9: #quick-start: no heading \"quick-start\" in README.md",
		"sub/GUIDE.md:7: ../GONE.md: no such file",
		"sub/NOTES.md:7: `engine/gone.go`: no such file",
		"sub/NOTES.md:7: `GONE.md`: no such file",
		"sub/NOTES.md:7: `jobs/nothing/`: no such file",
		"sub/NOTES.md:7: `DESIGN.md`: no such file",
		"sub/NOTES.md:7: `../jobs/x`: no such file",
	}, problems)
}

// checkDocLinks returns one line per broken link: "file:line: target: why".
func checkDocLinks(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, p)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)

	anchors := map[string]map[string]bool{} // by cleaned path
	docs := map[string]mdDoc{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		d := parseMarkdown(string(b))
		docs[filepath.Clean(f)] = d
		anchors[filepath.Clean(f)] = d.anchors
	}
	var problems []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, l := range docs[filepath.Clean(f)].links {
			if why := checkLink(f, l.target, anchors); why != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", filepath.ToSlash(rel), l.line, l.target, why))
			}
		}
		for _, m := range docs[filepath.Clean(f)].mentions {
			if why := checkMention(root, filepath.ToSlash(rel), m.target); why != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: `%s`: %s", filepath.ToSlash(rel), m.line, m.target, why))
			}
		}
	}
	return problems
}

// checkLink says what is wrong with one link target of file from, or "".
func checkLink(from, target string, anchors map[string]map[string]bool) string {
	if schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
		return "" // absolute URL: not ours to check
	}
	pathPart, anchor, _ := strings.Cut(target, "#")
	dest := filepath.Clean(from)
	if pathPart != "" {
		if strings.HasPrefix(pathPart, "/") {
			return "absolute path: use a relative link"
		}
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(pathPart))
		if _, err := os.Stat(dest); err != nil {
			return "no such file"
		}
	}
	if anchor == "" {
		return ""
	}
	set, ok := anchors[filepath.Clean(dest)]
	if !ok {
		return "" // an anchor into a non-markdown file (a line, say): not checked
	}
	if !set[strings.ToLower(anchor)] {
		shown := pathPart
		if shown == "" {
			shown = filepath.Base(from)
		}
		return fmt.Sprintf("no heading %q in %s", anchor, shown)
	}
	return ""
}
