package nofollow

import "io/fs"

// POSIX file type bits of st_mode: the same on every Unix, so they also
// read the st_mode of another machine (a remote server).
const (
	sIFMT   = 0o170000
	sIFSOCK = 0o140000
	sIFLNK  = 0o120000
	sIFREG  = 0o100000
	sIFBLK  = 0o060000
	sIFDIR  = 0o040000
	sIFCHR  = 0o020000
	sIFIFO  = 0o010000
)

// FileMode turns a POSIX st_mode into the type and permission bits of an
// fs.FileMode.
func FileMode(stMode uint32) fs.FileMode {
	mode := fs.FileMode(stMode & 0o777)
	switch stMode & sIFMT {
	case sIFDIR:
		mode |= fs.ModeDir
	case sIFLNK:
		mode |= fs.ModeSymlink
	case sIFIFO:
		mode |= fs.ModeNamedPipe
	case sIFSOCK:
		mode |= fs.ModeSocket
	case sIFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case sIFBLK:
		mode |= fs.ModeDevice
	case sIFREG:
	default:
		mode |= fs.ModeIrregular
	}
	return mode
}
