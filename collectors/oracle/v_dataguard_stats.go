package oracle

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/writeamp/writeamp/collectors"
	"github.com/writeamp/writeamp/dialects"
	ora "github.com/writeamp/writeamp/dialects/oracle"
	"github.com/writeamp/writeamp/queries"
	"github.com/writeamp/writeamp/result"
)

// VDataguardStats samples, on a physical standby, how far it is behind its
// primary while the window is open: 'apply lag' (the data the standby shows
// is that old) and 'transport lag' (the redo it has received is). No counter
// keeps a lag, and the standby computes them in whole seconds, so these are
// sampled percentiles (approx).
type VDataguardStats struct{}

// dgEvery is the sampling period: the standby recomputes the lags about once
// a second, so reading faster only repeats a value.
const dgEvery = time.Second

func (VDataguardStats) Name() string { return "v_dataguard_stats" }

// Supports is nil on a primary, where Start samples nothing (V$DATAGUARD_STATS
// has no rows there), as the other dialects' lag samplers do.
func (VDataguardStats) Supports(s dialects.Server) error { return unsupportedVersion(s) }

// lagSeries is one lag's samples and what says whether they are current.
type lagSeries struct {
	ms        []float64
	datums    map[string]bool
	unparsed  int
	unit      string
	maxAgeSec float64 // TIME_COMPUTED - DATUM_TIME, the most seen; -1 unknown
}

type dgSampling struct {
	poll *collectors.Poll
	// written by the poll's readings only, read once it has stopped
	lags map[string]*lagSeries
	n    int
	name string
}

func (VDataguardStats) Start(ctx context.Context, db *sql.DB, s dialects.Server, _ collectors.SampleTarget) (collectors.Sampling, error) {
	if !ora.IsStandby(s) {
		return collectors.NoSampling{}, nil
	}
	name := s.Prop(ora.PropDBUniqueName)
	if name == "" {
		name = s.Database
	}
	ds := &dgSampling{lags: map[string]*lagSeries{}, name: name}
	ds.poll = collectors.StartPoll(ctx, dgEvery, func(ctx context.Context) error { return ds.sample(ctx, db, s) })
	return ds, nil
}

func (ds *dgSampling) sample(ctx context.Context, db *sql.DB, s dialects.Server) error {
	rows, err := queries.Query(ctx, db, ora.Name, "v_dataguard_stats", s.VersionNum)
	if err != nil {
		return ora.AsPrivilegeError(err, s, "v_$dataguard_stats")
	}
	defer rows.Close()
	ds.n++
	for rows.Next() {
		var name, value, unit, computed, datum sql.NullString
		if err := rows.Scan(&name, &value, &unit, &computed, &datum); err != nil {
			return err
		}
		ls := ds.lags[name.String]
		if ls == nil {
			ls = &lagSeries{datums: map[string]bool{}, maxAgeSec: -1}
			ds.lags[name.String] = ls
		}
		ls.unit = unit.String
		d, ok := parseLag(value.String)
		if !ok {
			// NULL or '' until the standby has computed it; any other text
			// is no interval writeamp can read. Neither is a zero.
			ls.unparsed++
			continue
		}
		ls.ms = append(ls.ms, float64(d.Milliseconds()))
		ls.datums[datum.String] = true
		if age, ok := datumAge(computed.String, datum.String); ok && age > ls.maxAgeSec {
			ls.maxAgeSec = age
		}
	}
	return rows.Err()
}

func (ds *dgSampling) Stop() ([]collectors.Counter, error) {
	if err := ds.poll.Stop(); err != nil {
		return nil, err
	}
	src := fmt.Sprintf("sampled every %s, %d samples", dgEvery, ds.n)
	var out []collectors.Counter
	var why []string
	emit := func(name string, v float64, what string, ls *lagSeries) {
		c := collectors.Counter{Key: collectors.NewKey(collectors.DB, "", result.Family(name)), Value: v, Exactness: result.Approx, Interval: true,
			Source: what + " (" + src + ", UNIT '" + ls.unit + "')"}
		if ls.maxAgeSec > 0 {
			c.Note = fmt.Sprintf("the datum a lag was computed from was up to %.0f s old when computed (TIME_COMPUTED - DATUM_TIME)", ls.maxAgeSec)
		}
		out = append(out, c)
	}
	for _, name := range []string{"apply lag", "transport lag"} {
		ls := ds.lags[name]
		switch {
		case ls == nil || len(ls.ms) == 0:
			why = append(why, fmt.Sprintf("V$DATAGUARD_STATS showed no '%s' value in %d samples", name, ds.n))
			continue
		case len(ls.ms) > 1 && len(ls.datums) == 1:
			// Documented: an unchanging DATUM_TIME means the standby
			// received nothing from the primary, so the lag is not current.
			why = append(why, fmt.Sprintf("'%s' was computed from one DATUM_TIME in all %d samples: the standby received no data from the primary while sampled, so the value is not current", name, len(ls.ms)))
			continue
		}
		const what = "V$DATAGUARD_STATS '%s' (to the precision UNIT gives)"
		if name == "apply lag" {
			emit(result.ReplayLagMsP50.Name, collectors.NearestRank(ls.ms, 0.5), fmt.Sprintf(what, name), ls)
			emit(result.ReplayLagMsP95.Name, collectors.NearestRank(ls.ms, 0.95), fmt.Sprintf(what, name), ls)
			emit(result.ReplayLagMsMax.Name, collectors.NearestRank(ls.ms, 1), fmt.Sprintf(what, name), ls)
			continue
		}
		p := result.ReplicaPrefix + ds.name + "."
		emit(p+"transport_lag_ms_p95", collectors.NearestRank(ls.ms, 0.95), fmt.Sprintf(what, name), ls)
		emit(p+"transport_lag_ms_max", collectors.NearestRank(ls.ms, 1), fmt.Sprintf(what, name), ls)
	}
	if len(out) == 0 {
		return nil, &dialects.Unavailable{Reason: dialects.Reason{Kind: dialects.Unreadable, Text: strings.Join(why, "; ")},
			Lacks: []string{result.ReplayLagMsP50.Name, result.ReplayLagMsP95.Name, result.ReplayLagMsMax.Name}}
	}
	// A sampler has no "unavailable" of its own: the lag it could not read
	// is said on the ones it did.
	for i := range out {
		out[i].Note = joinNotes(out[i].Note, strings.Join(why, "; "))
	}
	return out, nil
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// lagValue is V$DATAGUARD_STATS's VALUE as it prints an INTERVAL DAY TO
// SECOND: '+DD HH:MI:SS', with fractional seconds when UNIT has them.
var lagValue = regexp.MustCompile(`^\+?(\d+) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$`)

// parseLag reads a lag; false for NULL, the empty string and anything not an interval
// (a negative one included: a lag never is).
func parseLag(v string) (time.Duration, bool) {
	m := lagValue.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return 0, false
	}
	days, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi(m[3])
	sec, _ := strconv.Atoi(m[4])
	if h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	d := time.Duration(days)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second
	if frac := m[5]; frac != "" {
		ns, _ := strconv.Atoi((frac + "00000000")[:9])
		d += time.Duration(ns)
	}
	return d, true
}

// stampLayouts are the forms TIME_COMPUTED and DATUM_TIME take. The reference
// gives them only as VARCHAR2(30) local times; servers print the first.
var stampLayouts = []string{"01/02/2006 15:04:05", "2006-01-02 15:04:05"}

// datumAge is TIME_COMPUTED - DATUM_TIME in seconds, false when either is
// not a time writeamp can read (the staleness test does not need it: it
// compares DATUM_TIME's text across samples).
func datumAge(computed, datum string) (float64, bool) {
	parse := func(v string) (time.Time, bool) {
		for _, l := range stampLayouts {
			if t, err := time.Parse(l, strings.TrimSpace(v)); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	c, ok1 := parse(computed)
	d, ok2 := parse(datum)
	if !ok1 || !ok2 {
		return 0, false
	}
	return c.Sub(d).Seconds(), true
}
