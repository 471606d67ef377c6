package tlsconf

import (
	"crypto/sha1" //nolint:gosec // the JKS integrity check is SHA-1 by definition
	"encoding/binary"
	"fmt"
)

// checkJKSLengths walks a JKS store's entries as the decoder does and
// fails on a length or count its bytes cannot hold: the decoder
// allocates what a length says before it reads (a count of 2^32
// certificates, or a 4 GB key, in a store whose digest matches a known
// password would exhaust memory).
func checkJKSLengths(data []byte) error {
	if len(data) < 12+sha1.Size {
		return fmt.Errorf("%d bytes: too short", len(data))
	}
	body := data[:len(data)-sha1.Size]
	version := binary.BigEndian.Uint32(body[4:])
	if version != 1 && version != 2 {
		return fmt.Errorf("unknown version %d", version)
	}
	p := 12
	// take moves past a field of n bytes; false when it is not there.
	take := func(n uint64) bool {
		if n > uint64(len(body)-p) {
			return false
		}
		p += int(n)
		return true
	}
	// length reads a big-endian length of size bytes and takes what it
	// counts.
	length := func(size int) bool {
		if !take(uint64(size)) {
			return false
		}
		v := uint64(binary.BigEndian.Uint16(body[p-size:]))
		if size == 4 {
			v = uint64(binary.BigEndian.Uint32(body[p-size:]))
		}
		return take(v)
	}
	certificate := func() bool { return (version == 1 || length(2)) && length(4) }
	for i := range binary.BigEndian.Uint32(body[8:]) {
		at := p
		if !take(4) {
			return fmt.Errorf("entry %d at byte %d: cut short", i+1, at)
		}
		tag := binary.BigEndian.Uint32(body[p-4:])
		ok := length(2) && take(8)
		switch {
		case ok && tag == 1:
			ok = length(4) && take(4)
			for n := binary.BigEndian.Uint32(body[p-4:]); ok && n > 0; n-- {
				ok = certificate()
			}
		case ok && tag == 2:
			ok = certificate()
		}
		if !ok {
			return fmt.Errorf("entry %d at byte %d: a length runs past the end of the store", i+1, at)
		}
	}
	return nil
}
