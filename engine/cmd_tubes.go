package engine

import (
	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// The handlers of the commands about tubes, lists, statistics and the
// connection itself.

func (cn *conn) use(cmd *codec.Command) {
	if err := cn.sess.Use(cmd.Name); err != nil {
		cn.fail(err)
		return
	}
	cn.listTubeUsed(cmd)
}

func (cn *conn) listTubeUsed(*codec.Command) {
	mark := len(cn.out)
	cn.out = codec.AppendUsing(cn.out, cn.sess.Used())
	cn.done(mark, 0, "")
}

func (cn *conn) watch(cmd *codec.Command)  { cn.watching(cn.sess.Watch(cmd.Name)) }
func (cn *conn) ignore(cmd *codec.Command) { cn.watching(cn.sess.Ignore(cmd.Name)) }

func (cn *conn) listTubes(*codec.Command) {
	cn.rx.names = cn.srv.queue.ListTubes(cn.rx.names[:0])
	cn.okDoc(codec.AppendYAMLList(cn.rx.scratch[:0], cn.rx.names))
	clear(cn.rx.names)
}

func (cn *conn) listTubesWatched(*codec.Command) {
	cn.rx.names = cn.sess.Watched(cn.rx.names[:0])
	cn.okDoc(codec.AppendYAMLList(cn.rx.scratch[:0], cn.rx.names))
	clear(cn.rx.names)
}

func (cn *conn) stats(*codec.Command) {
	st := cn.srv.queue.Stats()
	cn.okDoc(cn.srv.appendStats(cn.rx.scratch[:0], &st))
}

func (cn *conn) statsTube(cmd *codec.Command) {
	ts, err := cn.srv.queue.StatsTube(cmd.Name)
	if err != nil {
		cn.fail(err)
		return
	}
	cn.okDoc(appendTubeStats(cn.rx.scratch[:0], &ts))
}

func (cn *conn) statsJob(cmd *codec.Command) {
	js, err := cn.srv.queue.StatsJob(cmd.ID)
	if err != nil {
		cn.fail(err)
		return
	}
	cn.okDoc(appendJobStats(cn.rx.scratch[:0], &js))
}

func (cn *conn) pauseTube(cmd *codec.Command) {
	seq, err := cn.srv.queue.PauseTubeSeq(cmd.Name, seconds(cmd.Delay))
	cn.word(seq, err, codec.Paused) // seq: 0 unless replicated
}

// statsCluster answers the node's view of its raft cluster, or standalone.
func (cn *conn) statsCluster(*codec.Command) {
	info := cluster.Status{State: "standalone"}
	if cn.srv.cfg.ClusterStats != nil {
		info = cn.srv.cfg.ClusterStats()
	}
	cn.okDoc(appendClusterStats(cn.rx.scratch[:0], &info))
}

// clearTube answers CLEARED once the one journal record of the clear is
// committed.
func (cn *conn) clearTube(cmd *codec.Command) {
	n, seq, err := cn.srv.queue.ClearTube(cmd.Name)
	if err != nil {
		cn.fail(err)
		return
	}
	mark := len(cn.out)
	cn.out = codec.AppendCleared(cn.out, n)
	cn.done(mark, seq, codec.InternalError)
}

// listStates maps list-jobs' state (an index into codec.ListStates) to the
// queue's.
var listStates = [len(codec.ListStates)]jobs.State{jobs.Ready, jobs.Delayed, jobs.Buried, jobs.Reserved}

func (cn *conn) listJobs(cmd *codec.Command) {
	ids, err := cn.srv.queue.ListJobs(cmd.Name, listStates[cmd.State], int(cmd.ID), int(cmd.Count), cn.rx.ids[:0])
	cn.rx.ids = ids[:0]
	if err != nil {
		cn.fail(err)
		return
	}
	cn.okDoc(codec.AppendIDList(cn.rx.scratch[:0], ids))
}

// quit holds back everything after it; the connection closes once the
// replies before it are written.
func (cn *conn) quit(*codec.Command) { cn.quitting = true }
