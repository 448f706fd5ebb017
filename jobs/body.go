package jobs

import "unsafe"

// This file is the only use of package unsafe in jobs (the architecture
// test allows it here and nowhere else). A job keeps its body as a pointer
// and a length instead of a slice: the capacity a slice carries is never
// used, and dropping it and half the length is what brings a ready job from
// an 80-byte to a 64-byte allocation: 16 B per job, 5% of beanstalkd's
// memory per job. unsafe.SliceData and unsafe.Slice are the documented,
// GC-safe conversions: the pointer stays a real pointer, so the body lives
// exactly as long as its job.

// setBody stores b (the job data, at most max-job-size: 1 GiB) in j. An
// empty body keeps no pointer at all: the pointer of an empty slice may
// point into whatever array it was cut from, which the job must not pin.
func (j *job) setBody(b []byte) {
	if len(b) == 0 {
		j.body, j.bodyLen = nil, 0
		return
	}
	j.body, j.bodyLen = unsafe.SliceData(b), uint32(len(b))
}

// bytes returns the body as a slice (capacity = length, so that appending
// to it never writes into the job); never nil.
func (j *job) bytes() []byte {
	if j.body == nil {
		return []byte{}
	}
	return unsafe.Slice(j.body, j.bodyLen)
}
