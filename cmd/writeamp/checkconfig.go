package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/writeamp/writeamp/check"
	"github.com/writeamp/writeamp/check/sqlfile"
	"github.com/writeamp/writeamp/config"
	"github.com/writeamp/writeamp/dialects"
)

// checkConfig is what --config and --print-config add to check.
type checkConfig struct {
	path    string // --config; else found from the working directory up
	print   bool
	dsnFrom string // where the config's DSN came from
}

func (c *checkConfig) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.path, "config", "", "config file (default: writeamp.yaml or .writeamp.yaml, looked for upwards)")
	cmd.Flags().BoolVar(&c.print, "print-config", false, "print the settings check would use (config merged with flags) and exit")
}

// apply merges the config file into what the flags left unset: flags
// always win. It returns the file used ("" for none).
func (c *checkConfig) apply(cmd *cobra.Command, req *check.Request, dsn *string) (string, error) {
	path := c.path
	if path == "" {
		found, err := config.Find(".")
		if err != nil {
			return "", err
		}
		path = found
	}
	if path == "" {
		return "", nil
	}
	f, err := config.Load(path)
	if err != nil {
		return "", err
	}
	set := cmd.Flags().Changed
	if !set("dsn") && f.DSNEnv != "" {
		if *dsn = os.Getenv(f.DSNEnv); *dsn == "" {
			return "", fmt.Errorf("%s: dsn_env %s is not set in the environment (export it, or give --dsn)", path, f.DSNEnv)
		}
		c.dsnFrom = "$" + f.DSNEnv + " (dsn_env)"
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, f.Rel(p))
		}
		return out
	}
	if !set("migration") && len(f.Migration) > 0 {
		req.Migrations = rel(f.Migration)
	}
	if !set("schema") && len(f.Schema) > 0 {
		req.Schemas = rel(f.Schema)
	}
	if !set("repeat") && f.Repeat > 0 {
		req.Repeat = f.Repeat
	}
	if req.Command == nil && f.Workload != "" {
		req.Command = []string{"bash", "-c", f.Workload}
	}
	if !set("budget") {
		// Globs match files: a directory stands for its *.sql files.
		var names []string
		files, _ := sqlfile.Load("--migration", req.Migrations) // an error is reported by Gate, naming the flag
		for _, mf := range files {
			names = append(names, mf.Path)
		}
		enforced, advisory := f.BudgetsFor(names)
		req.Budgets, req.Advisory = append(enforced, advisory...), advisory
	}
	for _, a := range f.Allow {
		glob := a.Path
		if filepath.Base(glob) != glob || filepath.IsAbs(glob) {
			glob = f.Rel(glob)
		}
		req.Allow = append(req.Allow, check.Suppression{Rule: a.Rule, Reason: a.Reason, Path: glob, Line: a.Line})
	}
	return path, nil
}

// printed is --print-config's document: the merged settings, the DSN only
// as where it comes from (a URL may hold a password), the workload command
// with its secrets masked.
type printed struct {
	Config    string         `yaml:"config"`
	DSN       string         `yaml:"dsn"`
	Migration []string       `yaml:"migration"`
	Schema    []string       `yaml:"schema,omitempty"`
	Workload  []string       `yaml:"workload,omitempty"`
	Repeat    int            `yaml:"repeat"`
	Budgets   []printedB     `yaml:"budgets"`
	Allow     []printedAllow `yaml:"allow,omitempty"`
}

type printedB struct {
	Budget   string `yaml:"budget"`
	Advisory bool   `yaml:"advisory"`
}

type printedAllow struct {
	Rule   string `yaml:"rule"`
	Path   string `yaml:"path"`
	Reason string `yaml:"reason"`
}

func printConfig(w io.Writer, file string, req check.Request, dsnFrom string) error {
	// The workload command is printed as every report records it: its
	// passwords, tokens and URLs' user info masked (the Action echoes this
	// to the job's log).
	p := printed{Config: file, DSN: dsnFrom, Migration: req.Migrations, Schema: req.Schemas, Workload: dialects.RedactArgv(req.Command), Repeat: req.Repeat}
	if len(req.Command) == 0 {
		p.Workload = nil
	}
	if p.Config == "" {
		p.Config = "(none)"
	}
	adv := map[string]bool{}
	for _, b := range req.Advisory {
		adv[b] = true
	}
	for _, b := range req.Budgets {
		p.Budgets = append(p.Budgets, printedB{Budget: b, Advisory: adv[b]})
	}
	for _, a := range req.Allow {
		p.Allow = append(p.Allow, printedAllow{Rule: a.Rule, Path: a.Path, Reason: a.Reason})
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return err
	}
	return enc.Close()
}

// dsnOrigin says where the DSN comes from, never what it is.
func (c *checkConfig) dsnOrigin(cmd *cobra.Command) string {
	switch {
	case cmd.Flags().Changed("dsn"):
		return "--dsn (given on the command line)"
	case c.dsnFrom != "":
		return c.dsnFrom
	}
	return "WRITEAMP_DSN, DATABASE_URL or PG* variables, else a throwaway local PostgreSQL"
}
