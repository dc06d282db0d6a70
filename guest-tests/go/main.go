// A Go program for endgate's process/thread/signal acceptance: goroutines and channels,
// time.Sleep, sync.WaitGroup over 8 goroutines x 100,000 iterations, os/signal.Notify with a
// self-sent SIGUSR1, and os/exec of a guest binary (itself, with the argument "child").
// Everything it prints is the same on every architecture.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		fmt.Printf("child: args %v, exit 3\n", os.Args[2:])
		os.Exit(3)
	}

	// Channels between goroutines: a pipeline of three stages.
	src := make(chan int)
	sq := make(chan int)
	go func() {
		for i := 1; i <= 1000; i++ {
			src <- i
		}
		close(src)
	}()
	go func() {
		for v := range src {
			sq <- v * v
		}
		close(sq)
	}()
	sum := 0
	for v := range sq {
		sum += v
	}
	fmt.Println("pipeline sum of squares 1..1000:", sum)

	// time.Sleep: the runtime's timers and futex sleeps.
	start := time.Now()
	time.Sleep(30 * time.Millisecond)
	fmt.Println("slept at least 30ms:", time.Since(start) >= 30*time.Millisecond)

	// 8 goroutines x 100,000: atomics and a mutex must not lose increments.
	runtime.GOMAXPROCS(4)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var atom int64
	locked := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100000; i++ {
				atomic.AddInt64(&atom, 1)
				mu.Lock()
				locked++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Println("atomic counter:", atom, "mutex counter:", locked)

	// os/signal: SIGUSR1 sent to ourselves arrives on the channel.
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		fmt.Println("kill:", err)
	}
	select {
	case s := <-ch:
		fmt.Println("signal received:", s)
	case <-time.After(5 * time.Second):
		fmt.Println("signal lost")
	}
	signal.Stop(ch)

	// os/exec of a guest binary: this program again.
	self, err := os.Executable()
	if err != nil {
		fmt.Println("executable:", err)
		os.Exit(1)
	}
	out, err := exec.Command(self, "child", "a", "b c").Output()
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	fmt.Printf("exec output %q, exit status %d\n", out, code)
}
