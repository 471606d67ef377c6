// Package networktest helps unit-test code built on network.Client without
// sockets or sleeps: MockSelector stands in for the socket selector and lets
// a test decide when connections complete or fail, inspect the requests
// sent (decoded), complete sends and inject responses; ManualClock is a
// clock that moves only when told.
//
// A typical test:
//
//	clock := networktest.NewManualClock(time.Unix(1000, 0))
//	sel := networktest.NewMockSelector()
//	sel.AutoReady(nil) // connect at once, answer ApiVersions with kproduce's ranges
//	sel.AutoRespond(protocol.KeyMetadata, func(networktest.SentRequest) protocol.Response { return md })
//	client := network.NewClient(network.Config{}, metadata, sel, clock)
//	for !client.Ready(1, clock.Now()) {
//		client.Poll(0, clock.Now())
//	}
//	req := client.NewClientRequest(1, produce, clock.Now(), true, 0, nil)
//	_ = client.Send(req, clock.Now())
//	client.Poll(0, clock.Now())
//	sent, _ := sel.LastSent(1)
//	sel.RespondTo(sent, &protocol.ProduceResponse{...})
//	responses := client.Poll(0, clock.Now())
//
// MockSelector.Poll never blocks: it returns the events queued so far.
// Everything is safe for concurrent use.
package networktest
