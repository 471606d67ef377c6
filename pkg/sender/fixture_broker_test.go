package sender

import (
	"slices"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/pkg/accumulator"
	"github.com/kproduce/kproduce/pkg/network/networktest"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// The broker side of the fixture: the Produce requests the producer sent,
// decoded with kmsg, and the answers to them.

// allProduce returns every Produce request sent, oldest first.
func (f *fixture) allProduce() []networktest.SentRequest {
	var out []networktest.SentRequest
	for _, s := range f.sel.AllSent() {
		if s.Header.APIKey == protocol.KeyProduce {
			require.NoError(f.t, s.Err)
			out = append(out, s)
		}
	}
	return out
}

// newProduce returns the Produce requests sent since the last call.
func (f *fixture) newProduce() []networktest.SentRequest {
	all := f.allProduce()
	out := all[f.seen:]
	f.seen = len(all)
	return out
}

// stepUntilProduce steps (without moving the clock) until at least one
// Produce request is sent and returns the new ones.
func (f *fixture) stepUntilProduce() []networktest.SentRequest {
	f.t.Helper()
	for i := 0; i < 20; i++ {
		f.step()
		if reqs := f.newProduce(); len(reqs) > 0 {
			return reqs
		}
	}
	f.t.Fatal("no produce request was sent")
	return nil
}

// requireNoProduce steps a few times and checks that nothing is sent.
func (f *fixture) requireNoProduce(why string) {
	f.t.Helper()
	for i := 0; i < 3; i++ {
		f.step()
	}
	require.Empty(f.t, f.newProduce(), why)
}

// sentBatch is one partition's batch of a Produce request, decoded by kmsg.
type sentBatch struct {
	tp     accumulator.TopicPartition
	batch  kmsg.RecordBatch
	values []string
}

// batches decodes the record batches of a Produce request with kmsg.
func (f *fixture) batches(req networktest.SentRequest) []sentBatch {
	f.t.Helper()
	body := req.Body.(*protocol.ProduceRequest)
	var out []sentBatch
	for _, t := range body.Topics {
		for _, p := range t.Partitions {
			sb := sentBatch{tp: accumulator.TopicPartition{Topic: t.Name, Partition: p.Index}}
			require.NoError(f.t, sb.batch.ReadFrom(p.Records))
			require.Equal(f.t, int8(2), sb.batch.Magic)
			rest, err := protocol.Decompress(protocol.Codec(sb.batch.Attributes&protocol.AttrCompressionMask), sb.batch.Records, 1<<20)
			require.NoError(f.t, err)
			for i := int32(0); i < sb.batch.NumRecords; i++ {
				var r kmsg.Record
				require.NoError(f.t, r.ReadFrom(rest))
				sb.values = append(sb.values, string(r.Value))
				rest = rest[r.Length+int32(varintLen(r.Length)):]
			}
			out = append(out, sb)
		}
	}
	return out
}

// batchFor returns the request's batch for a partition.
func (f *fixture) batchFor(req networktest.SentRequest, topic string, partition int32) sentBatch {
	f.t.Helper()
	for _, b := range f.batches(req) {
		if b.tp.Topic == topic && b.tp.Partition == partition {
			return b
		}
	}
	f.t.Fatalf("no batch for %s/%d in the request", topic, partition)
	return sentBatch{}
}

// varintLen is the size of a zigzag varint.
func varintLen(v int32) int {
	u := uint32((v << 1) ^ (v >> 31))
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// answer is how respond answers one partition: an error code, or success.
type answer struct {
	code         int16
	message      string
	recordErrors []protocol.ProduceResponseRecordError
	// offsetOnError sends the log end as the base offset with an error,
	// as some brokers (and kfake's faults) do, instead of -1.
	offsetOnError bool
}

// success is a successful answer.
var success = answer{}

// errAnswer answers with a Kafka error.
func errAnswer(e *protocol.Error) answer { return answer{code: e.Code} }

// respond answers a Produce request: every partition succeeds (appended
// to the fixture's log, with its base offset) unless answers names it.
func (f *fixture) respond(req networktest.SentRequest, answers map[accumulator.TopicPartition]answer) {
	f.t.Helper()
	f.sel.RespondTo(req, f.produceResponse(req, answers))
}

// produceResponse is the response respond sends.
func (f *fixture) produceResponse(req networktest.SentRequest, answers map[accumulator.TopicPartition]answer) *protocol.ProduceResponse {
	resp := &protocol.ProduceResponse{}
	batches := f.batches(req)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range batches {
		a := answers[b.tp]
		part := protocol.ProduceResponsePartition{Index: b.tp.Partition, ErrorCode: a.code, BaseOffset: -1,
			LogAppendTimeMs: -1, LogStartOffset: -1, RecordErrors: a.recordErrors,
			CurrentLeader: protocol.LeaderIDAndEpoch{LeaderID: -1, LeaderEpoch: -1}}
		if a.message != "" {
			part.ErrorMessage = &a.message
		}
		if a.offsetOnError {
			part.BaseOffset = f.logEnd[b.tp]
		}
		if a.code == 0 {
			part.BaseOffset = f.logEnd[b.tp]
			f.logEnd[b.tp] += int64(b.batch.NumRecords)
			f.produced[b.tp] = append(f.produced[b.tp], b.values...)
		}
		resp.Topics = appendPartition(resp.Topics, b.tp.Topic, part)
	}
	return resp
}

// autoProduce makes the broker answer every later Produce request with
// success.
func (f *fixture) autoProduce() {
	f.sel.AutoRespond(protocol.KeyProduce, func(req networktest.SentRequest) protocol.Response {
		return f.produceResponse(req, nil)
	})
}

// log returns the values the broker stored for a partition, in order.
func (f *fixture) log(tp accumulator.TopicPartition) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.produced[tp])
}

// respondAll answers a request with one answer for every partition.
func (f *fixture) respondAll(req networktest.SentRequest, a answer) {
	answers := make(map[accumulator.TopicPartition]answer)
	for _, b := range f.batches(req) {
		answers[b.tp] = a
	}
	f.respond(req, answers)
}

func appendPartition(topics []protocol.ProduceResponseTopic, name string, p protocol.ProduceResponsePartition) []protocol.ProduceResponseTopic {
	for i := range topics {
		if topics[i].Name == name {
			topics[i].Partitions = append(topics[i].Partitions, p)
			return topics
		}
	}
	return append(topics, protocol.ProduceResponseTopic{Name: name, Partitions: []protocol.ProduceResponsePartition{p}})
}

// initRequests returns the InitProducerId requests sent.
func (f *fixture) initRequests() []networktest.SentRequest {
	var out []networktest.SentRequest
	for _, s := range f.sel.AllSent() {
		if s.Header.APIKey == protocol.KeyInitProducerId {
			out = append(out, s)
		}
	}
	return out
}

// metadataRequests counts the Metadata requests sent.
func (f *fixture) metadataRequests() int {
	n := 0
	for _, s := range f.sel.AllSent() {
		if s.Header.APIKey == protocol.KeyMetadata {
			n++
		}
	}
	return n
}

// stepUntilProduceN steps (without moving the clock) until n Produce
// requests were sent, and returns them in order.
func (f *fixture) stepUntilProduceN(n int) []networktest.SentRequest {
	f.t.Helper()
	var out []networktest.SentRequest
	for i := 0; i < 20 && len(out) < n; i++ {
		f.step()
		out = append(out, f.newProduce()...)
	}
	require.Len(f.t, out, n, "produce requests sent")
	return out
}

// sequence is the base sequence of the request's batch for a partition.
func (f *fixture) sequence(req networktest.SentRequest, topic string, partition int32) int32 {
	f.t.Helper()
	return f.batchFor(req, topic, partition).batch.FirstSequence
}

// producerID is the producer id of the request's batch for a partition.
func (f *fixture) producerID(req networktest.SentRequest, topic string, partition int32) int64 {
	f.t.Helper()
	return f.batchFor(req, topic, partition).batch.ProducerID
}

// prime delivers one record to a partition, so that the broker has
// acknowledged a batch of the current producer id there and later batches
// may be pipelined. It returns the record's position.
func (f *fixture) prime(topic string, partition int32) Position {
	f.t.Helper()
	pos := f.send(topic, partition)
	f.advance(testLinger)
	f.respondAll(f.stepUntilProduce()[0], success)
	f.step()
	require.NoError(f.t, f.outcome(pos).err)
	return pos
}

// respondAsSent steps, answering every Produce request with success as it
// is sent, until n requests were answered; it returns them in order.
func (f *fixture) respondAsSent(n int) []networktest.SentRequest {
	f.t.Helper()
	var out []networktest.SentRequest
	for i := 0; i < 30 && len(out) < n; i++ {
		f.step()
		for _, r := range f.newProduce() {
			f.respondAll(r, success)
			out = append(out, r)
		}
	}
	require.Len(f.t, out, n, "produce requests answered")
	f.step()
	return out
}
