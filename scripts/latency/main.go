// Command latency measures how promptly a producer command delivers lines
// written to an open pipe: it starts the command with a pipe as stdin,
// writes one line every interval while keeping the pipe open, and reports
// the median and maximum delay from each write to (a) the line's report on
// the command's stdout, when it prints one containing the line, and (b) the
// record appearing to a consumer of the topic.
//
// Usage: latency -b HOST:PORT -t TOPIC [-n 20] [-interval 200ms] -- COMMAND [ARGS...]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("b", "127.0.0.1:9092", "bootstrap broker")
	topic := flag.String("t", "latency", "topic the command produces to")
	n := flag.Int("n", 20, "lines to write")
	interval := flag.Duration("interval", 200*time.Millisecond, "time between lines")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: latency -b HOST:PORT -t TOPIC -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	if err := run(*brokers, *topic, *n, *interval, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(1)
	}
}

// arrivals records when each line was seen, by line text.
type arrivals struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func (a *arrivals) note(line string, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.seen[line]; !ok {
		a.seen[line] = at
	}
}

func run(brokers, topic string, n int, interval time.Duration, command []string) error {
	consumed := &arrivals{seen: map[string]time.Time{}}
	reported := &arrivals{seen: map[string]time.Time{}}
	stopConsumer, err := consume(brokers, topic, consumed)
	if err != nil {
		return err
	}
	defer stopConsumer()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go scanReports(stdout, reported)
	written := make([]string, 0, n)
	writeTimes := map[string]time.Time{}
	tag := fmt.Sprintf("lat-%d", time.Now().UnixNano())
	for i := range n {
		line := fmt.Sprintf("%s-%03d", tag, i)
		writeTimes[line] = time.Now()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			return err
		}
		written = append(written, line)
		time.Sleep(interval)
	}
	closedAt := time.Now()
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %w", command[0], err)
	}
	time.Sleep(time.Second) // let the consumer catch up
	fmt.Printf("stdin closed %.0f ms after the first line\n", closedAt.Sub(writeTimes[written[0]]).Seconds()*1000)
	summarize("report", written, writeTimes, reported)
	summarize("consumed", written, writeTimes, consumed)
	return nil
}

// scanReports notes each stdout line under every written line it contains.
func scanReports(r io.Reader, reported *arrivals) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		now := time.Now()
		for _, field := range strings.Fields(sc.Text()) {
			reported.note(field, now)
		}
	}
}

// consume follows topic from its end with a kgo consumer.
func consume(brokers, topic string, consumed *arrivals) (func(), error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()), kgo.FetchMaxWait(10*time.Millisecond),
		kgo.AllowAutoTopicCreation())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Make sure the consumer has its start offsets before anything is written.
	warm, cancelWarm := context.WithTimeout(ctx, 500*time.Millisecond)
	cl.PollFetches(warm)
	cancelWarm()
	go func() {
		for ctx.Err() == nil {
			fetches := cl.PollFetches(ctx)
			now := time.Now()
			fetches.EachRecord(func(r *kgo.Record) { consumed.note(string(r.Value), now) })
		}
	}()
	return func() { cancel(); cl.Close() }, nil
}

// summarize prints the median and maximum delay of the lines seen.
func summarize(what string, written []string, writeTimes map[string]time.Time, seen *arrivals) {
	seen.mu.Lock()
	defer seen.mu.Unlock()
	var delays []float64
	for _, line := range written {
		if at, ok := seen.seen[line]; ok {
			delays = append(delays, at.Sub(writeTimes[line]).Seconds()*1000)
		}
	}
	if len(delays) == 0 {
		fmt.Printf("%-9s none of %d lines seen\n", what, len(written))
		return
	}
	slices.Sort(delays)
	fmt.Printf("%-9s %d/%d lines  median %.1f ms  max %.1f ms\n", what, len(delays), len(written),
		delays[len(delays)/2], delays[len(delays)-1])
}
