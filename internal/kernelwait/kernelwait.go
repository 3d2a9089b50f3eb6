package kernelwait

import "net"

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
