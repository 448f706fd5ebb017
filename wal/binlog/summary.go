package binlog

import "sort"

// Counts are jobs per state, as 1.12 shows them once it has replayed them.
type Counts struct{ Ready, Delayed, Buried int }

// Total is the number of jobs counted.
func (c Counts) Total() int { return c.Ready + c.Delayed + c.Buried }

func (c *Counts) add(s State) {
	switch s {
	case Delayed:
		c.Delayed++
	case Buried:
		c.Buried++
	default:
		c.Ready++
	}
}

// Summary is what a set of replayed jobs comes to at a given time: counts
// per state, overall and per tube, and the range of their ids.
type Summary struct {
	Total Counts
	Tubes map[string]Counts
	// MinID and MaxID bound the live jobs' ids (both 0 without jobs).
	MinID, MaxID uint64
}

// Summarize counts jobs in the states Restarted(now) gives them.
func Summarize(jobs []*Job, now int64) Summary {
	s := Summary{Tubes: make(map[string]Counts)}
	for _, j := range jobs {
		st := j.Restarted(now).State
		s.Total.add(st)
		c := s.Tubes[j.Tube]
		c.add(st)
		s.Tubes[j.Tube] = c
		if s.MinID == 0 || j.ID < s.MinID {
			s.MinID = j.ID
		}
		s.MaxID = max(s.MaxID, j.ID)
	}
	return s
}

// TubeNames returns the summary's tubes, sorted.
func (s Summary) TubeNames() []string {
	names := make([]string, 0, len(s.Tubes))
	for n := range s.Tubes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
