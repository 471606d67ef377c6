package sender_test

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kproduce/kproduce/pkg/sender"
)

// Produce one record and wait for it: a producer in ten lines.
func Example() {
	cluster, _ := kfake.NewCluster(kfake.SeedTopics(1, "events")) // a broker for the example
	defer cluster.Close()

	p, err := sender.New(sender.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	rec := &sender.Record{Topic: "events", Key: []byte("user1"), Value: []byte("login")}
	if err := p.ProduceSync(context.Background(), rec); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("delivered to %s/%d at offset %d\n", rec.Topic, rec.Partition, rec.Offset)
	// Output: delivered to events/0 at offset 0
}

// Hand records over without waiting: each promise tells its record's
// outcome; Flush waits for all of them.
func ExampleProducer_Produce() {
	cluster, _ := kfake.NewCluster(kfake.SeedTopics(1, "events"))
	defer cluster.Close()
	p, err := sender.New(sender.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	var mu sync.Mutex
	delivered := 0
	for i := range 3 {
		rec := &sender.Record{Topic: "events", Value: fmt.Appendf(nil, "event %d", i)}
		p.Produce(context.Background(), rec, func(r *sender.Record, err error) {
			if err != nil {
				log.Printf("%s: %v", r.Value, err)
				return
			}
			mu.Lock()
			delivered++
			mu.Unlock()
		})
	}
	if err := p.Flush(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println(delivered, "delivered")
	// Output: 3 delivered
}

// ProduceBatch copies the records into their batches, so they can be
// reused at once; Opaque carries what the promise needs to know of each.
func ExampleProducer_ProduceBatch() {
	cluster, _ := kfake.NewCluster(kfake.SeedTopics(1, "events"))
	defer cluster.Close()
	p, err := sender.New(sender.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	lines := []string{"a", "b", "c"}
	recs := make([]*sender.Record, len(lines))
	for i, line := range lines {
		recs[i] = &sender.Record{Topic: "events", Value: []byte(line), Opaque: i + 1} // the line number
	}
	var mu sync.Mutex
	offsets := make(map[int]int64)
	if _, err := p.ProduceBatch(context.Background(), recs, func(r *sender.Record, err error) {
		if err != nil {
			log.Printf("line %d: %v", r.Opaque, err)
			return
		}
		mu.Lock()
		offsets[r.Opaque.(int)] = r.Offset
		mu.Unlock()
	}); err != nil {
		log.Fatal(err)
	}
	if err := p.Flush(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println(offsets[1], offsets[2], offsets[3])
	// Output: 0 1 2
}

// ProduceBatchDone tells when a call is over: here each call's records
// point into one array of positions, which done hands back for the next
// call to reuse.
func ExampleProducer_ProduceBatchDone() {
	cluster, _ := kfake.NewCluster(kfake.SeedTopics(1, "events"))
	defer cluster.Close()
	p, err := sender.New(sender.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	free := make(chan []int, 2) // arrays of positions, reused
	free <- make([]int, 3)
	free <- make([]int, 3)
	var mu sync.Mutex
	delivered := 0
	for call := 0; call < 4; call++ {
		positions := <-free // waits until a call before is done with it
		recs := make([]*sender.Record, len(positions))
		for i := range positions {
			positions[i] = call*len(positions) + i + 1
			recs[i] = &sender.Record{Topic: "events", Value: []byte("x"), Opaque: &positions[i]}
		}
		_, err := p.ProduceBatchDone(context.Background(), recs, func(r *sender.Record, err error) {
			if err != nil {
				log.Printf("record %d: %v", *r.Opaque.(*int), err)
				return
			}
			mu.Lock()
			delivered++
			mu.Unlock()
		}, func() { free <- positions })
		if err != nil {
			log.Fatal(err)
		}
	}
	if err := p.Flush(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println(delivered, "delivered")
	// Output: 12 delivered
}

// A transactional producer: a read_committed consumer sees the records
// once the transaction is committed, all or none.
func ExampleProducer_CommitTransaction() {
	cluster, _ := kfake.NewCluster(kfake.SeedTopics(1, "orders"))
	defer cluster.Close()
	p, err := sender.New(sender.SeedBrokers(cluster.ListenAddrs()...), sender.TransactionalID("orders-load"))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())

	ctx := context.Background()
	if err := p.BeginTransaction(); err != nil {
		log.Fatal(err)
	}
	for _, v := range []string{"order 1", "order 2"} {
		p.Produce(ctx, &sender.Record{Topic: "orders", Value: []byte(v)}, nil)
	}
	if err := p.CommitTransaction(ctx); err != nil {
		log.Fatal(err) // a record failed: AbortTransaction
	}
	fmt.Println("committed")
	// Output: committed
}
