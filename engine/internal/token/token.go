// Package token checks shared-secret tokens, for the protocol's auth
// command and the admin API's bearer tokens alike. It imports only the
// standard library. A Set is immutable once made and safe for concurrent
// use.
package token

import (
	"crypto/sha256"
	"crypto/subtle"
)

// Set holds accepted tokens as SHA-256 digests, so that a check takes the
// same time whatever the token's length or content, and compares against
// every token. The zero Set accepts nothing.
type Set [][sha256.Size]byte

// NewSet returns the set of tokens; empty strings are ignored.
func NewSet(tokens []string) Set {
	s := make(Set, 0, len(tokens))
	for _, t := range tokens {
		if t != "" {
			s = append(s, sha256.Sum256([]byte(t)))
		}
	}
	return s
}

// Match reports whether tok is one of the tokens.
func (s Set) Match(tok []byte) bool {
	d := sha256.Sum256(tok)
	ok := 0
	for i := range s {
		ok |= subtle.ConstantTimeCompare(s[i][:], d[:])
	}
	return ok == 1
}

// Empty reports whether the set holds no token (authentication is off).
func (s Set) Empty() bool { return len(s) == 0 }
