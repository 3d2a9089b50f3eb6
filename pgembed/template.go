package pgembed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TemplateEnv names a directory where initdb's output is kept per server
// binary directory and copied for each new server instead of running
// initdb again. make test sets it: the suite starts about a hundred
// throwaway servers, and initdb was the larger part of each start; a copy
// takes a small fraction of its time. Unset (as for every user) each
// server gets its own initdb. Copies share initdb's
// system identifier, which is why this stays a test-suite setting.
const TemplateEnv = "WRITEAMP_PG_TEMPLATES"

var initdbArgs = []string{"-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"}

// initData creates dir/data: from the template cache when TemplateEnv is
// set, else with initdb.
func (s *Server) initData(ctx context.Context) error {
	data := filepath.Join(s.Dir, "data")
	cache := os.Getenv(TemplateEnv)
	if cache == "" {
		return s.initdb(ctx, data)
	}
	sum := sha256.Sum256([]byte(fmt.Sprint(s.Bin, initdbArgs)))
	tmpl := filepath.Join(cache, hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(tmpl, "PG_VERSION")); err != nil {
		if err := s.makeTemplate(ctx, cache, tmpl); err != nil {
			return err
		}
	}
	return s.copyTree(tmpl, data)
}

func (s *Server) initdb(ctx context.Context, data string) error {
	initdb := s.command(ctx, "initdb", append([]string{"-D", data}, initdbArgs...)...)
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb failed: %v\n%s", err, tail(string(out), 15)) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
	}
	// The database measured is one of its own, not postgres: writeamp's
	// wait sampler reads from postgres, so that its snapshots never hold
	// back pruning in the measured database (see pg_stat_activity.go).
	// Single-user mode creates it before the server first starts.
	single := s.command(ctx, "postgres", "--single", "-F", "-D", data, "postgres")
	single.Stdin = strings.NewReader("CREATE DATABASE " + Database + "\n")
	if out, err := single.CombinedOutput(); err != nil {
		return fmt.Errorf("create database %s: %v\n%s", Database, err, tail(string(out), 15)) //nolint:errorlint // an *exec.ExitError has ExitCode(), which main's exitCoder would take for writeamp's status
	}
	return nil
}

// Database is the database a throwaway server's DSN names.
const Database = "writeamp"

// makeTemplate runs initdb into a private directory and renames it into
// place, so concurrent starts never copy a half-written template (the
// loser of a race removes its own).
func (s *Server) makeTemplate(ctx context.Context, cache, tmpl string) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return fmt.Errorf("%s %s: %w", TemplateEnv, cache, err)
	}
	work, err := os.MkdirTemp(cache, "initdb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := s.cred.chown(work); err != nil {
		return err
	}
	if err := s.initdb(ctx, filepath.Join(work, "data")); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(work, "data"), tmpl); err != nil {
		if _, serr := os.Stat(filepath.Join(tmpl, "PG_VERSION")); serr == nil {
			return nil
		}
		return err
	}
	return nil
}

// copyTree copies a data directory, keeping modes (the server refuses a
// data directory others can read) and giving the server's user ownership.
func (s *Server) copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			if err := os.Mkdir(dst, info.Mode().Perm()); err != nil {
				return err
			}
			return s.cred.chown(dst)
		}
		if !info.Mode().IsRegular() {
			return nil // initdb makes no sockets or links
		}
		if err := copyFile(path, dst, info.Mode().Perm()); err != nil {
			return err
		}
		return s.cred.chown(dst)
	})
}

func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
