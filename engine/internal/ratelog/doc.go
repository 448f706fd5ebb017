// Package ratelog lets a recurring warning through at most once per
// interval and counts the events in between, so that the line that does
// get through says how many it stands for (accept failures, refused
// connections, failed TLS handshakes, budget closes).
//
// It imports only the standard library. A Log's zero value is ready and
// safe for concurrent use; tests inject its clock (Log.Now).
package ratelog
