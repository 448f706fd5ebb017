package wal

import (
	"github.com/stalkd/stalkd/jobs"
)

// The on-disk format. Every tidwall/wal entry holds exactly one record:
//
//	crc32c  uint32, little endian, over every byte after it
//	kind    byte: 1 put, 2 update, 3 delete, 4 clear, 5 policy,
//	        6 scheduled put, 7 dead put, 10 extended policy, 11 policy set,
//	        16 meta
//	put:    uvarint id, byte state, uvarint pri, varint delay, varint ttr,
//	        varint created, varint deadline, uvarint reserves, timeouts,
//	        releases, buries, kicks, uvarint len(tube), tube,
//	        uvarint len(body)+2, body, "\r\n"
//	update: the put fields up to kicks (no tube, no body)
//	delete: uvarint id
//	clear:  uvarint n, then n ids: the first as a uvarint, each next one as
//	        a zigzag varint of its difference from the one before (a sorted
//	        list costs about one byte per id)
//	meta:   uvarint durable, uvarint logStart, uvarint maxID
//	policy: uvarint len(tube), tube, byte 0 (removed) or 1 and:
//	        uvarint max_reserves, uvarint len(dead_letter), dead_letter,
//	        uvarint max_ready, reserve_rate as 8 bytes (float64 bits, little
//	        endian), uvarint n, then n schedules: uvarint len(cron), cron,
//	        uvarint len(body), body, uvarint priority, uvarint ttr, varint
//	        fired (Clock ns: the schedule's last fire time)
//	scheduled put: the put fields, then uvarint sched (the schedule's
//	        number plus one), varint schedAt (the time it fired for)
//	dead put: (7) a put whose job moved into a dead-letter tube: the put
//	        fields, then uvarint sched (0: not a scheduled put) and, if
//	        not 0, varint schedAt; uvarint len(origin), origin (the tube
//	        it left), byte reason (1 max_reserves after a release, 2
//	        max_reserves after a timeout, 3 overflow), varint at (Clock
//	        ns: when it moved). See wal/internal/fields/dead.go.
//	extended policy: a policy with a field the policy layout lacks
//	        (overflow): the policy fields, then extension fields
//	        (wal/internal/fields/policyext.go); a policy without one is
//	        still written as kind 5
//	policy set: every tube's policy at once (jobs.RecPolicySet): uvarint
//	        n, then n times tube and policy fields with extension fields,
//	        tubes in name order (wal/internal/fields/policyext.go)
//
// The body is the job data framed as on the protocol's wire: the CRLF is on
// disk (and counted in the length) though the queue keeps bodies without it;
// the encoder appends it and the decoder checks and strips it.
//
// state is 1 ready, 2 reserved (never written: a reserved job is logged as
// ready, but a reader accepts it), 3 delayed, 4 buried. Durations are
// nanoseconds; created and deadline are Clock times in nanoseconds.
//
// These numbers are the format's own, not jobs' enum values: kindOf,
// kindByte, stateOf and stateByte map between them, so reordering an enum
// in jobs cannot change what a file means. The golden fixtures in
// testdata/ pin every record kind and a whole log directory; a change of
// the encoding fails TestGolden*. A future format uses new kind numbers; a
// reader refuses kinds and states it does not know (as corruption), so an
// old binary never misreads a new log.
//
// AppendRecord and DecodeRecord encode and decode one job record in this
// format; they are the format's public API (the Raft FSM applies the same
// records).
const (
	kindPut    byte = 1
	kindUpdate byte = 2
	kindDelete byte = 3
	kindClear  byte = 4
	// kindPolicy and kindSchedPut came with tube policies; a log without
	// policies holds neither, and an older binary refuses them.
	kindPolicy   byte = 5
	kindSchedPut byte = 6
	// kindDeadPut came with dead letters that remember their origin; an
	// older binary refuses it.
	kindDeadPut byte = 7
	// kindPolicyExt and kindPolicySet came with max_ready's overflow and
	// policy files applied whole; an older binary refuses them.
	kindPolicyExt byte = 10
	kindPolicySet byte = 11
	kindMeta      byte = 0x10

	stateReady    byte = 1
	stateReserved byte = 2
	stateDelayed  byte = 3
	stateBuried   byte = 4

	// kindInvalid is written for a record kind the format does not know
	// (Append refuses such records first); every reader refuses it.
	kindInvalid byte = 0
)

// kindByte is the format's byte for k; ok is false for a kind the format
// does not know.
func kindByte(k jobs.RecordKind) (b byte, ok bool) {
	switch k {
	case jobs.RecPut:
		return kindPut, true
	case jobs.RecUpdate:
		return kindUpdate, true
	case jobs.RecDelete:
		return kindDelete, true
	case jobs.RecClear:
		return kindClear, true
	case jobs.RecPolicy:
		return kindPolicy, true
	case jobs.RecPolicySet:
		return kindPolicySet, true
	}
	return kindInvalid, false
}

// kindOf is the job record kind of the format's byte b; ok is false for
// meta records and unknown bytes.
func kindOf(b byte) (k jobs.RecordKind, ok bool) {
	switch b {
	case kindPut:
		return jobs.RecPut, true
	case kindUpdate:
		return jobs.RecUpdate, true
	case kindDelete:
		return jobs.RecDelete, true
	case kindClear:
		return jobs.RecClear, true
	case kindPolicy:
		return jobs.RecPolicy, true
	case kindSchedPut, kindDeadPut:
		return jobs.RecPut, true
	case kindPolicyExt:
		return jobs.RecPolicy, true
	case kindPolicySet:
		return jobs.RecPolicySet, true
	}
	return 0, false
}

// stateByte is the format's byte for s; ok is false for a state the format
// does not know.
func stateByte(s jobs.State) (b byte, ok bool) {
	switch s {
	case jobs.Ready:
		return stateReady, true
	case jobs.Reserved:
		return stateReserved, true
	case jobs.Delayed:
		return stateDelayed, true
	case jobs.Buried:
		return stateBuried, true
	}
	return 0, false
}

// stateOf is the job state of the format's byte b; ok is false for an
// unknown byte.
func stateOf(b byte) (s jobs.State, ok bool) {
	switch b {
	case stateReady:
		return jobs.Ready, true
	case stateReserved:
		return jobs.Reserved, true
	case stateDelayed:
		return jobs.Delayed, true
	case stateBuried:
		return jobs.Buried, true
	}
	return 0, false
}

// encodable reports why rec cannot be written in the format, or nil.
func encodable(rec *jobs.Record) error {
	if _, ok := kindByte(rec.Kind); !ok {
		return errKind
	}
	if rec.Kind == jobs.RecPolicySet && rec.Policy == nil {
		return errKind
	}
	if rec.Kind == jobs.RecPut || rec.Kind == jobs.RecUpdate {
		if _, ok := stateByte(rec.State); !ok {
			return errState
		}
	}
	return nil
}
