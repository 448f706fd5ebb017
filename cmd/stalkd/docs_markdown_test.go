package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

// The markdown the docs tests read: links, file mentions and the anchors
// headings make, as GitHub renders them.

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
	// a link in a heading, which slugs as its text
	headingLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

type mdLink struct {
	target string
	line   int
}

type mdDoc struct {
	links    []mdLink
	mentions []mdLink // code spans in prose that name a file: see docs_mentions_test.go
	anchors  map[string]bool
}

// parseMarkdown collects a document's links (outside code), its file
// mentions (code spans outside fenced blocks) and the anchors its headings
// make.
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
		for _, span := range codeSpanRE.FindAllString(line, -1) {
			if p, ok := fileMention(span); ok {
				d.mentions = append(d.mentions, mdLink{p, i + 1})
			}
		}
		plain := codeSpanRE.ReplaceAllString(line, "")
		for _, m := range inlineRE.FindAllStringSubmatch(plain, -1) {
			if m[1] != "" {
				d.links = append(d.links, mdLink{m[1], i + 1})
			}
		}
		if m := refDefRE.FindStringSubmatch(plain); m != nil {
			d.links = append(d.links, mdLink{m[1], i + 1})
			continue
		}
		for _, p := range proseMentions(plain) {
			d.mentions = append(d.mentions, mdLink{p, i + 1})
		}
	}
	return d
}

// githubSlug is the anchor GitHub gives a heading: its text (code spans and
// links reduced to their text) lowercased, every character that is not a
// letter, digit, space, hyphen or underscore dropped, spaces turned into
// hyphens. A repeated slug gets -1, -2, ... (parseMarkdown adds those).
func githubSlug(heading string) string {
	heading = headingLinkRE.ReplaceAllString(heading, "$1")
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
