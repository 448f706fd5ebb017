package wal

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	twal "github.com/tidwall/wal"

	"github.com/stalkd/stalkd/jobs"
)

// load brings the directory to a consistent log and builds the Log's
// picture of it: finish an interrupted truncation, scan and verify every
// entry, repair a torn tail or salvage, open the last segment file, set up
// the space reserve.
func (l *Log) load() error {
	start := time.Now()
	files, interrupted, err := listSegments(l.dir)
	if err != nil {
		return err
	}
	if interrupted {
		// tidwall/wal finishes a truncation a crash cut short when it opens.
		if w, err := twal.Open(l.dir, tidwallOptions(l.opts.SegmentSize)); err == nil {
			w.Close()
		}
		if files, interrupted, err = listSegments(l.dir); err != nil {
			return err
		} else if interrupted {
			return fmt.Errorf("%w: %s holds an unfinished segment truncation (.START/.END files) that could not be completed", ErrCorrupt, l.dir)
		}
	}
	man, err := l.readManifest()
	if err != nil {
		return err
	}
	sc := newScan(l.opts.Salvage, l.log)
	if err := sc.run(files); err != nil {
		return err
	}
	files = sc.kept(files)
	if err := sc.checkEnd(l.dir, files, man); err != nil {
		return err
	}
	if err := l.dropUnwritten(sc); err != nil {
		return err
	}
	img := sc.img
	var last uint64
	if len(sc.problems) > 0 {
		last, err = l.salvage(files, img)
	} else {
		last, err = l.repairAndOpen(sc, files)
	}
	if err != nil {
		return err
	}
	if err := l.adopt(img, last); err != nil {
		return err
	}
	if err := l.setupReserve(); err != nil {
		return err
	}
	if err := l.syncStore(l.cur); err != nil {
		return fmt.Errorf("wal: sync: %w", err)
	}
	l.durableIndex = l.writtenIndex
	l.syncedTail = l.segs.tail().start
	next := l.firstID(man)
	// The manifest written now leases the first block: no fsync for it later.
	l.man = manifest{last: l.segs.tail().start, lastHolds: l.writtenIndex, idLease: next - 1 + minLeaseBlock}
	if err := l.hook.writeManifest(l.dir, l.man); err != nil {
		return err
	}
	l.lease = newIDLease(next, l.man.idLease, l.hook.now, l.recordLease, l.leaseFailed)
	l.lease.grown, l.lease.unleased = l.leaseGrown, l.leaseUnleased
	if man == nil && len(files) > 0 {
		l.log.Info().Str("dir", l.dir).Msg("the log had no manifest (written by an older version); wrote one")
	}
	l.log.Info().Str("dir", l.dir).Int("segments", len(l.segs.segs)).Int("jobs", l.jobs.len()).
		Int64("size_bytes", l.segs.total).Float64("took_ms", msSince(start)).Msg("log opened")
	return nil
}

// tidwallOptions opens a log directory with tidwall/wal the way the format
// needs: binary entries, never an fsync of its own. Open modifies the
// options it is given, so each call gets a fresh value.
func tidwallOptions(segmentSize int64) *twal.Options {
	return &twal.Options{
		NoSync:           true,
		SegmentSize:      int(segmentSize),
		LogFormat:        twal.Binary,
		SegmentCacheSize: 1,
		DirPerms:         0o750,
		FilePerms:        0o640,
	}
}

// firstID is the first id to hand out: above every id the records name and
// every id the manifest's lease covered. Without a lease (a damaged
// manifest ignored under salvage), ids skip a whole largest block above
// the records: the lease end is lost, and that is how far ahead of the
// surviving records a lease normally reaches.
func (l *Log) firstID(man *manifest) uint64 {
	next := max(l.maxID, l.leaseFound) + 1
	if l.manDamaged {
		next = l.maxID + 1 + 2*maxLeaseBlock
		l.log.Error().Uint64("next_id", next).Uint64("max_logged_id", l.maxID).
			Msg("the manifest holding the id lease was damaged: ids skip ahead of the log's records; ids handed out more than that far beyond them may repeat")
	}
	if man != nil && man.idLease > l.maxID && !l.manDamaged {
		l.log.Info().Uint64("next_id", next).Uint64("max_logged_id", l.maxID).Uint64("id_lease", man.idLease).
			Msg("ids continue above the id lease: the log's newest records are gone, or the last start ended without a clean close")
	}
	return next
}

// readManifest reads DIR/manifest (nil when there is none). A damaged one
// is refused, unless salvaging: then it is ignored (and rewritten).
func (l *Log) readManifest() (*manifest, error) {
	m, found, err := readManifest(l.dir)
	switch {
	case err != nil && l.opts.Salvage:
		l.log.Error().Err(err).Msg("ignoring a damaged manifest (salvage)")
		l.manDamaged = true
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%w; refusing to start (the salvage option starts with what is readable)", err)
	case !found:
		return nil, nil
	}
	l.leaseFound = m.idLease
	return &m, nil
}

// repairAndOpen cuts off a torn tail and opens the last segment file for
// appending (creating the first one in an empty directory). It returns the
// index of the last entry.
func (l *Log) repairAndOpen(sc *scan, files []segFile) (uint64, error) {
	if t := sc.torn; t != nil {
		if err := os.Truncate(t.path, int64(t.offset)); err != nil {
			return 0, fmt.Errorf("wal: repair torn tail of %s: %w", t.path, err)
		}
		if err := syncFile(t.path); err != nil {
			return 0, fmt.Errorf("wal: repair torn tail of %s: %w", t.path, err)
		}
		l.log.Warn().Str("file", t.path).Int("offset_bytes", t.offset).Uint64("index", t.index).Int("dropped_bytes", t.dropped).
			Msg("torn tail repaired: the unfinished end of the last segment was cut off; every complete record before it was kept")
	}
	if len(files) == 0 {
		return 0, l.createFirst()
	}
	f, err := l.hook.openSegment(files[len(files)-1].path, false)
	if err != nil {
		return 0, fmt.Errorf("wal: open %s: %w", files[len(files)-1].path, err)
	}
	l.cur = f
	return sc.next - 1, nil
}

// dropUnwritten deletes the empty segment files the scan found after the
// log's torn end (see scan.run), durably.
func (l *Log) dropUnwritten(sc *scan) error {
	if len(sc.unwritten) == 0 {
		return nil
	}
	for _, f := range sc.unwritten {
		if err := os.Remove(f.path); err != nil {
			return fmt.Errorf("wal: repair torn tail: %w", err)
		}
	}
	if err := l.hook.syncDir(l.dir); err != nil {
		return fmt.Errorf("wal: repair torn tail: %w", err)
	}
	l.log.Warn().Str("file", sc.unwritten[0].path).Int("files", len(sc.unwritten)).Uint64("index", sc.next).
		Msg("torn tail repaired: empty segment files after the unfinished end of the log were deleted")
	return nil
}

// createFirst creates segment 1 of a fresh log, as tidwall/wal does in an
// empty directory, durably.
func (l *Log) createFirst() error {
	path := segmentPath(l.dir, 1)
	f, err := l.hook.openSegment(path, true)
	if err != nil {
		return fmt.Errorf("wal: create %s: %w", path, err)
	}
	l.cur = f
	if err := l.hook.syncDir(l.dir); err != nil {
		return fmt.Errorf("wal: create %s: %w", path, err)
	}
	return nil
}

// salvage moves the damaged segment files aside and writes a fresh log
// holding every job img recovered. It returns the index of the last entry.
func (l *Log) salvage(files []segFile, img *image) (uint64, error) {
	aside := filepath.Join(l.dir, fmt.Sprintf("salvage-%d", time.Now().UnixNano()))
	if err := os.Mkdir(aside, 0o750); err != nil {
		return 0, fmt.Errorf("wal: salvage: %w", err)
	}
	for _, f := range files {
		if err := os.Rename(f.path, filepath.Join(aside, filepath.Base(f.path))); err != nil {
			return 0, fmt.Errorf("wal: salvage: %w", err)
		}
	}
	if err := syncDir(l.dir); err != nil {
		return 0, fmt.Errorf("wal: salvage: %w", err)
	}
	if err := l.createFirst(); err != nil {
		return 0, err
	}
	l.segs.reset([]segment{{start: 1}})
	var recs []pendingRec
	idx := uint64(1)
	img.live = 0
	img.each(func(r *jobs.Record) {
		lc, _ := img.locs.get(r.ID)
		lc.index, lc.size = idx, uint32(entrySize(recordSize(r)))
		img.locs.set(r.ID, lc)
		img.live += int64(lc.size)
		recs = append(recs, pendingRec{rec: *r, index: idx})
		idx++
	})
	for _, r := range img.policyRecords() {
		img.policies[r.Tube].index = idx
		recs = append(recs, pendingRec{rec: r, index: idx})
		idx++
	}
	recs = append(recs, pendingRec{index: idx, isMeta: true, m: meta{logStart: 1, maxID: img.maxID}})
	if err := l.writeAll([][]pendingRec{recs}); err != nil {
		return 0, fmt.Errorf("wal: salvage: write: %w", err)
	}
	l.mu.Lock()
	retired := l.retired
	l.retired = nil
	l.mu.Unlock()
	if err := l.syncFiles(retired, true); err != nil {
		return 0, fmt.Errorf("wal: salvage: %w", err)
	}
	if err := l.syncStore(l.cur); err != nil {
		return 0, fmt.Errorf("wal: salvage: sync: %w", err)
	}
	l.log.Error().Str("moved_to", aside).Int("jobs", int(idx-1)).
		Msg("salvaged a corrupt log: the damaged files were moved aside and a fresh log holds the jobs recovered")
	return idx, nil
}

// adopt takes over img and the segment files (whose last entry is last) as
// the Log's picture.
func (l *Log) adopt(img *image, last uint64) error {
	files, _, err := listSegments(l.dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("wal: no segment file in %s after open", l.dir)
	}
	l.segs.reset(segmentsOf(files))
	l.tailBytes = l.segs.tail().bytes
	l.nextIndex, l.writtenIndex = last+1, last
	l.nextSeq = 1
	l.logStart = files[0].start
	l.maxID = img.maxID
	l.written = 0 // a salvage's rewrite is not the server's writing
	l.jobs = jobLocs{idxBase: l.logStart, floor: l.logStart}
	img.locs.each(func(id uint64, lc loc) { l.jobs.set(id, lc.index, lc.size) })
	img.locs = locTable{} // the image's table is garbage now, the records still needed by Replay
	l.live = img.live
	for name, ip := range img.policies {
		if l.policyAt == nil {
			l.policyAt = make(map[string]uint64)
		}
		l.policyAt[name] = ip.index
	}
	l.img = img
	return nil
}
