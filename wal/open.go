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
// entry, repair a torn tail or salvage, open tidwall/wal, set up the space
// reserve.
func (l *Log) load() error {
	start := time.Now()
	files, interrupted, err := listSegments(l.dir)
	if err != nil {
		return err
	}
	if interrupted {
		// tidwall/wal finishes a truncation a crash cut short when it opens.
		if st, err := l.hook.openStore(l.dir, l.opts.SegmentSize); err == nil {
			st.Close()
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
	sc := newScan(l.opts.Salvage, l.log, files)
	if err := sc.run(files); err != nil {
		return err
	}
	if err := sc.checkEnd(l.dir, files, man); err != nil {
		return err
	}
	img := sc.img
	if len(sc.problems) > 0 {
		err = l.salvage(files, img)
	} else {
		err = l.repairAndOpen(sc, files)
	}
	if err != nil {
		return err
	}
	if err := l.adopt(img); err != nil {
		return err
	}
	if err := l.setupReserve(); err != nil {
		return err
	}
	if err := l.store.Sync(); err != nil {
		return fmt.Errorf("wal: sync: %w", err)
	}
	l.durableIndex = l.writtenIndex
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

// repairAndOpen cuts off a torn tail and opens tidwall/wal on the segments.
func (l *Log) repairAndOpen(sc *scan, files []segFile) error {
	if t := sc.torn; t != nil {
		if err := os.Truncate(t.path, int64(t.offset)); err != nil {
			return fmt.Errorf("wal: repair torn tail of %s: %w", t.path, err)
		}
		if err := syncFile(t.path); err != nil {
			return fmt.Errorf("wal: repair torn tail of %s: %w", t.path, err)
		}
		l.log.Warn().Str("file", t.path).Int("offset_bytes", t.offset).Uint64("index", t.index).Int("dropped_bytes", t.dropped).
			Msg("torn tail repaired: the unfinished end of the last segment was cut off; every complete record before it was kept")
	}
	st, err := l.hook.openStore(l.dir, l.opts.SegmentSize)
	if err != nil {
		return err
	}
	l.store = st
	last, err := st.LastIndex()
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	if len(files) > 0 && last+1 != sc.next {
		return fmt.Errorf("%w: tidwall/wal ends at entry %d but the scan ended before entry %d", ErrCorrupt, last, sc.next)
	}
	return nil
}

// salvage moves the damaged segment files aside and writes a fresh log
// holding every job img recovered.
func (l *Log) salvage(files []segFile, img *image) error {
	aside := filepath.Join(l.dir, fmt.Sprintf("salvage-%d", time.Now().UnixNano()))
	if err := os.Mkdir(aside, 0o750); err != nil {
		return fmt.Errorf("wal: salvage: %w", err)
	}
	for _, f := range files {
		if err := os.Rename(f.path, filepath.Join(aside, filepath.Base(f.path))); err != nil {
			return fmt.Errorf("wal: salvage: %w", err)
		}
	}
	if err := syncDir(l.dir); err != nil {
		return fmt.Errorf("wal: salvage: %w", err)
	}
	st, err := l.hook.openStore(l.dir, l.opts.SegmentSize)
	if err != nil {
		return err
	}
	l.store = st
	var b twal.Batch
	var buf []byte
	idx := uint64(1)
	img.whole, img.live = img.whole[:0], 0
	img.each(func(r *jobs.Record) {
		buf = AppendRecord(buf[:0], r)
		b.Write(idx, buf)
		lc, _ := img.locs.get(r.ID)
		lc.index, lc.size = idx, uint32(entrySize(len(buf)))
		img.locs.set(r.ID, lc)
		img.live += int64(lc.size)
		img.whole = append(img.whole, wholeRec{index: idx, id: r.ID})
		idx++
	})
	for _, r := range img.policyRecords() {
		buf = AppendRecord(buf[:0], &r)
		b.Write(idx, buf)
		img.policies[r.Tube].index = idx
		idx++
	}
	b.Write(idx, appendMeta(buf[:0], meta{logStart: 1, maxID: img.maxID}))
	if err := st.WriteBatch(&b); err != nil {
		return fmt.Errorf("wal: salvage: write: %w", err)
	}
	if err := st.Sync(); err != nil {
		return fmt.Errorf("wal: salvage: sync: %w", err)
	}
	l.log.Error().Str("moved_to", aside).Int("jobs", int(idx-1)).
		Msg("salvaged a corrupt log: the damaged files were moved aside and a fresh log holds the jobs recovered")
	return nil
}

// adopt takes over img and the opened store's state as the Log's picture.
func (l *Log) adopt(img *image) error {
	last, err := l.store.LastIndex()
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	files, _, err := listSegments(l.dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("wal: no segment file in %s after open", l.dir)
	}
	l.segs.reset(segmentsOf(files))
	l.nextIndex, l.writtenIndex = last+1, last
	l.nextSeq = 1
	l.logStart = files[0].start
	l.maxID = img.maxID
	l.jobs, l.live, l.whole = img.locs, img.live, img.whole
	for name, ip := range img.policies {
		if l.policyAt == nil {
			l.policyAt = make(map[string]uint64)
		}
		l.policyAt[name] = ip.index
	}
	l.img = img
	return nil
}
