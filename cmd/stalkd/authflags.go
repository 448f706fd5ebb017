package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// --auth-token-file FILE turns token authentication on: the file holds one
// or more tokens, one per line (blank lines and lines starting with # are
// skipped, surrounding spaces trimmed).
func init() {
	addStringFlags(map[string]func(o *options) *string{
		"auth-token-file": func(o *options) *string { return &o.authTokenFile },
	})
}

// authUsage documents the auth flag, after the TLS flags.
const authUsage = ` --auth-token-file FILE
          require "auth <token>" before any other command, with one of the
          tokens in FILE (one per line); a client certificate accepted by
          --tls-client-ca needs no token
`

// minTokenLen is the shortest token accepted: a short one is guessable.
const minTokenLen = 16

// readTokens reads a token file. It refuses a file without tokens, a token
// shorter than minTokenLen, and a token holding a space (auth could not
// carry it). The error never quotes a token.
func readTokens(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("auth token file: %w", err)
	}
	defer f.Close()
	var tokens []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case len(line) < minTokenLen:
			return nil, fmt.Errorf("auth token file %s, line %d: a token must have at least %d characters", path, n, minTokenLen)
		case strings.ContainsAny(line, " \t"):
			return nil, fmt.Errorf("auth token file %s, line %d: a token cannot hold spaces", path, n)
		}
		tokens = append(tokens, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("auth token file: %w", err)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("auth token file %s holds no token", path)
	}
	return tokens, nil
}
