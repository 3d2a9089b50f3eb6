package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/collectors"
	my "github.com/writeamp/writeamp/dialects/mysql"
	"github.com/writeamp/writeamp/measure"
)

// nodeFlag is measure's --node: other copies of the database measured in
// the same window.
func nodeFlag(f *pflag.FlagSet, v *[]string) {
	f.StringArrayVar(v, "node", nil, "another node (standby, replica, peer) to measure in the same window; repeatable")
}

// checkNodes refuses an empty --node before anything connects.
func checkNodes(dsns []string) error {
	for _, d := range dsns {
		if d == "" {
			return usagef("--node: empty connection string (give the node's URL, e.g. --node postgres://user@standby:5432/db)")
		}
	}
	return nil
}

// openNodes connects to each --node and makes its window, with the same
// scope flags as --dsn's. close closes what was opened, also on error.
func openNodes(ctx context.Context, dsns, schemas, tables []string, waits bool, log io.Writer) ([]*measure.Node, func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	var nodes []*measure.Node
	for i, dsn := range dsns {
		t, err := connect(ctx, nodeSource(dsn), embedOpts{Allow: false}, log)
		if err != nil {
			return nil, closeAll, fmt.Errorf("--node %d: %w", i+1, err)
		}
		closers = append(closers, t.Close)
		sc, err := resolveScope(ctx, t, measure.DefaultScope(t.Server, collectors.Scope{Schemas: schemas, Tables: tables}))
		if err != nil {
			return nil, closeAll, fmt.Errorf("--node %d: %w", i+1, err)
		}
		win, err := t.measuredWindow(log, waits)
		if err != nil {
			return nil, closeAll, err
		}
		label := fmt.Sprintf("node%d", i+1)
		fmt.Fprintf(log, "also measuring %s: %s (%s)\n", label, t.Server, t.Where)
		nodes = append(nodes, &measure.Node{Label: label, Window: win, Scope: sc})
	}
	return nodes, closeAll, nil
}

// refuseReplica stops run on a MySQL/MariaDB replica before anything is
// written: the workload's tables would exist on the replica and not on its
// primary (a later statement from the primary could then fail there and
// stop replication). A PostgreSQL standby refuses writes by itself.
func refuseReplica(t *target) error {
	if !t.Server.Has(my.CapReplica) {
		return nil
	}
	return usagef("--dsn is a replica (of %s): run writes its workload's tables, which would diverge it from its primary; run on the primary and measure this replica in the same window with --node", t.Server.Prop(my.PropReplicaOf))
}
