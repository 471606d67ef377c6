package sender

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// partitionCount returns the number of partitions of topic, waiting for
// metadata when the topic is not known yet (Kafka's waitOnMetadata): each
// metadata update that does not know the topic asks for another (after the
// refresh backoff), since a topic being created appears only in a later
// response. The wait ends after MaxBlock by the producer's clock, checked
// at each update, or by a wall-clock timer when no update comes. A topic
// whose wait already timed out fails at once until metadata knows it, so a
// missing topic costs one wait, not one per record.
func (p *Producer) partitionCount(ctx context.Context, topic string) (int, error) {
	if n := p.md.Fetch().PartitionCount(topic); n > 0 {
		return n, nil
	}
	start := p.clock.Now()
	defer p.waits.Add(1)
	p.md.AddTopic(topic)
	p.client.Wakeup()
	maxBlock := p.cfg.MaxBlock
	if maxBlock <= 0 {
		maxBlock = p.cfg.Accumulator.DeliveryTimeout
	}
	p.mu.Lock()
	since, missing := p.missingSince[topic]
	p.mu.Unlock()
	if missing {
		return 0, p.topicMissing(topic, p.clock.Now().Sub(since))
	}
	timer := time.NewTimer(maxBlock)
	defer timer.Stop()
	for {
		updated := p.md.Updated()
		cluster := p.md.Fetch()
		if n := cluster.PartitionCount(topic); n > 0 {
			return n, nil
		}
		if t, ok := cluster.Topic(topic); ok && t.Err != nil {
			switch {
			case !isRetriable(t.Err):
				return 0, fmt.Errorf("topic %s: %w", topic, t.Err)
			case !p.cfg.Metadata.AllowAutoTopicCreation && errors.Is(t.Err, protocol.ErrUnknownTopicOrPartition):
				// Nothing will create it: say so at once.
				return 0, fmt.Errorf("%w: %s: %w", ErrTopicMetadata, topic, t.Err)
			}
		}
		if err := p.sender.fatalError(); err != nil {
			return 0, err
		}
		if waited := p.clock.Now().Sub(start); waited >= maxBlock {
			return 0, p.giveUp(ctx, topic, start, waited)
		}
		p.md.RequestUpdate()
		select {
		case <-updated:
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-p.sender.done:
			return 0, ErrClosed
		case <-p.sender.stopped:
			return 0, p.sender.fatalError()
		case <-timer.C:
			return 0, p.giveUp(ctx, topic, start, maxBlock)
		}
	}
}

// bootstrapVerdictGrace bounds how long a metadata wait that timed out
// before the cluster ever answered waits for the Sender to give up on the
// bootstrap (see giveUp).
const bootstrapVerdictGrace = time.Second

// giveUp ends a metadata wait that timed out. When the cluster never
// answered and the bootstrap timeout is not longer than the wait (with
// --bootstrap-timeout 0 it is the same), the Sender's verdict on the
// bootstrap is due about now: the wait gives it bootstrapVerdictGrace, so
// that the record fails with the error naming every address rather than
// with whichever timer fired first.
func (p *Producer) giveUp(ctx context.Context, topic string, start time.Time, waited time.Duration) error {
	if p.md.Fetch().IsBootstrap() && p.cfg.Network.BootstrapTimeout <= waited {
		grace := time.NewTimer(bootstrapVerdictGrace)
		defer grace.Stop()
		select {
		case <-p.sender.stopped:
			return p.sender.fatalError()
		case <-p.sender.done:
		case <-ctx.Done():
		case <-grace.C:
		}
	}
	return p.giveUpOnTopic(topic, start, waited)
}

// giveUpOnTopic remembers that topic's wait timed out and explains why.
func (p *Producer) giveUpOnTopic(topic string, start time.Time, waited time.Duration) error {
	p.mu.Lock()
	p.missingSince[topic] = start
	p.mu.Unlock()
	return p.topicMissing(topic, waited)
}

// topicMissing explains why a topic's metadata is not available.
func (p *Producer) topicMissing(topic string, waited time.Duration) error {
	err := fmt.Errorf("%w after %s: %s", ErrTopicMetadata, waited.Round(time.Millisecond), topic)
	if t, ok := p.md.Fetch().Topic(topic); ok && t.Err != nil {
		return fmt.Errorf("%w: %w", err, t.Err)
	}
	if last := p.md.LastError(); last != nil {
		return fmt.Errorf("%w: %w", err, last)
	}
	return err
}

func isRetriable(err error) bool {
	var kerr *protocol.Error
	return errors.As(err, &kerr) && kerr.Retriable
}
