// Command devregistry runs an in-memory Confluent Schema Registry (franz-go's
// srfake) for local development and manual testing of kproduce's schema
// options:
//
//	go run ./scripts/devregistry -port 8081
//
// It prints "ready URL" on stdout once it listens, and runs until SIGINT or
// SIGTERM. Schemas are kept in memory only.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/sr/srfake"
)

func main() {
	port := flag.Int("port", 8081, "port to listen on, on 127.0.0.1 (0: a random port)")
	flag.Parse()
	if err := run(*port); err != nil {
		fmt.Fprintln(os.Stderr, "devregistry:", err)
		os.Exit(1)
	}
}

// run serves the registry on 127.0.0.1:port until a signal.
func run(port int) error {
	reg := srfake.New()
	defer reg.Close()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: reg.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Printf("ready http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}
