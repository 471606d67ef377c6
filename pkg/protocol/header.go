package protocol

import "fmt"

// RequestHeader precedes every request body.
type RequestHeader struct {
	APIKey        APIKey
	APIVersion    int16
	CorrelationID int32
	ClientID      *string
}

// Encode appends the header at headerVersion (1 or 2) to w.
func (h *RequestHeader) Encode(w *Writer, headerVersion int16) {
	w.Int16(int16(h.APIKey))
	w.Int16(h.APIVersion)
	w.Int32(h.CorrelationID)
	w.NullableString(h.ClientID, false) // the client id is never compact
	w.TaggedFields(headerVersion >= 2)
}

// Decode reads the header at headerVersion from r.
func (h *RequestHeader) Decode(r *Reader, headerVersion int16) error {
	h.APIKey = APIKey(r.Int16())
	h.APIVersion = r.Int16()
	h.CorrelationID = r.Int32()
	h.ClientID = r.NullableString(false)
	r.TaggedFields(headerVersion >= 2)
	return r.Err()
}

// ResponseHeader precedes every response body.
type ResponseHeader struct {
	CorrelationID int32
}

// Encode appends the header at headerVersion (0 or 1) to w.
func (h *ResponseHeader) Encode(w *Writer, headerVersion int16) {
	w.Int32(h.CorrelationID)
	w.TaggedFields(headerVersion >= 1)
}

// Decode reads the header at headerVersion from r.
func (h *ResponseHeader) Decode(r *Reader, headerVersion int16) error {
	h.CorrelationID = r.Int32()
	r.TaggedFields(headerVersion >= 1)
	return r.Err()
}

// AppendRequestFrame appends a complete size-prefixed request frame (size,
// header, body) to w, which should be empty. Record batches in the body are
// kept by reference (see Writer.Ref).
func AppendRequestFrame(w *Writer, h *RequestHeader, body Request) {
	start, at := w.Len(), len(w.buf)
	w.Int32(0) // size, back-filled below
	h.Encode(w, RequestHeaderVersion(h.APIKey, h.APIVersion))
	body.Encode(w, h.APIVersion)
	w.PutInt32At(at, int32(w.Len()-start-4))
}

// DecodeRequest reads a request header and body from a frame payload (the
// bytes after the size prefix). newBody returns an empty body for a key. It
// is the broker side of the protocol, used by tests and fuzzing.
func DecodeRequest(payload []byte, newBody func(APIKey) (Request, bool)) (*RequestHeader, Request, error) {
	r := NewReader(payload)
	var h RequestHeader
	// The header version depends on the key and version, which come first.
	peek := NewReader(payload)
	key, version := APIKey(peek.Int16()), peek.Int16()
	if err := h.Decode(r, RequestHeaderVersion(key, version)); err != nil {
		return nil, nil, fmt.Errorf("decode request header: %w", err)
	}
	body, ok := newBody(h.APIKey)
	if !ok {
		return &h, nil, fmt.Errorf("unknown api key %d", h.APIKey)
	}
	if err := body.Decode(r, h.APIVersion); err != nil {
		return &h, nil, fmt.Errorf("decode %s v%d request: %w", h.APIKey, h.APIVersion, err)
	}
	return &h, body, nil
}

// DecodeResponse reads a response header and body for a request of key at
// version from a frame payload (the bytes after the size prefix).
func DecodeResponse(payload []byte, key APIKey, version int16, body Response) (ResponseHeader, error) {
	r := NewReader(payload)
	var h ResponseHeader
	if err := h.Decode(r, ResponseHeaderVersion(key, version)); err != nil {
		return h, fmt.Errorf("decode %s response header: %w", key, err)
	}
	if err := body.Decode(r, version); err != nil {
		return h, fmt.Errorf("decode %s v%d response: %w", key, version, err)
	}
	return h, nil
}
