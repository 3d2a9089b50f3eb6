package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writeamp/writeamp/collectors"
	pg "github.com/writeamp/writeamp/dialects/postgres"
	"github.com/writeamp/writeamp/internal/testing/testenv"
)

// pg_wait_sampling preloaded but created only in the measured database (the
// usual CREATE EXTENSION, run where the application lives): the sampler
// reads from postgres, where its view does not exist, so the shares are
// pg_stat_activity's, and every one of them must say why and how to make
// the profile the source, not fall back silently.
func TestWaitSamplingCreatedOnlyInTheMeasuredDatabase(t *testing.T) {
	t.Parallel()
	testenv.Heavy(t, "starts a PostgreSQL server of its own")
	admin, db := startWithWaitSampling(t)
	ctx := context.Background()
	if _, err := admin.Exec(`DROP EXTENSION pg_wait_sampling`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE EXTENSION pg_wait_sampling`); err != nil {
		t.Fatal(err)
	}
	s, err := pg.Dialect{}.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	sm := PgStatActivity{}
	side, note, err := sm.OpenSampler(ctx, db, s)
	if err != nil || side == nil {
		t.Fatal(err, note)
	}
	defer side.Close()
	sampling, err := sm.Start(ctx, side, s, collectors.SampleTarget{})
	if err != nil {
		t.Fatal(err)
	}
	// Something active to sample: a session of the measured database.
	if _, err := db.Exec(`SELECT pg_sleep(0.3)`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	cs, err := sampling.Stop()
	if err != nil || len(cs) == 0 {
		t.Fatalf("sampling: %v %v", cs, err)
	}
	for _, c := range cs {
		t.Logf("%s = %.3f (%s; %s)", c.Metric, c.Value, c.Source, c.Note)
		if strings.HasPrefix(c.Source, "pg_wait_sampling") || !strings.Contains(c.Note, "loaded (shared_preload_libraries) but not created in postgres") ||
			!strings.Contains(c.Note, "not the measured work") {
			t.Errorf("%s: source %q, note %q: the fallback does not say the profile was there but unreadable", c.Metric, c.Source, c.Note)
		}
	}
}
