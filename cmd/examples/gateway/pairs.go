package main

import (
	"sync"
	"time"
)

// putTimes pairs each job's put with the start of its handler, for the "Put
// to handler start" figure, without touching the job's body: a body is
// exactly what the caller sent, so a remote worker in any language reads it
// unchanged. The handler may start before Put returns (the job is ready
// before its commit is acknowledged), so whichever side comes second
// records the pair. Safe for concurrent use.
type putTimes struct {
	mu      sync.Mutex
	put     map[uint64]time.Time // put returned, handler not yet started
	started map[uint64]time.Time // handler started, put not yet returned
}

// maxUnpaired bounds the handler-side map: jobs put by other producers
// never pair, and are forgotten past this many.
const maxUnpaired = 10000

func newPutTimes() *putTimes {
	return &putTimes{put: map[uint64]time.Time{}, started: map[uint64]time.Time{}}
}

// putDone records that the put of id began at begin; it returns the
// latency if the handler had already started.
func (p *putTimes) putDone(id uint64, begin time.Time) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.started[id]; ok {
		delete(p.started, id)
		return max(s.Sub(begin), 0), true
	}
	p.put[id] = begin
	return 0, false
}

// handlerStarted records that id's handler started at now; it returns the
// latency if the put had already returned.
func (p *putTimes) handlerStarted(id uint64, now time.Time) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.put[id]; ok {
		delete(p.put, id)
		return now.Sub(b), true
	}
	if len(p.started) >= maxUnpaired {
		clear(p.started)
	}
	p.started[id] = now
	return 0, false
}
