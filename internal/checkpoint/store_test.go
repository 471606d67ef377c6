package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kproduce/kproduce/internal/checkpoint"
	"github.com/kproduce/kproduce/internal/kafkatest"
	"github.com/kproduce/kproduce/pkg/admin"
	"github.com/kproduce/kproduce/pkg/sender"
)

const topic = checkpoint.DefaultTopic

func newCheckpointClient(t *testing.T) (*kfake.Cluster, checkpoint.Client) {
	t.Helper()
	c := kafkatest.NewCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(3, "data"))
	cl, err := admin.New(admin.Config{Brokers: c.ListenAddrs()})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return c, checkpoint.NewClient(cl)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// cp is a checkpoint of id after n records of one source.
func cp(id string, n int64) *checkpoint.Checkpoint {
	return &checkpoint.Checkpoint{Version: checkpoint.Version, TransactionalID: id, Records: n, Transactions: n,
		Sources: []checkpoint.Source{{Name: "in.txt", Records: n, Bytes: 3 * n, SHA256: fmt.Sprintf("%064x", n)}}}
}

// writer is a kgo transactional producer writing data and checkpoints.
type writer struct {
	t  *testing.T
	cl *kgo.Client
	id string
}

func newWriter(t *testing.T, c *kfake.Cluster, id string) *writer {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID(id),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return &writer{t: t, cl: cl, id: id}
}

// txn writes a data record and the checkpoint of n records in one
// transaction, committed or aborted; with end nil it stays open.
func (w *writer) txn(n int64, end *bool) {
	ctx := testContext(w.t)
	require.NoError(w.t, w.cl.BeginTransaction())
	require.NoError(w.t, w.cl.ProduceSync(ctx, &kgo.Record{Topic: "data", Partition: 1, Value: []byte("data")},
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte(w.id), Value: cp(w.id, n).Marshal()}).FirstErr())
	if end != nil {
		require.NoError(w.t, w.cl.EndTransaction(ctx, kgo.TransactionEndTry(*end)))
	}
}

var commit, abort = true, false

func TestLoadNone(t *testing.T) {
	c, cl := newCheckpointClient(t)
	found, err := checkpoint.Load(testContext(t), cl, topic, "load")
	require.NoError(t, err)
	assert.Nil(t, found)

	// The topic was created compacted, with one partition.
	oracle, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer oracle.Close()
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName, res.ConfigNames = kmsg.ConfigResourceTypeTopic, topic, []string{"cleanup.policy"}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(testContext(t), oracle)
	require.NoError(t, err)
	assert.Equal(t, "compact", *resp.Resources[0].Configs[0].Value)
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	md, err := mreq.RequestWith(testContext(t), oracle)
	require.NoError(t, err)
	assert.Len(t, md.Topics[0].Partitions, 1)
}

func TestLoadTheLastCommitted(t *testing.T) {
	c, cl := newCheckpointClient(t)
	_, err := checkpoint.Load(testContext(t), cl, topic, "load") // creates the topic
	require.NoError(t, err)
	w := newWriter(t, c, "load")
	w.txn(1, &commit)
	w.txn(2, &commit)
	w.txn(3, &abort)
	found, err := checkpoint.Load(testContext(t), cl, topic, "load")
	require.NoError(t, err)
	require.NotNil(t, found)
	assert.Equal(t, cp("load", 2), found.Checkpoint, "the aborted one is not visible")
	assert.Equal(t, int32(0), found.Partition)
}

func TestLoadAmongOtherLoads(t *testing.T) {
	c, cl := newCheckpointClient(t)
	_, err := checkpoint.Load(testContext(t), cl, topic, "mine")
	require.NoError(t, err)
	newWriter(t, c, "mine").txn(7, &commit)
	// Enough checkpoints of another load after it to need several windows.
	other := newWriter(t, c, "other")
	for i := range int64(1500) {
		other.txn(i+1, &commit)
	}
	found, err := checkpoint.Load(testContext(t), cl, topic, "mine")
	require.NoError(t, err)
	require.NotNil(t, found)
	assert.Equal(t, cp("mine", 7), found.Checkpoint)
	assert.Less(t, found.Offset, int64(10))

	found, err = checkpoint.Load(testContext(t), cl, topic, "other")
	require.NoError(t, err)
	assert.Equal(t, int64(1500), found.Records)
}

func TestLoadWaitsForAnotherLoadsOpenTransaction(t *testing.T) {
	c, cl := newCheckpointClient(t)
	_, err := checkpoint.Load(testContext(t), cl, topic, "mine")
	require.NoError(t, err)
	other := newWriter(t, c, "other")
	other.txn(1, nil) // open, holding the partition's last stable offset
	newWriter(t, c, "mine").txn(4, &commit)

	// Long enough for the requests before the wait, on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = checkpoint.Load(ctx, cl, topic, "mine")
	assert.ErrorIs(t, err, checkpoint.ErrOpenTransaction)
	assert.ErrorContains(t, err, topic+"/0 from offset 0")

	// The other transaction ends once the next Load waits for it: once it
	// has asked for the last stable offset (a read_committed ListOffsets).
	var stableAsks atomic.Int32
	c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if req.(*kmsg.ListOffsetsRequest).IsolationLevel == 1 {
			stableAsks.Add(1)
		}
		return nil, nil, false
	})
	done := make(chan error, 1)
	go func() {
		if !kafkatest.Poll(10*time.Second, func() bool { return stableAsks.Load() > 0 }) {
			done <- errors.New("Load never asked for the last stable offset")
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- other.cl.EndTransaction(ctx, kgo.TryCommit)
	}()
	found, err := checkpoint.Load(testContext(t), cl, topic, "mine")
	require.NoError(t, err)
	require.NoError(t, <-done)
	assert.Equal(t, cp("mine", 4), found.Checkpoint, "read once the other transaction ended")
}

func TestLoadTombstone(t *testing.T) {
	c, cl := newCheckpointClient(t)
	_, err := checkpoint.Load(testContext(t), cl, topic, "load")
	require.NoError(t, err)
	w := newWriter(t, c, "load")
	w.txn(1, &commit)
	plain, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer plain.Close()
	require.NoError(t, plain.ProduceSync(testContext(t), &kgo.Record{Topic: topic, Partition: 0, Key: []byte("load")}).FirstErr())
	found, err := checkpoint.Load(testContext(t), cl, topic, "load")
	require.NoError(t, err)
	assert.Nil(t, found, "a deleted checkpoint starts the load afresh")
}

// TestLoadAfterFencingAZombie: a producer killed with its transaction
// open, checkpoint written, is fenced by the next producer's
// InitTransactions, which aborts that transaction: Load then finds the
// checkpoint before it.
func TestLoadAfterFencingAZombie(t *testing.T) {
	c, cl := newCheckpointClient(t)
	_, err := checkpoint.Load(testContext(t), cl, topic, "load")
	require.NoError(t, err)
	newWriter(t, c, "load").txn(2, &commit)

	zombie := newProducer(t, c, "load")
	ctx := testContext(t)
	require.NoError(t, zombie.InitTransactions(ctx))
	require.NoError(t, zombie.BeginTransaction())
	send := func(p *sender.Producer, rec *sender.Record) {
		require.NoError(t, p.ProduceSync(ctx, rec))
	}
	send(zombie, &sender.Record{Topic: "data", Partition: 0, Value: []byte("zombie")})
	send(zombie, &sender.Record{Topic: topic, Partition: 0, Key: []byte("load"), Value: cp("load", 3).Marshal()})
	require.NoError(t, zombie.Flush(ctx))

	next := newProducer(t, c, "load")
	require.NoError(t, next.InitTransactions(ctx))
	found, err := checkpoint.Load(ctx, cl, topic, "load")
	require.NoError(t, err)
	assert.Equal(t, cp("load", 2), found.Checkpoint)

	assert.Error(t, zombie.CommitTransaction(ctx), "the zombie is fenced")
}

func newProducer(t *testing.T, c *kfake.Cluster, id string) *sender.Producer {
	p, err := sender.New(sender.SeedBrokers(c.ListenAddrs()...), sender.TransactionalID(id),
		sender.WithPartitioner(sender.ManualPartitioner(nil)))
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.Close(ctx)
	})
	return p
}
