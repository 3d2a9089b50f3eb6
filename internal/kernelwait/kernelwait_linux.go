package kernelwait

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

type conn struct {
	fd int
	// rwake and wwake are eventfds polled beside the socket: a deadline
	// change or Close writes to them to end a wait in poll.
	rwake, wwake int
	laddr, raddr net.Addr
	// use is held shared by whatever uses the descriptors and exclusively
	// by Close, which closes them only once no call is left inside.
	use    sync.RWMutex
	closed atomic.Bool
	// Deadlines as Unix nanoseconds; 0 is none.
	rdl, wdl atomic.Int64
	// sent is set by a write and cleared by a read that returns data: the
	// read after a request polls first (its answer is not there yet), a
	// read that continues a long answer tries the socket first.
	sent atomic.Bool
	// yielded is when a read last let the scheduler run (yield).
	yielded atomic.Int64
	rfds    [2]unix.PollFd
	wfds    [2]unix.PollFd
}

func wrap(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return c
	}
	rwake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		return c
	}
	wwake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		unix.Close(rwake)
		return c
	}
	// The copy shares the socket, non-blocking as Go made it; closing c
	// takes the socket off Go's poller (EPOLL_CTL_DEL) and leaves it open.
	k := &conn{fd: fd, rwake: rwake, wwake: wwake, laddr: c.LocalAddr(), raddr: c.RemoteAddr()}
	k.rfds = [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(rwake), Events: unix.POLLIN}}
	k.wfds = [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}, {Fd: int32(wwake), Events: unix.POLLIN}}
	c.Close()
	return k
}

func (c *conn) Read(p []byte) (int, error) {
	c.use.RLock()
	defer c.use.RUnlock()
	wait := c.sent.Load()
	for {
		if err := c.ready(&c.rdl); err != nil {
			return 0, c.opErr("read", err)
		}
		if wait {
			c.yield()
			if err := c.await(&c.rfds, &c.rdl); err != nil {
				return 0, c.opErr("read", err)
			}
		}
		n, err := unix.Read(c.fd, p)
		switch err {
		case nil:
			if n == 0 && len(p) > 0 {
				return 0, io.EOF
			}
			c.sent.Store(false)
			return n, nil
		case unix.EINTR:
			wait = false
		case unix.EAGAIN:
			wait = true
		default:
			return 0, c.opErr("read", os.NewSyscallError("read", err))
		}
	}
}

func (c *conn) Write(p []byte) (int, error) {
	c.use.RLock()
	defer c.use.RUnlock()
	c.sent.Store(true)
	done := 0
	for done < len(p) {
		if err := c.ready(&c.wdl); err != nil {
			return done, c.opErr("write", err)
		}
		n, err := unix.Write(c.fd, p[done:])
		switch err {
		case nil:
			done += n
		case unix.EINTR:
		case unix.EAGAIN:
			if err := c.await(&c.wfds, &c.wdl); err != nil {
				return done, c.opErr("write", err)
			}
		default:
			return done, c.opErr("write", os.NewSyscallError("write", err))
		}
	}
	return done, nil
}

// ready is nil unless the connection is closed or its deadline has passed
// (then, as on a net.Conn, even data already there is not read).
func (c *conn) ready(dl *atomic.Int64) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	if d := dl.Load(); d != 0 && time.Now().UnixNano() >= d {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// await polls until the socket is ready for fds' direction, the deadline
// passes or Close is called.
func (c *conn) await(fds *[2]unix.PollFd, dl *atomic.Int64) error {
	for {
		if err := c.ready(dl); err != nil {
			return err
		}
		timeout := -1
		if d := dl.Load(); d != 0 {
			timeout = int((d - time.Now().UnixNano() + int64(time.Millisecond) - 1) / int64(time.Millisecond))
		}
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds[:], timeout); err != nil && err != unix.EINTR {
			return os.NewSyscallError("poll", err)
		}
		if fds[1].Revents != 0 {
			var b [8]byte
			unix.Read(int(fds[1].Fd), b[:]) // reset the eventfd; the loop reads the new state
			continue
		}
		if fds[0].Revents != 0 {
			return nil // readable, writable, or an error or hang-up the next call reports
		}
	}
}

// yield lets the scheduler run the goroutine again at most every 5 ms. A
// goroutine that never parks keeps its scheduling tick, and every 10 ms
// the runtime's monitor preempts it, takes its P from the wait and then
// polls at 20 µs for milliseconds: a large share of the process's system
// time (measured with make bench, docs/performance.md). The yield is taken
// just before a wait, when it delays nothing.
func (c *conn) yield() {
	now := time.Now().UnixNano()
	if now-c.yielded.Load() > int64(5*time.Millisecond) {
		c.yielded.Store(now)
		runtime.Gosched()
	}
}

func kick(fd int) {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 1)
	unix.Write(fd, b[:])
}

func (c *conn) setDeadline(t time.Time, read, write bool) error {
	c.use.RLock()
	defer c.use.RUnlock()
	if c.closed.Load() {
		return c.opErr("set deadline", net.ErrClosed)
	}
	var v int64
	if !t.IsZero() {
		v = max(t.UnixNano(), 1)
	}
	if read {
		c.rdl.Store(v)
		kick(c.rwake)
	}
	if write {
		c.wdl.Store(v)
		kick(c.wwake)
	}
	return nil
}

func (c *conn) SetDeadline(t time.Time) error      { return c.setDeadline(t, true, true) }
func (c *conn) SetReadDeadline(t time.Time) error  { return c.setDeadline(t, true, false) }
func (c *conn) SetWriteDeadline(t time.Time) error { return c.setDeadline(t, false, true) }

func (c *conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return c.opErr("close", net.ErrClosed)
	}
	kick(c.rwake)
	kick(c.wwake)
	c.use.Lock()
	defer c.use.Unlock()
	err := unix.Close(c.fd)
	unix.Close(c.rwake)
	unix.Close(c.wwake)
	if err != nil {
		return c.opErr("close", os.NewSyscallError("close", err))
	}
	return nil
}

func (c *conn) LocalAddr() net.Addr  { return c.laddr }
func (c *conn) RemoteAddr() net.Addr { return c.raddr }

func (c *conn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: c.laddr.Network(), Source: c.laddr, Addr: c.raddr, Err: err}
}
