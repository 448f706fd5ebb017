package embed

import (
	"context"
	"fmt"
	"time"
)

// handle runs the handler on job, touching it while the handler runs long,
// then finishes the job by the outcome: delete on success, bury on a panic
// or the last allowed failure, release with backoff otherwise.
func (w *Worker) handle(job Job) {
	pri, ttr, failures := uint32(0), time.Second, 0
	if st, err := job.Stats(); err == nil {
		pri, ttr = st.Pri, st.TTR
		failures = int(st.Releases) + int(st.Timeouts)
	}
	stopTouch := w.touch(job, ttr)
	err, panicked := w.call(job)
	stopTouch()
	if job.done() {
		return // the handler finished it
	}
	ctx := context.Background() // finishing waits for the journal only
	var ferr error
	switch {
	case panicked:
		w.log.Error().Err(err).Uint64("job_id", job.ID).Msg("handler panicked; job buried")
		ferr = job.Bury(ctx, pri)
	case err == nil:
		ferr = job.Delete(ctx)
	case w.hctx.Err() != nil:
		job.giveBack() // cut off by Stop: not the job's failure
	case w.o.MaxFailures > 0 && failures+1 >= w.o.MaxFailures:
		w.log.Warn().Err(err).Uint64("job_id", job.ID).Int("failures", failures+1).
			Msg("handler failed too often; job buried")
		ferr = job.Bury(ctx, pri)
	default:
		ferr = job.Release(ctx, pri, w.o.Backoff(failures+1))
	}
	if ferr != nil && ferr != ErrNotFound {
		// The job stays reserved until its TTR ends, then comes back.
		w.log.Warn().Err(ferr).Uint64("job_id", job.ID).Msg("could not finish job")
		job.giveBack()
	}
}

// call runs the handler, turning a panic into an error.
func (w *Worker) call(job Job) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked = fmt.Errorf("panic: %v", r), true
		}
	}()
	return w.h(w.hctx, job), false
}

// touch keeps job reserved while its handler runs: it touches the job each
// time half its TTR has passed. The returned function stops it and waits
// until no touch runs.
func (w *Worker) touch(job Job, ttr time.Duration) (stop func()) {
	quit, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		for {
			c, cancel := w.after(ttr / 2)
			select {
			case <-c:
				if job.Touch() != nil {
					return // finished, or its TTR ended already
				}
			case <-quit:
				cancel()
				return
			}
		}
	}()
	return func() { close(quit); <-over }
}
