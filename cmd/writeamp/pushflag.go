package main

import (
	dto "github.com/prometheus/client_model/go"
	"github.com/spf13/cobra"

	"github.com/writeamp/writeamp/reports"
)

// pushValue is --push: checked while the flags are parsed, so a URL that
// is not a Pushgateway's is refused before anything is measured.
type pushValue struct{ value *string }

func (p pushValue) Set(s string) error {
	if _, err := reports.PushURL(s); err != nil {
		return err
	}
	*p.value = s
	return nil
}

func (p pushValue) String() string { return *p.value }
func (p pushValue) Type() string   { return "url" }

const pushUsage = "also push the metrics to this Pushgateway (job writeamp, or a group URL)"

// pushFlag registers --push on a command whose result has metrics.
func pushFlag(cmd *cobra.Command) {
	pushVar(cmd, new(string))
}

func pushVar(cmd *cobra.Command, p *string) {
	cmd.Flags().Var(pushValue{p}, "push", pushUsage)
}

// pushResult sends the families to --push when it was given. A push that
// fails is an error of the command: CI that asked for the metrics must
// learn they were not stored.
func pushResult(cmd *cobra.Command, fams func() []*dto.MetricFamily) error {
	f := cmd.Flags().Lookup("push")
	if f == nil || f.Value.String() == "" {
		return nil
	}
	return reports.Push(cmd.Context(), f.Value.String(), fams())
}
