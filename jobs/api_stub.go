package jobs

// TEMPORARY: exported surface of the queue while the implementation lands.
// Bodies panic; the real code replaces this file.

import (
	"context"
	"time"

	"github.com/rs/zerolog"
)

// Config configures a Queue. The zero value is usable: system clock, no
// journal, no logging.
type Config struct {
	Clock   Clock
	Journal Journal
	Logger  zerolog.Logger
}

// Queue is the whole job store: tubes, jobs, sessions and timers.
type Queue struct{}

// Session is one client's view of the queue (a connection).
type Session struct{}

func New(cfg Config) *Queue                                       { panic("todo") }
func (q *Queue) Run(ctx context.Context)                          { panic("todo") }
func (q *Queue) Tick()                                            { panic("todo") }
func (q *Queue) NextID() uint64                                   { panic("todo") }
func (q *Queue) SetDraining(on bool)                              { panic("todo") }
func (q *Queue) Draining() bool                                   { panic("todo") }
func (q *Queue) NewSession(wake func()) *Session                  { panic("todo") }
func (q *Queue) Stats() Stats                                     { panic("todo") }
func (q *Queue) StatsTube(name []byte) (TubeStats, error)         { panic("todo") }
func (q *Queue) StatsJob(id uint64) (JobStats, error)             { panic("todo") }
func (q *Queue) Peek(id uint64) (JobData, error)                  { panic("todo") }
func (q *Queue) ListTubes(dst []string) []string                  { panic("todo") }
func (q *Queue) PauseTube(name []byte, d time.Duration) error     { panic("todo") }
func (q *Queue) Restore(rec Record) error                         { panic("todo") }
func (q *Queue) Rewrite(id uint64) (seq uint64, ok bool)          { panic("todo") }
func (q *Queue) EnsureNextID(next uint64)                         { panic("todo") }
func (q *Queue) Committed(seq uint64) (done bool, err error)      { panic("todo") }
func (s *Session) Use(name []byte) error                          { panic("todo") }
func (s *Session) Used() string                                   { panic("todo") }
func (s *Session) Watch(name []byte) (int, error)                 { panic("todo") }
func (s *Session) Ignore(name []byte) (int, error)                { panic("todo") }
func (s *Session) Watched(dst []string) []string                  { panic("todo") }
func (s *Session) Put(r PutRequest) (id, seq uint64, err error)   { panic("todo") }
func (s *Session) Reserve(timeout time.Duration) (JobData, error) { panic("todo") }
func (s *Session) TakeOutcome() (JobData, error)                  { panic("todo") }
func (s *Session) ReserveJob(id uint64) (JobData, uint64, error)  { panic("todo") }
func (s *Session) Delete(id uint64) (uint64, error)               { panic("todo") }
func (s *Session) Release(id uint64, pri uint32, delay time.Duration) (uint64, error) {
	panic("todo")
}
func (s *Session) Bury(id uint64, pri uint32) (uint64, error)        { panic("todo") }
func (s *Session) Touch(id uint64) error                             { panic("todo") }
func (s *Session) Kick(n uint32) (kicked int, seq uint64, err error) { panic("todo") }
func (s *Session) KickJob(id uint64) (uint64, error)                 { panic("todo") }
func (s *Session) PeekReady() (JobData, error)                       { panic("todo") }
func (s *Session) PeekDelayed() (JobData, error)                     { panic("todo") }
func (s *Session) PeekBuried() (JobData, error)                      { panic("todo") }
func (s *Session) Count(c Cmd)                                       { panic("todo") }
func (s *Session) Close()                                            { panic("todo") }
