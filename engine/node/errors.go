package node

import "errors"

// The kinds of Start's failures that a program tells apart (the daemon
// maps them to its exit codes). An error of a kind keeps the words of its
// cause: errors.Is matches both the kind and the cause (wal.ErrLocked,
// say). Other failures - a journal that cannot be read, a certificate
// file, AfterBind's error - are returned as they are.
var (
	// ErrBind: a port could not be bound (the client port, the TLS port,
	// the admin port), or its address is not one.
	ErrBind = errors.New("node: cannot bind")
	// ErrClusterDir: the raft node could not open its stores under
	// Journal.Dir, or start on them.
	ErrClusterDir = errors.New("node: cannot open the cluster's state")
)

// kindError is err, of kind: its message is err's.
type kindError struct{ kind, err error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// ofKind wraps err (nil stays nil).
func ofKind(kind, err error) error {
	if err == nil {
		return nil
	}
	return &kindError{kind: kind, err: err}
}
