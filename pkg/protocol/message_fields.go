package protocol

import "fmt"

// This file holds what the message codecs share: the versions each message
// decodes, strict readers for non-nullable fields (Kafka rejects a null
// where the schema does not allow one, and so do we), the minimum encoded
// sizes that bound array lengths before allocation, and tagged-field
// sections with known tags.
//
// Decode rejects a version outside messageVersions with an error wrapping
// ErrUnsupportedVersion. Encode has no error path: callers negotiate the
// version first (see ClientVersions), and a version outside the range is
// written with the layout its version gates select.

// messageVersions is the range of versions the codecs of key implement.
// SaslHandshake v0 has the same layout as v1 and is accepted too.
func messageVersions(key APIKey) VersionRange {
	switch key {
	case KeyProduce:
		return VersionRange{3, 11}
	case KeyMetadata:
		return VersionRange{4, 12}
	case KeySaslHandshake:
		return VersionRange{0, 1}
	case KeyApiVersions:
		return VersionRange{0, 3}
	case KeyCreateTopics:
		return VersionRange{2, 7}
	case KeyInitProducerId:
		return VersionRange{0, 4}
	case KeySaslAuthenticate:
		return VersionRange{0, 2}
	case KeyFindCoordinator:
		return VersionRange{0, 6}
	case KeyAddPartitionsToTxn:
		return VersionRange{0, 3}
	case KeyEndTxn:
		return VersionRange{0, 5}
	case KeyFetch:
		return VersionRange{4, 18}
	case KeyListOffsets:
		return VersionRange{1, 11}
	}
	return VersionRange{Min: 0, Max: -1}
}

// checkVersion fails r with an error wrapping ErrUnsupportedVersion when the
// codecs of key do not implement version, and reports whether they do.
func checkVersion(r *Reader, key APIKey, version int16) bool {
	vr := messageVersions(key)
	if version < vr.Min || version > vr.Max {
		r.Fail(fmt.Errorf("%s v%d (supported v%d-v%d): %w", key, version, vr.Min, vr.Max, ErrUnsupportedVersion))
		return false
	}
	return true
}

// Minimum encoded sizes, used to bound array lengths read from the wire.
func minString(flexible bool) int {
	if flexible {
		return 1
	}
	return 2
}

func minArray(flexible bool) int {
	if flexible {
		return 1
	}
	return 4
}

func minBytes(flexible bool) int { return minArray(flexible) }

func minTags(flexible bool) int {
	if flexible {
		return 1
	}
	return 0
}

// failNull records that a non-nullable field was null.
func failNull(r *Reader, what string) {
	if r.Err() == nil {
		r.Fail(fmt.Errorf("%w: null %s in a non-nullable field at offset %d", ErrMalformed, what, r.Offset()))
	}
}

// msgString reads a non-nullable string; null is malformed.
func msgString(r *Reader, flexible bool) string {
	if s := msgStringPtr(r, flexible); s != nil {
		return *s
	}
	return ""
}

// msgStringPtr reads a non-nullable string into a pointer (for fields that
// become nullable in later versions); null is malformed and returns nil.
func msgStringPtr(r *Reader, flexible bool) *string {
	s := r.NullableString(flexible)
	if s == nil {
		failNull(r, "string")
	}
	return s
}

// msgBytes reads a non-nullable byte array as a copy; null is malformed.
func msgBytes(r *Reader, flexible bool) []byte {
	b := r.NullableBytes(flexible)
	if b == nil {
		failNull(r, "bytes")
	}
	return b
}

// msgArrayLen reads the length of a non-nullable array whose elements take
// at least minElem bytes each; null is malformed. The result is safe to
// allocate: it is 0 after any error.
func msgArrayLen(r *Reader, flexible bool, minElem int) int {
	n := r.ArrayLen(flexible, minElem)
	if n < 0 {
		failNull(r, "array")
		return 0
	}
	return n
}

// putStringPtr writes a string that is not nullable at this version: nil
// is written as "".
func putStringPtr(w *Writer, s *string, flexible bool) {
	if s == nil {
		w.String("", flexible)
		return
	}
	w.String(*s, flexible)
}

// putInt32s writes a non-nullable array of int32.
func putInt32s(w *Writer, v []int32, flexible bool) {
	w.ArrayLen(len(v), flexible)
	for _, x := range v {
		w.Int32(x)
	}
}

// msgInt32s reads a non-nullable array of int32.
func msgInt32s(r *Reader, flexible bool) []int32 {
	n := msgArrayLen(r, flexible, 4)
	if r.Err() != nil {
		return nil
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = r.Int32()
	}
	return v
}

// putTagHeader writes a tagged field's tag and size; the field's bytes
// follow.
func putTagHeader(w *Writer, tag uint32, size int) {
	w.Uvarint(tag)
	w.Uvarint(uint32(size))
}

// compactStringSize is the encoded size of a compact string.
func compactStringSize(s string) int {
	return uvarintLen(uint64(len(s))+1) + len(s)
}

// compactNullableStringSize is the encoded size of a compact nullable string.
func compactNullableStringSize(s *string) int {
	if s == nil {
		return 1
	}
	return compactStringSize(*s)
}

// readTaggedFields reads a tagged-field section (flexible versions only).
// For each field it calls known with the tag and a Reader over exactly the
// field's bytes; known returns false for a tag it does not know, and that
// field is skipped, as Kafka does. A known field that fails to decode or
// leaves bytes unread makes r fail.
func readTaggedFields(r *Reader, known func(tag uint32, f *Reader) bool) {
	n := r.Uvarint()
	for i := uint32(0); i < n && r.Err() == nil; i++ {
		tag := r.Uvarint()
		size := r.Uvarint()
		body := r.Raw(int(size))
		if r.Err() != nil {
			return
		}
		f := NewReader(body)
		if !known(tag, f) {
			continue
		}
		if f.Err() == nil && f.Remaining() != 0 {
			f.Fail(fmt.Errorf("%w: %d unread bytes", ErrMalformed, f.Remaining()))
		}
		if err := f.Err(); err != nil {
			r.Fail(fmt.Errorf("tagged field %d: %w", tag, err))
		}
	}
}
