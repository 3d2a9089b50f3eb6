package safeio

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MaxInput is the largest input file read: a result of 10,000 indexes and
// four variants is a few MiB, so this only stops a mistake (a disk image, a
// log) from filling memory.
const MaxInput = 256 << 20

// kind names a file type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// ReadFile reads a whole input file. It refuses anything that is not a
// regular file (FIFOs, devices, sockets never end or block) and files over
// limit bytes; the error names the file and says why.
func ReadFile(path string, limit int64) ([]byte, error) {
	r, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Open is ReadFile for a reader that streams the file (a snapshot of many
// indexes, read whole, was held twice, as bytes and as parsed).
// Reading past limit is an error naming the file.
func Open(path string, limit int64) (io.ReadCloser, error) {
	// O_NONBLOCK: opening a FIFO without a writer would block in open(2).
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file", path)
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s: writeamp reads input only from regular files (save it to a file first)", path, kind(st.Mode()))
	}
	if st.Size() > limit {
		f.Close()
		return nil, fmt.Errorf("%s is %d bytes, over the %d MiB input limit: not a writeamp file", path, st.Size(), limit>>20)
	}
	return &limited{f: f, path: path, limit: limit, left: limit}, nil
}

// limited reads a file up to a limit, then fails naming it.
type limited struct {
	f           *os.File
	path        string
	limit, left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.f.Read(p)
	if l.left -= int64(n); l.left < 0 {
		return 0, fmt.Errorf("%s grew past the %d MiB input limit while being read: not a writeamp file", l.path, l.limit>>20)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s: %w", l.path, err)
	}
	return n, err
}

func (l *limited) Close() error { return l.f.Close() }

// resolve follows symlinks to what the path finally names; a dangling link
// resolves to the file it would create. fi is nil when that does not exist.
func resolve(path string) (string, fs.FileInfo, error) {
	p := path
	for range 40 {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, fi, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return "", nil, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// Target is where the user asked for output.
type Target struct {
	// Flag names the option or variable that gave the path, for errors
	// ("--junit", "GITHUB_STEP_SUMMARY").
	Flag string
	// Path is the file; "" and "-" are stdout.
	Path string
	// Append adds to the end of the file (created when missing) instead of
	// replacing it: for files other steps write to as well, such as
	// GitHub's step summary.
	Append bool
}

// Write writes data to the target: stdout (nil: os.Stdout) for "" and "-",
// else the file, replaced as writeFile says or appended to.
func Write(stdout io.Writer, t Target, data []byte) error {
	return Stream(stdout, t, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// Stream is Write for output too large to hold twice (the JSON of a diff of
// many indexes): fill writes it, to stdout or straight into the
// temporary file that replaces the target. A file fill fails on is left as
// it was. Stdout gets what fill wrote before it failed, as from any
// program; a FIFO, a device, a file appended to or one rewritten in place
// get nothing (what fill writes is collected first there: half a report
// cannot be taken back from them).
func Stream(stdout io.Writer, t Target, fill func(io.Writer) error) error {
	if t.Path == "" || t.Path == "-" {
		if stdout == nil {
			stdout = os.Stdout
		}
		bw := bufio.NewWriterSize(stdout, 64<<10)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	// fill's own error is the caller's, not the target's: not prefixed.
	var fillErr error
	inner := fill
	fill = func(w io.Writer) error { fillErr = inner(w); return fillErr }
	var err error
	if t.Append {
		var data []byte
		if data, err = collect(fill); err == nil {
			err = appendFile(t.Path, data)
		}
	} else {
		err = writeFile(t.Path, fill)
	}
	if err != nil && !errors.Is(err, fillErr) {
		return fmt.Errorf("%s: %w", t.Flag, err)
	}
	return err
}

func collect(fill func(io.Writer) error) ([]byte, error) {
	var b bytes.Buffer
	err := fill(&b)
	return b.Bytes(), err
}

// writeFile writes data to path as a report should be:
//   - a symlink is followed and its target written, the link stays;
//   - a FIFO, device or socket is written through (a FIFO needs its reader
//     first: writeamp does not wait for one), never replaced by a file;
//   - a regular file is replaced whole, through a temporary file in the same
//     directory and a rename, keeping its permission bits (and, as root, its
//     owner), so a failure never leaves half a report;
//   - a new file gets 0666 less the umask (0644 usually): a report is not a
//     secret.
//
// When the directory is not writable but an existing file is, the file is
// overwritten in place (not atomic: the only way to write it at all).
func writeFile(path string, fill func(io.Writer) error) error {
	target, fi, err := resolve(path)
	if err != nil {
		return err
	}
	if fi != nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory: name a file", path)
		}
		data, err := collect(fill)
		if err != nil {
			return err
		}
		return writeThrough(path, target, fi, data)
	}
	tmp, err := createTemp(target)
	if err != nil {
		if fi != nil && errors.Is(err, fs.ErrPermission) {
			data, err := collect(fill)
			if err != nil {
				return err
			}
			return writeInPlace(path, target, data)
		}
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if fi != nil {
		if err := tmp.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
			return err
		}
		keepOwner(tmp, fi) // best effort: keep root from taking the file over
	}
	bw := bufio.NewWriterSize(tmp, 64<<10)
	if err := fill(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	ok = true
	return nil
}

// createTemp makes the temporary file next to target. O_EXCL with 0666 lets
// the kernel apply the umask, as for any file a command creates (CreateTemp
// would make it 0600).
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	for range 10 {
		b := make([]byte, 6)
		rand.Read(b)
		name := filepath.Join(dir, "."+base+".writeamp-"+hex.EncodeToString(b))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file next to it", target)
}

func writeThrough(path, target string, fi fs.FileInfo, data []byte) error {
	flags := os.O_WRONLY
	if fi.Mode()&fs.ModeNamedPipe != 0 {
		flags |= oNonblock // no reader: ENXIO at once instead of blocking in open(2)
	}
	f, err := os.OpenFile(target, flags, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return fmt.Errorf("%s is a FIFO that nobody is reading: start the reader first", path)
		}
		return fmt.Errorf("%s is %s and cannot be written: %w", path, kind(fi.Mode()), err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeInPlace(path, target string, data []byte) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// appendFile adds data to the end of a file (created 0666 less the umask
// when missing), following symlinks; a FIFO without a reader is an error at
// once rather than a hang in open(2).
func appendFile(path string, data []byte) error {
	flags := os.O_APPEND | os.O_CREATE | os.O_WRONLY
	if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		flags |= oNonblock
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return fmt.Errorf("%s is a FIFO that nobody is reading", path)
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
