package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// table accumulates rows and prints them aligned: the first column left,
// the others right (they are numbers). Not safe for concurrent use.
type table struct {
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints the table, each line cut to width runes when width > 0.
func (t *table) write(w io.Writer, width int) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				b.WriteString(c)
				if len(r) > 1 {
					b.WriteString(pad)
				}
			default:
				b.WriteString("  ")
				b.WriteString(pad)
				b.WriteString(c)
			}
		}
		io.WriteString(w, cut(b.String(), width)+"\n")
	}
}

// cut shortens s to width runes (width <= 0: no limit).
func cut(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width])
}
