package admin

import "github.com/stalkd/stalkd/jobs"

// commandNames names the command counters of jobs.Stats.Cmds, as the
// protocol spells the commands (the label of stalkd_commands_total and the
// keys of /v1/stats "commands"). A counter without a name here is not
// exported.
var commandNames = [jobs.NumCmds]string{
	jobs.CmdPut:                "put",
	jobs.CmdPeek:               "peek",
	jobs.CmdPeekReady:          "peek-ready",
	jobs.CmdPeekDelayed:        "peek-delayed",
	jobs.CmdPeekBuried:         "peek-buried",
	jobs.CmdReserve:            "reserve",
	jobs.CmdReserveWithTimeout: "reserve-with-timeout",
	jobs.CmdDelete:             "delete",
	jobs.CmdRelease:            "release",
	jobs.CmdUse:                "use",
	jobs.CmdWatch:              "watch",
	jobs.CmdIgnore:             "ignore",
	jobs.CmdBury:               "bury",
	jobs.CmdKick:               "kick",
	jobs.CmdTouch:              "touch",
	jobs.CmdStats:              "stats",
	jobs.CmdStatsJob:           "stats-job",
	jobs.CmdStatsTube:          "stats-tube",
	jobs.CmdListTubes:          "list-tubes",
	jobs.CmdListTubeUsed:       "list-tube-used",
	jobs.CmdListTubesWatched:   "list-tubes-watched",
	jobs.CmdPauseTube:          "pause-tube",
	jobs.CmdReserveJob:         "reserve-job",
	jobs.CmdKickJob:            "kick-job",
}

// commandCounts returns the command counters by name.
func commandCounts(st *jobs.Stats) map[string]uint64 {
	m := make(map[string]uint64, len(commandNames))
	for i, name := range commandNames {
		if name != "" {
			m[name] = st.Cmds[i]
		}
	}
	return m
}
