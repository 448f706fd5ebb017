// Package memreturn gives a drained backlog's memory back to the operating
// system: Watch polls what a jobs.Queue holds once a second and, after a
// large drain, forces the collection (GiveBack) that returns freed pages,
// at most once per gap. The protocol server and the embedded queue start
// it; one watcher runs per queue however many start it.
//
// It imports jobs and the standard library. Watch and GiveBack are safe
// for concurrent use; the watcher's decisions (memReturn) take time as an
// input.
package memreturn
