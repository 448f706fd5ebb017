package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

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
	problems := checkDocLinks(t, "../..")
	assert.Empty(t, problems, "broken links in the docs")
}

// TestDocsLinkCheckBites: the checker finds a missing file, a missing anchor
// in another file and in the same file, and accepts what exists.
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
	write(".git/x.md", "[ignored](missing.md)")

	problems := checkDocLinks(t, dir)
	assert.ElementsMatch(t, []string{
		"README.md:9: sub/MISSING.md: no such file",
		"README.md:9: sub/GUIDE.md#nope: no heading \"nope\" in sub/GUIDE.md",
		"README.md:9: #quick-start: no heading \"quick-start\" in README.md",
		"sub/GUIDE.md:7: ../GONE.md: no such file",
	}, problems)
}

func TestGitHubSlugs(t *testing.T) {
	for heading, want := range map[string]string{
		"Operations: metrics, health checks, admin API and dashboard": "operations-metrics-health-checks-admin-api-and-dashboard",
		"Prometheus metrics: `GET /metrics`":                          "prometheus-metrics-get-metrics",
		"JSON API under `/v1/`":                                       "json-api-under-v1",
		"`stalkctl`: the command line for operators":                  "stalkctl-the-command-line-for-operators",
		"Adding, removing and replacing nodes":                        "adding-removing-and-replacing-nodes",
		"See [the guide](x.md) now":                                   "see-the-guide-now",
		"A_b  c--d":                                                   "a_b--c--d",
	} {
		assert.Equal(t, want, githubSlug(heading), heading)
	}
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

var (
	schemeRE  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	// inline links and images: [text](target "title"); text may hold one
	// level of brackets (an image inside a link).
	inlineRE = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// reference definitions: [label]: target
	refDefRE   = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	codeSpanRE = regexp.MustCompile("`+[^`]*`+")
	htmlIDRE   = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

type mdLink struct {
	target string
	line   int
}

type mdDoc struct {
	links   []mdLink
	anchors map[string]bool
}

// parseMarkdown collects a document's links (outside code) and the anchors
// its headings make.
func parseMarkdown(text string) mdDoc {
	d := mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			slug := githubSlug(m[2])
			if n := seen[slug]; n > 0 {
				d.anchors[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				d.anchors[slug] = true
			}
			seen[slug]++
		}
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			d.anchors[strings.ToLower(m[1])] = true
		}
		plain := codeSpanRE.ReplaceAllString(line, "")
		for _, m := range inlineRE.FindAllStringSubmatch(plain, -1) {
			if m[1] != "" {
				d.links = append(d.links, mdLink{m[1], i + 1})
			}
		}
		if m := refDefRE.FindStringSubmatch(plain); m != nil {
			d.links = append(d.links, mdLink{m[1], i + 1})
		}
	}
	return d
}

// githubSlug is the anchor GitHub gives a heading: its text (code spans and
// links reduced to their text) lowercased, every character that is not a
// letter, digit, space, hyphen or underscore dropped, spaces turned into
// hyphens. A repeated slug gets -1, -2, ... (parseMarkdown adds those).
func githubSlug(heading string) string {
	heading = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '_', r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
