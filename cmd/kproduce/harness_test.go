package main

import "time"

// streamWait bounds the wait for a run to reach a point a test needs.
const streamWait = 10 * time.Second
