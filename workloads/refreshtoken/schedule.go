package refreshtoken

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Simulated time: the scenario's clock, not the wall clock. Logins arrive at
// a fixed rate and each session refreshes every period, so a 300-second
// keycloak-benchmark scenario runs as fast as the database allows while every
// timestamp written is what the real scenario would write.

// Epoch is the simulated start (2026-01-01T00:00:00Z) in epoch seconds.
const Epoch int64 = 1767225600

type opKind int

const (
	opLogin opKind = iota
	opRefresh
	opLogout
)

func (k opKind) String() string { return [...]string{"login", "refresh", "logout"}[k] }

// plural is the operation's name in results ("refreshes").
func (k opKind) plural() string { return [...]string{"logins", "refreshes", "logouts"}[k] }

// session is one user session's state as the driver tracks it.
type session struct {
	idx       int
	id        string
	userID    string
	createdOn int64
	next      int64 // simulated ms of the next event
	done      int   // refreshes done
	logout    bool  // this session logs out after its refreshes
	offline   bool  // OFFLINE_FLAG '1' (offline.go)
	// What Keycloak's session cache holds: LAST_SESSION_REFRESH, the client
	// session's TIMESTAMP, and the VERSION (optimistic lock) of each row.
	lastRefresh, timestamp     int64
	userVersion, clientVersion int64
}

type event struct {
	kind opKind
	s    *session
	at   int64 // simulated ms
}

// Plan is the scenario's shape.
type Plan struct {
	Logins, Refreshes int   // refreshes per login
	PeriodMS          int64 // between refreshes
	ArrivalMS         int64 // between logins
	FirstMS           int64 // from a login to its first refresh
	// OffsetMS moves the whole plan on the simulated clock: the warm-up's
	// plan ends before the measured one starts at 0.
	OffsetMS int64
	Seed     uint64
	logouts  []bool
	offline  []bool // nil: no session is offline (WithOffline)
}

// NewPlan fixes which sessions log out: exactly round(logins*pct/100) of
// them, chosen by the seed, so runs with the same seed do the same work.
func NewPlan(logins, refreshes int, periodMS, arrivalMS int64, logoutPct float64, seed uint64) *Plan {
	p := &Plan{Logins: logins, Refreshes: refreshes, PeriodMS: periodMS, ArrivalMS: arrivalMS, Seed: seed, logouts: make([]bool, logins)}
	n := int(float64(logins)*logoutPct/100 + 0.5)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	for _, i := range r.Perm(logins)[:n] {
		p.logouts[i] = true
	}
	return p
}

// Logouts is the number of sessions that log out.
func (p *Plan) Logouts() int {
	n := 0
	for _, l := range p.logouts {
		if l {
			n++
		}
	}
	return n
}

// Total is every operation of the plan.
func (p *Plan) Total() int64 { return int64(p.Logins*(1+p.Refreshes) + p.Logouts()) }

// sessionID is a deterministic UUID-shaped id for login i.
func (p *Plan) sessionID(i int) string { return p.sessionSID(i).String() }

// sessionSID is login i's id in its 16 bytes: a version-4, variant-10 UUID
// whose random bits are drawn from the login's own PCG stream, in the
// order and widths the text form "%08x-%04x-4%03x-%04x-%012x" once took
// them, so a seed names the same sessions it always did.
func (p *Plan) sessionSID(i int) sid {
	r := rand.New(rand.NewPCG(p.Seed, uint64(i)))
	var s sid
	binary.BigEndian.PutUint32(s[0:4], r.Uint32())
	binary.BigEndian.PutUint16(s[4:6], uint16(r.Uint32()))
	binary.BigEndian.PutUint16(s[6:8], 0x4000|uint16(r.Uint32()&0xfff))
	binary.BigEndian.PutUint16(s[8:10], 0x8000|uint16(r.Uint32()&0x3fff))
	var tail [8]byte
	binary.BigEndian.PutUint64(tail[:], r.Uint64())
	copy(s[10:16], tail[2:8])
	return s
}

// cursor walks one worker's share of the sessions (i = worker, worker+n, ...)
// in simulated-time order, keeping only the active sessions in memory.
type cursor struct {
	p         *Plan
	nextLogin int
	stride    int
	active    sessHeap
}

func (p *Plan) cursor(worker, workers int) *cursor {
	return &cursor{p: p, nextLogin: worker, stride: workers}
}

// next returns the worker's next event, or false when it has none left.
func (c *cursor) next() (event, bool) {
	loginAt := int64(-1)
	if c.nextLogin < c.p.Logins {
		loginAt = int64(c.nextLogin)*c.p.ArrivalMS + c.p.OffsetMS
	}
	if len(c.active) > 0 && (c.nextLogin >= c.p.Logins || c.active[0].next <= loginAt) {
		s := c.active[0]
		at := s.next
		if s.done < c.p.Refreshes {
			s.done++
			s.next += c.p.PeriodMS
			if s.done == c.p.Refreshes && !s.logout {
				heap.Pop(&c.active)
			} else {
				heap.Fix(&c.active, 0)
			}
			return event{kind: opRefresh, s: s, at: at}, true
		}
		heap.Pop(&c.active) // logout after the last refresh
		return event{kind: opLogout, s: s, at: at}, true
	}
	if c.nextLogin >= c.p.Logins {
		return event{}, false
	}
	i := c.nextLogin
	c.nextLogin += c.stride
	s := &session{idx: i, id: c.p.sessionID(i), userID: fmt.Sprintf("user-%d", i), createdOn: secOf(loginAt),
		next: loginAt + c.p.FirstMS, logout: c.p.logouts[i], offline: c.p.isOffline(i)}
	if c.p.Refreshes > 0 || s.logout {
		heap.Push(&c.active, s)
	}
	return event{kind: opLogin, s: s, at: loginAt}, true
}

type sessHeap []*session

func (h sessHeap) Len() int { return len(h) }
func (h sessHeap) Less(i, j int) bool {
	if h[i].next != h[j].next {
		return h[i].next < h[j].next
	}
	return h[i].idx < h[j].idx
}
func (h sessHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sessHeap) Push(x any)   { *h = append(*h, x.(*session)) }
func (h *sessHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// secOf is the simulated second of a simulated millisecond (floored, so a
// warm-up before the start reads like the clock it models).
func secOf(ms int64) int64 { return Epoch + floorDiv(ms, 1000) }
