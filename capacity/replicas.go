package capacity

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/writeamp/writeamp/result"
)

// Replication is what plan is told about the copies of the database: how
// many replicas receive the log (--replicas, or the standbys the result
// measured) and the network link each is fed through (--network-ceiling).
type Replication struct {
	Replicas int     // 0: the measured count
	Link     float64 // bytes/s per link; 0: none given
	LinkText string
}

// ReplicaPlan is the log shipped to the replicas at the rate.
type ReplicaPlan struct {
	Replicas int    `json:"replicas"`
	Counted  string `json:"replicas_from"` // "--replicas" or what the result measured
	// LinkBytesPerSec is the --network-ceiling, 0 when none was given.
	LinkBytesPerSec float64         `json:"link_bytes_per_second,omitempty"`
	Variants        []ReplicaFigure `json:"variants"`
	Assumptions     []string        `json:"assumptions"`
}

// ReplicaFigure is one variant's shipping: to each replica, and in the
// cluster (the primary's log plus a copy received by each replica).
type ReplicaFigure struct {
	Variant    string  `json:"variant"`
	PerReplica Figure  `json:"per_replica_log_bytes"`
	Cluster    Figure  `json:"cluster_log_bytes"`
	LinkUsed   float64 `json:"link_used_percent,omitempty"`
	// MaxRate is the rate of the plan's operation at which one link is full.
	MaxRate float64 `json:"max_rate_per_second,omitempty"`
}

// AddReplicas projects the shipped log of each variant. Each replica of a
// physical (or binlog) stream receives the whole log of the server, not the
// workload's share only: the measured bytes sent per standby where the result
// has them, else the server's whole log of the window.
func (p *Plan) AddReplicas(res *result.Result, in Replication) error {
	n, counted := in.Replicas, "--replicas"
	if n == 0 {
		for _, r := range res.Runs {
			if m := r.Database["replicas"]; m.OK() && int(m.V()) > n {
				n, counted = int(m.V()), "the standbys connected in the measured window (pg_stat_replication)"
			}
		}
	}
	if n <= 0 {
		return fmt.Errorf("--network-ceiling needs --replicas N: the result measured no standby")
	}
	rp := &ReplicaPlan{Replicas: n, Counted: counted, LinkBytesPerSec: in.Link}
	measured := false
	for i := range res.Runs {
		r, vp := &res.Runs[i], p.Variants[i]
		perReplica := Figure{}
		if sent, k := r.Database["replicas_log_bytes_sent"], r.Database["replicas"]; sent.OK() && k.OK() && k.V() > 0 && vp.Measured > 0 {
			perReplica = figure(result.New(sent.V()/k.V(), sent.Exactness, sent.Source), float64(vp.Measured), vp.Scale)
			perReplica.Source = "measured: replicas_log_bytes_sent / replicas (" + sent.Source + ")"
			measured = true
		} else if vp.ClusterLog != nil && vp.ClusterLog.OK {
			perReplica = *vp.ClusterLog
			perReplica.Source = "the server's whole log (" + vp.ClusterLog.Source + "): each replica receives all of it"
		} else if vp.LogBytes.OK {
			perReplica = vp.LogBytes
			perReplica.Source = "the log of the window (" + vp.LogBytes.Source + "): each replica receives all of it"
		}
		f := ReplicaFigure{Variant: vp.Variant, PerReplica: perReplica}
		if perReplica.OK {
			own := vp.LogBytes
			if vp.ClusterLog != nil && vp.ClusterLog.OK {
				own = *vp.ClusterLog
			}
			f.Cluster = Figure{PerOp: own.PerOp + float64(n)*perReplica.PerOp, PerSecond: own.PerSecond + float64(n)*perReplica.PerSecond,
				Exactness: result.Weaker(own.Exactness, perReplica.Exactness), OK: true,
				Source: fmt.Sprintf("the primary's log + %d × the per-replica log", n)}
			if in.Link > 0 {
				f.LinkUsed = 100 * perReplica.PerSecond / in.Link
				if perReplica.PerOp > 0 {
					f.MaxRate = in.Link / perReplica.PerOp
				}
			}
		} else {
			f.Cluster = Figure{Source: "no log bytes in the result"}
		}
		rp.Variants = append(rp.Variants, f)
	}
	rp.Assumptions = append(rp.Assumptions, "each replica receives the primary's whole log stream (physical WAL or binlog), whatever its tables; a logical subscriber receives only its publication's changes and is not projected")
	if !measured {
		rp.Assumptions = append(rp.Assumptions, "the result measured no bytes sent to a standby: the shipped log is the measured log of the window")
	}
	if in.Link > 0 {
		rp.Assumptions = append(rp.Assumptions, fmt.Sprintf("--network-ceiling %s is the link to one replica; the log is its payload (the replication protocol adds a few percent)", in.LinkText))
	}
	p.Replication = rp
	return nil
}

// bitUnits are the network rates' units, decimal as link speeds are.
var bitUnits = map[string]float64{"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12, "bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9}

// ParseLinkRate reads --network-ceiling: a bit rate ("1Gbit/s", "10Gbps",
// "100 Mbit/s") or a byte rate as --ceiling takes it ("100MB/s"); bytes/s.
func ParseLinkRate(s string) (float64, error) {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	num := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if num > 0 {
		unit := strings.TrimSuffix(t[num:], "/s")
		if mult, ok := bitUnits[unit]; ok {
			v, err := strconv.ParseFloat(t[:num], 64)
			if err == nil && v > 0 {
				return v * mult / 8, nil
			}
		}
	}
	v, err := ParseByteRate(s)
	if err != nil {
		return 0, fmt.Errorf("--network-ceiling %q: expected a link speed such as 1Gbit/s, 10Gbps or 100MB/s", s)
	}
	return v, nil
}

// renderReplicas writes the plan's shipping section (table and markdown).
func renderReplicas(w io.Writer, md bool, p *Plan) {
	rp := p.Replication
	if rp == nil {
		return
	}
	one := singular(p.Variants[0].Op)
	head := fmt.Sprintf("log shipped to %d replicas (%s)", rp.Replicas, rp.Counted)
	if md {
		fmt.Fprintf(w, "\n#### %s\n\n| variant | per replica | per replica /s | cluster /s | cluster GB/day |%s\n|---|---|---|---|---|%s\n", head, mdLink(rp, " link used | link full at |"), mdLink(rp, "---|---|"))
	} else {
		fmt.Fprintf(w, "\n%s:\n", head)
	}
	for _, v := range rp.Variants {
		if !v.PerReplica.OK {
			fmt.Fprintf(w, "  %s: unavailable: %s\n", v.Variant, v.Cluster.Source)
			continue
		}
		per := fmt.Sprintf("%s per %s", result.FormatBytes(v.PerReplica.PerOp), one)
		rate := result.FormatBytes(v.PerReplica.PerSecond) + "/s"
		cl := result.FormatBytes(v.Cluster.PerSecond) + "/s"
		day := commasF(v.Cluster.PerSecond*Day/GB, 1)
		link := ""
		if rp.LinkBytesPerSec > 0 {
			link = fmt.Sprintf("%.1f%% of the link, full at %s %s/s", v.LinkUsed, commasF(v.MaxRate, 0), p.Variants[0].Op)
		}
		if md {
			l := ""
			if link != "" {
				l = fmt.Sprintf(" %.1f%% | %s %s/s |", v.LinkUsed, commasF(v.MaxRate, 0), p.Variants[0].Op)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |%s\n", v.Variant, per, rate, cl, day, l)
			continue
		}
		fmt.Fprintf(w, "  %s: each replica receives %s, %s (%s); the cluster writes %s (%s GB/day)", v.Variant, per, rate, v.PerReplica.Exactness, cl, day)
		if link != "" {
			fmt.Fprintf(w, "; %s", link)
		}
		fmt.Fprintln(w)
	}
	for _, a := range rp.Assumptions {
		fmt.Fprintf(w, "  - %s\n", a)
	}
}

func mdLink(rp *ReplicaPlan, s string) string {
	if rp.LinkBytesPerSec > 0 {
		return s
	}
	return ""
}
