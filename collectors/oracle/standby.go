package oracle

import (
	"sort"

	"github.com/writeamp/writeamp/collectors"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/result"
)

// DeriveStandby replaces, on a physical standby, the counters the diff read
// from V$SEGMENT_STATISTICS and V$SYSSTAT with "unavailable" (never a false
// zero): Redo Apply changes the standby's blocks by media recovery, which no
// documented statistic of either view counts, so what they show is the
// standby's own small work, not the window's writes. The standby's log_bytes
// is the redo it applied, as on a PostgreSQL standby. The reason is the
// probe's typed one (ora.CapWriteCounters, kind Role), and each view is
// listed missing with that kind and the metrics it lacks, so code asks by
// value rather than by the words. It runs first, so no deriver computes
// from the zeros.
func DeriveStandby(d *collectors.Delta) {
	if !ora.IsStandby(d.Server) {
		return
	}
	r := d.Server.Reason(ora.CapWriteCounters)
	why := "unavailable: " + r.Text
	seg := segmentMetricList()
	var segLacks []string
	for _, m := range seg {
		segLacks = append(segLacks, m.Name)
	}
	d.Unavailable(collectors.Table, seg, "V$SEGMENT_STATISTICS on a physical standby", why)
	d.Unavailable(collectors.Index, seg, "V$SEGMENT_STATISTICS on a physical standby", why)
	var sysLacks []string
	for _, m := range sysstatMetricList() {
		if m != result.LogBytes {
			sysLacks = append(sysLacks, m.Name)
			d.Values[collectors.NewKey(collectors.DB, "", m)] = result.NA("V$SYSSTAT on a physical standby", why)
		}
	}
	lb := collectors.NewKey(collectors.DB, "", result.LogBytes)
	if applied := d.Get(collectors.NewKey(collectors.DB, "", result.ReplayedLogBytes)); applied.OK() {
		d.Values[lb] = applied
	} else {
		d.Values[lb] = result.NA("V$RECOVERY_PROGRESS 'Redo Applied'", "unavailable: the redo this standby applied was not read ("+applied.Note+"); V$SYSSTAT 'redo size' there is not the window's")
	}
	d.Missing = append(d.Missing,
		collectors.Missing{Collector: VSegmentStatistics{}.Name(), Reason: r.Text, Fix: r.FixLine(), Kind: string(r.Kind), Lacks: segLacks},
		collectors.Missing{Collector: VSysstat{}.Name(), Reason: r.Text, Fix: r.FixLine(), Kind: string(r.Kind), Lacks: sysLacks})
}

// segmentMetricList and sysstatMetricList are the metrics the two views give,
// in name order, so the missing lists read the same every run.
func segmentMetricList() []*result.Info {
	var out []*result.Info
	for _, m := range segmentMetrics {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func sysstatMetricList() []*result.Info {
	var out []*result.Info
	for _, st := range sysstats {
		out = append(out, st.metric)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
