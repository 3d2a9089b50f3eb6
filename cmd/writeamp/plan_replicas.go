package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/writeamp/writeamp/capacity"
	"github.com/writeamp/writeamp/result"
)

// replicasFlags are plan's --replicas and --network-ceiling.
func replicasFlags(f *pflag.FlagSet, n *int, link *string) {
	f.IntVar(n, "replicas", 0, "replicas receiving the log (default: the standbys the result measured)")
	f.StringVar(link, "network-ceiling", "", "network link to each replica, e.g. 1Gbit/s or 100MB/s: the share log uses")
}

// addReplicas adds the shipping section when asked (--replicas,
// --network-ceiling) or when the result measured standbys.
func addReplicas(cmd *cobra.Command, p *capacity.Plan, res *result.Result, n int, link string) error {
	if n < 0 {
		return usagef("--replicas must be positive (got %d)", n)
	}
	in := capacity.Replication{Replicas: n, LinkText: link}
	if link != "" {
		v, err := capacity.ParseLinkRate(link)
		if err != nil {
			return usageError{err}
		}
		in.Link = v
	}
	measured := false
	for _, r := range res.Runs {
		if m := r.Database["replicas"]; m.OK() && m.V() > 0 {
			measured = true
		}
	}
	if n == 0 && link == "" && !measured {
		return nil
	}
	if err := p.AddReplicas(res, in); err != nil {
		return usageError{err}
	}
	return nil
}
