package mocksql

import (
	"database/sql"
	"database/sql/driver"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"

	"github.com/writeamp/writeamp/queries"
)

// New returns a mock database and its expectations.
func New(t testing.TB) (*sql.DB, sqlmock.Sqlmock) {
	t.Helper()
	return open(t, nil)
}

// WithConverter is New for arguments sqlmock's default converter refuses
// (pgx's arrays).
func WithConverter(t testing.TB, c driver.ValueConverter) (*sql.DB, sqlmock.Sqlmock) {
	t.Helper()
	return open(t, c)
}

func open(t testing.TB, c driver.ValueConverter) (*sql.DB, sqlmock.Sqlmock) {
	t.Helper()
	exact := sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual)
	var (
		db   *sql.DB
		mock sqlmock.Sqlmock
		err  error
	)
	if c == nil {
		db, mock, err = sqlmock.New(exact)
	} else {
		db, mock, err = sqlmock.New(exact, sqlmock.ValueConverterOption(c))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return db, mock
}

// SQL is the text of the named block for the version, what a test expects
// the code to send; a block missing for it fails the test.
func SQL(t testing.TB, dialect, name string, version int) string {
	t.Helper()
	text, err := queries.Get(dialect, name, version)
	if err != nil {
		t.Fatal(err)
	}
	return text
}
