package codec

import "math"

// The maximum job size (-z): the largest body a put may carry, which the
// Decoder enforces (NewDecoder). Every part that frames commands - the
// engine's connections, a cluster's client front, an embedded queue -
// reads its setting through MaxJobSize, so that they agree.
const (
	// DefaultMaxJobSize is the reference's default -z.
	DefaultMaxJobSize = 65535
	// MaxJobSizeLimit is the largest -z the reference accepts (1 GiB).
	MaxJobSizeLimit = 1 << 30
	// MaxJobSizeZero asks for a maximum job size of 0 (only empty bodies, as
	// "-z 0" does), which a zero setting cannot express: zero means the
	// default.
	MaxJobSizeZero = math.MaxUint32
)

// MaxJobSize turns a maximum-job-size setting into the size itself: 0 means
// DefaultMaxJobSize and MaxJobSizeZero means 0. ok is false for a size
// above MaxJobSizeLimit.
func MaxJobSize(setting uint32) (size uint32, ok bool) {
	switch setting {
	case 0:
		return DefaultMaxJobSize, true
	case MaxJobSizeZero:
		return 0, true
	}
	return setting, setting <= MaxJobSizeLimit
}
