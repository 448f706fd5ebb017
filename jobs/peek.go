package jobs

// Peek returns any job by id, whatever its state and tube.
func (q *Queue) Peek(id uint64) (JobData, error) {
	d, ok := q.jobs.data(id)
	if !ok {
		return JobData{}, ErrNotFound
	}
	return d, nil
}

// PeekReady returns the next job reserve would take from the used tube
// (ignoring a pause).
func (s *Session) PeekReady() (JobData, error) {
	return s.peekTop(func(t *tube) *job { return t.ready.top() })
}

// PeekDelayed returns the delayed job of the used tube that becomes ready
// first.
func (s *Session) PeekDelayed() (JobData, error) {
	return s.peekTop(func(t *tube) *job { return t.delayed.top() })
}

// PeekBuried returns the oldest buried job of the used tube.
func (s *Session) PeekBuried() (JobData, error) {
	return s.peekTop(func(t *tube) *job { return t.buried.head })
}

func (s *Session) peekTop(pick func(*tube) *job) (JobData, error) {
	t := s.use
	t.mu.Lock()
	defer t.mu.Unlock()
	j := pick(t)
	if j == nil {
		return JobData{}, ErrNotFound
	}
	return j.data(), nil
}
