package main

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// Exit codes of -u, as the reference's.
const (
	exitUserLookup  = 32 // the user database could not be read
	exitUnknownUser = 33 // no such user
	exitSetID       = 34 // setgid or setuid failed
)

// exitError carries the process exit code of a start-up failure.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// becomeUser switches the process to name's uid and primary gid, as -u
// does after the socket is bound. Unlike the reference, a root process
// also drops its supplementary groups first (the reference keeps root's).
func becomeUser(name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		var unknown user.UnknownUserError
		if errors.As(err, &unknown) {
			return &exitError{exitUnknownUser, fmt.Errorf("getpwnam(%q): no such user", name)}
		}
		return &exitError{exitUserLookup, fmt.Errorf("getpwnam(%q): %w", name, err)}
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return &exitError{exitUserLookup, fmt.Errorf("user %q has a non-numeric uid or gid", name)}
	}
	if os.Geteuid() == 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return &exitError{exitSetID, fmt.Errorf("setgroups: %w", err)}
		}
	}
	if err := syscall.Setgid(gid); err != nil {
		return &exitError{exitSetID, fmt.Errorf("setgid(%d %q): %w", gid, name, err)}
	}
	if err := syscall.Setuid(uid); err != nil {
		return &exitError{exitSetID, fmt.Errorf("setuid(%d %q): %w", uid, name, err)}
	}
	return nil
}
