// Package kernelwait gives a connection reads that wait for the server's
// answer in the kernel, on the waiting goroutine's own thread, the way a C
// client such as pgbench waits, instead of parking the goroutine on Go's
// network poller.
//
// Why: a workload worker sends one operation and waits for its answer,
// thousands of times a second. Parked on the poller, every answer costs a
// read that finds nothing, an epoll_pwait, the scheduler's futex hand-off
// between threads and a burst of its monitor's wake-ups: more system calls
// and more system CPU per operation than pgbench spends on the same
// statements (measured with make bench, docs/performance.md). A connection from Wrap owns its socket outright (the
// poller no longer watches it, so no other thread wakes when the answer
// arrives) and waits in poll(2) with an eventfd beside the socket, which a
// deadline change or Close signals: deadlines and Close interrupt a wait as
// they do on a net.Conn, which is how pgx and database/sql cancel.
//
// A goroutine that waits in the kernel keeps its P the whole time, so the
// runtime must have one to spare (GOMAXPROCS above the waiting workers;
// see Plan), or its monitor takes the P back from every wait.
package kernelwait
