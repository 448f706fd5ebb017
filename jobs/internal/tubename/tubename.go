// Package tubename is the protocol's tube-name grammar, shared by the queue
// (package jobs: ValidTubeName, MaxTubeName) and the tube policies (package
// jobs/policy: a dead-letter tube must be a valid name). It imports nothing;
// its character table is built once at init and only read afterwards, so
// Valid is safe for concurrent use.
package tubename

// Max is the longest tube name, in bytes.
const Max = 200

// Valid reports whether name is a legal tube name: 1 to Max bytes of
// A-Z a-z 0-9 - + / ; . $ _ ( ), not starting with '-'.
func Valid(name []byte) bool {
	if len(name) == 0 || len(name) > Max || name[0] == '-' {
		return false
	}
	for _, c := range name {
		if !nameChar[c] {
			return false
		}
	}
	return true
}

var nameChar = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-+/;.$_()" {
		t[c] = true
	}
	return t
}()
