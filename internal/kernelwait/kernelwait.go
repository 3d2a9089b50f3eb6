// Package kernelwait gives a connection reads that wait for the server's
// answer in the kernel, on the waiting goroutine's own thread, the way a C
// client such as pgbench waits, instead of parking the goroutine on Go's
// network poller.
//
// Why: a workload worker sends one operation and waits for its answer,
// thousands of times a second. Parked on the poller, every answer cost a
// read that found nothing, an epoll_pwait, the scheduler's futex hand-off
// between threads and a burst of its monitor's wake-ups: 7.5 system calls
// per operation against pgbench's 4, and 1.6–1.7× pgbench's system CPU on
// the same statements. A connection from Wrap owns its socket outright (the
// poller no longer watches it, so no other thread wakes when the answer
// arrives) and waits in poll(2) with an eventfd beside the socket, which a
// deadline change or Close signals: deadlines and Close interrupt a wait as
// they do on a net.Conn, which is how pgx and database/sql cancel.
//
// A goroutine that waits in the kernel keeps its P the whole time, so the
// runtime must have one to spare (GOMAXPROCS above the waiting workers;
// see Enable), or its monitor takes the P back from every wait.
package kernelwait

import (
	"net"
	"sync/atomic"
)

var enabled atomic.Bool

// Enable makes the dialers that ask Enabled wrap the connections they make
// from now on (connections already open keep how they wait).
func Enable(on bool) { enabled.Store(on) }

// Enabled says whether new connections should be wrapped.
func Enabled() bool { return enabled.Load() }

// Wrap returns c with reads and writes that wait in the kernel, and c closed;
// where that is not possible (no file descriptor, or not Linux) it returns c
// itself.
func Wrap(c net.Conn) net.Conn { return wrap(c) }

// Plan is how many Ps Go should have for so many workers on so many cores,
// and whether the workers' connections should wait in the kernel (only
// when canWait: their driver dials through Wrap). A P per worker and one to
// spare while the cores allow (a worker waiting in the kernel keeps its P,
// and without a spare the runtime takes it back after 20 µs); else, or
// when the connections cannot wait in the kernel, a P per worker up to the
// cores, waiting on Go's poller, where a waiting worker holds no P and a P
// left idle costs every wait a thread hand-off.
func Plan(workers, cores int, canWait bool) (procs int, kernelWait bool) {
	workers = max(1, workers)
	if canWait && workers < cores {
		return workers + 1, true
	}
	return max(1, min(cores, workers)), false
}
