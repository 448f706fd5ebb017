package admin

import (
	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// The command counters of jobs.Stats.Cmds are indexed by codec.Op (the
// engine counts that way); their names come from codec's command table, as
// the protocol spells the commands: the label of stalkd_commands_total and
// the keys of /v1/stats "commands". Every counted command is exported,
// stalkd's own (clear-tube, list-jobs) and the unreported ones (reserve-job,
// kick-job) included.
var counted = func() (cs []codec.Spec) {
	for _, s := range codec.Commands() {
		if s.Counted {
			cs = append(cs, s)
		}
	}
	return cs
}()

// commandCounts returns the command counters by name.
func commandCounts(st *jobs.Stats) map[string]uint64 {
	m := make(map[string]uint64, len(counted))
	for _, s := range counted {
		m[s.Op.String()] = st.Cmds[s.Op]
	}
	return m
}
