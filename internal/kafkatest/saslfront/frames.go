package saslfront

import (
	"encoding/binary"
	"errors"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The API keys the front looks at.
const (
	keyProduce          = 0
	keySaslHandshake    = 17
	keyApiVersions      = 18
	keySaslAuthenticate = 36
)

// header is a request's header, with its body decoded when the front
// needs it.
type header struct {
	key, version int16
	correlation  int32
	// req is the decoded request, for the keys the front answers itself
	// and for Produce (acks); nil otherwise.
	req kmsg.Request
}

// parseHeader reads the request header of frame (without size prefix)
// and decodes the body of the requests the front needs to read.
func parseHeader(frame []byte) (header, error) {
	r := kbin.Reader{Src: frame}
	h := header{key: r.Int16(), version: r.Int16(), correlation: r.Int32()}
	r.NullableString() // client id
	if !r.Ok() {
		return h, errors.New("short header")
	}
	switch h.key {
	case keyProduce, keySaslHandshake, keySaslAuthenticate, keyApiVersions:
	default:
		return h, nil
	}
	req := kmsg.RequestForKey(h.key)
	req.SetVersion(h.version)
	if req.IsFlexible() {
		kmsg.SkipTags(&r)
	}
	if err := req.ReadFrom(r.Src); err != nil {
		return h, err
	}
	h.req = req
	return h, nil
}

// expectsResponse is false only for a Produce request with acks=0.
func (h header) expectsResponse() bool {
	if p, ok := h.req.(*kmsg.ProduceRequest); ok {
		return p.Acks != 0
	}
	return true
}

// responseFrame encodes resp as the answer to the request of h, size
// prefix included.
func responseFrame(h header, resp kmsg.Response) []byte {
	resp.SetVersion(h.version)
	buf := make([]byte, 8, 64)
	binary.BigEndian.PutUint32(buf[4:], uint32(h.correlation))
	if resp.IsFlexible() && h.key != keyApiVersions {
		buf = append(buf, 0) // no tagged fields in the header
	}
	buf = resp.AppendTo(buf)
	binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
	return buf
}

// patchApiVersions returns the amendment of the cluster's ApiVersions
// answer at version: SaslHandshake v0-v1 and SaslAuthenticate v0-v2
// added. An answer that is an error, or that does not decode at the
// request's version (an UNSUPPORTED_VERSION answer in the v0 layout), is
// passed on unchanged.
func patchApiVersions(version int16) func([]byte) []byte {
	return func(frame []byte) []byte {
		if len(frame) < 4 {
			return frame
		}
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(version)
		if err := resp.ReadFrom(frame[4:]); err != nil || resp.ErrorCode != 0 {
			return frame
		}
		setVersions(resp, keySaslHandshake, 0, 1)
		setVersions(resp, keySaslAuthenticate, 0, 2)
		return resp.AppendTo(append([]byte(nil), frame[:4]...))
	}
}

// setVersions sets the version range of key in resp.
func setVersions(resp *kmsg.ApiVersionsResponse, key, lo, hi int16) {
	for i := range resp.ApiKeys {
		if resp.ApiKeys[i].ApiKey == key {
			resp.ApiKeys[i].MinVersion, resp.ApiKeys[i].MaxVersion = lo, hi
			return
		}
	}
	k := kmsg.NewApiVersionsResponseApiKey()
	k.ApiKey, k.MinVersion, k.MaxVersion = key, lo, hi
	resp.ApiKeys = append(resp.ApiKeys, k)
}
