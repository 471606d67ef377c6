package network

import "github.com/kproduce/kproduce/pkg/protocol"

// APIVersions returns the version ranges node announced in ApiVersions on
// its current connection, keyed by API, and false when no connection to
// node has negotiated versions (not connected yet, or disconnected since).
// The map is a copy the caller owns.
func (c *Client) APIVersions(node int32) (map[protocol.APIKey]protocol.VersionRange, bool) {
	resp := c.apiVersions[node]
	if resp == nil {
		return nil, false
	}
	out := make(map[protocol.APIKey]protocol.VersionRange, len(resp.ApiKeys))
	for _, k := range resp.ApiKeys {
		out[protocol.APIKey(k.ApiKey)] = protocol.VersionRange{Min: k.MinVersion, Max: k.MaxVersion}
	}
	return out, true
}

// LastConnectionError is why the last connection to node ended (naming
// the broker), or nil when none ended or node is unknown. It outlives the
// reconnect that follows, so a caller giving up on an unreachable broker
// can say why.
func (c *Client) LastConnectionError(node int32) error {
	if st := c.states.get(node); st != nil {
		return st.lastErr
	}
	return nil
}
