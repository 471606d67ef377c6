package network

import (
	"encoding/binary"
	"fmt"
)

// ccacheReader walks a ticket cache's bytes as gokrb5's parser does,
// without keeping anything: it finds the counts of addresses and
// authorization data entries that parser would allocate before reading
// them, and refuses those the data left cannot hold.
type ccacheReader struct {
	b       []byte
	p       int
	order   binary.ByteOrder
	version byte
	err     error
}

// checkCCacheCounts returns an error when the ticket cache data would
// make gokrb5 allocate more than its size accounts for, or is cut short.
func checkCCacheCounts(b []byte) error {
	if len(b) < 2 {
		return fmt.Errorf("%d bytes: too short", len(b))
	}
	r := &ccacheReader{b: b, p: 2, order: binary.BigEndian, version: b[1]}
	if r.version < 3 {
		r.order = binary.NativeEndian
	}
	if r.version == 4 {
		length := int(r.uint16())
		for r.err == nil && r.p <= length {
			r.uint16()
			r.skip(int(r.uint16()))
		}
	}
	r.principal()
	for r.err == nil && r.p < len(r.b) {
		r.credential()
	}
	return r.err
}

// credential walks one credential.
func (r *ccacheReader) credential() {
	r.principal()
	r.principal()
	r.uint16()
	if r.version == 3 {
		r.uint16()
	}
	r.data()            // the key
	r.skip(4*4 + 1 + 4) // the times, is_skey, the ticket flags
	for range 2 {       // the addresses, then the authorization data
		n := r.count(6)
		for i := 0; r.err == nil && i < n; i++ {
			r.uint16()
			r.data()
		}
	}
	r.data() // the ticket
	r.data() // the second ticket
}

// principal walks a principal.
func (r *ccacheReader) principal() {
	if r.version != 1 {
		r.uint32()
	}
	n := r.count(4)
	if r.version == 1 {
		n--
	}
	r.data()
	for i := 0; r.err == nil && i < n; i++ {
		r.data()
	}
}

// count reads a count of items of at least minSize bytes each.
func (r *ccacheReader) count(minSize int) int {
	at := r.p
	n := int(int32(r.uint32()))
	if r.err == nil && (n < 0 || n > (len(r.b)-r.p)/minSize) {
		r.err = fmt.Errorf("a count of %d at byte %d: more than the %d bytes after it hold", n, at, len(r.b)-r.p)
	}
	return n
}

// data skips a length and that many bytes.
func (r *ccacheReader) data() { r.skip(int(int32(r.uint32()))) }

// uint16 reads a 16-bit integer.
func (r *ccacheReader) uint16() uint16 {
	at := r.p
	if r.skip(2) {
		return r.order.Uint16(r.b[at:])
	}
	return 0
}

// uint32 reads a 32-bit integer.
func (r *ccacheReader) uint32() uint32 {
	at := r.p
	if r.skip(4) {
		return r.order.Uint32(r.b[at:])
	}
	return 0
}

// skip moves past n bytes, if there are.
func (r *ccacheReader) skip(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || n > len(r.b)-r.p {
		r.err = fmt.Errorf("cut short: %d bytes wanted at byte %d of %d", n, r.p, len(r.b))
		return false
	}
	r.p += n
	return true
}
