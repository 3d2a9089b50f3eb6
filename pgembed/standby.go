package pgembed

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// StartStandby makes a physical standby of s for tests of replication: it
// stops s (a clean shutdown leaves a consistent data directory), copies
// its data directory, marks the copy a standby (standby.signal) streaming
// from s under the application_name name, and starts both again. No
// pg_basebackup: the copy of a stopped cluster is the base backup. The
// standby's Stop removes its copy.
func (s *Server) StartStandby(ctx context.Context, name string) (_ *Server, err error) {
	dir, err := os.MkdirTemp("", "writeamp-pg-standby-")
	if err != nil {
		return nil, err
	}
	st := &Server{Dir: dir, Bin: s.Bin, cred: s.cred}
	defer func() {
		if err != nil {
			st.Stop()
		}
	}()
	if err := st.cred.chown(dir); err != nil {
		return nil, err
	}
	if st.Port, err = freePort(); err != nil {
		return nil, err
	}
	if err := s.shutdown(); err != nil {
		return nil, err
	}
	copyErr := copyTree(filepath.Join(s.Dir, "data"), filepath.Join(dir, "data"), st.cred)
	// The primary comes back whether or not the copy worked.
	if err := s.relaunch(ctx); err != nil {
		return nil, fmt.Errorf("restart the primary: %w", err)
	}
	if copyErr != nil {
		return nil, fmt.Errorf("copy the primary's data directory: %w", copyErr)
	}
	data := filepath.Join(dir, "data")
	os.Remove(filepath.Join(data, "postmaster.pid"))
	if err := writeOwned(filepath.Join(data, "standby.signal"), "", st.cred); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("\nprimary_conninfo = 'host=%s port=%d user=postgres application_name=%s'\nhot_standby = on\n", s.Dir, s.Port, name)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	_, werr := f.WriteString(conf)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, werr
	}
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	_ = st.cred.chown(logf.Name())
	if err := st.launch(ctx, logf); err != nil {
		return nil, err
	}
	return st, nil
}

// relaunch starts s again on its data directory, appending to its log.
func (s *Server) relaunch(ctx context.Context) error {
	logf, err := os.OpenFile(filepath.Join(s.Dir, "server.log"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer logf.Close()
	return s.launch(ctx, logf)
}

func writeOwned(path, text string, o *owner) error {
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return err
	}
	return o.chown(path)
}

// copyTree copies a data directory, modes kept and every entry owned by o.
func copyTree(from, to string, o *owner) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(dst, info.Mode().Perm()); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
			if err != nil {
				in.Close()
				return err
			}
			_, err = io.Copy(out, in)
			in.Close()
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return nil // no sockets or links in a data directory initdb made
		}
		return o.chown(dst)
	})
}
