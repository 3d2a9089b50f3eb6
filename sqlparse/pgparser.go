package sqlparse

import (
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	pgquery "github.com/wasilibs/go-pgquery"
)

// pgMu makes every call into libpg_query take turns. go-pgquery gives each
// concurrent caller a WebAssembly instance of its own, and each new instance
// compiles the module again in a runtime of its own: seconds of CPU (several
// times that under -race), where a parse itself takes microseconds. Taking
// turns keeps one instance per process, compiled once.
var pgMu sync.Mutex

func pgParse(text string) (*pg.ParseResult, error) {
	pgMu.Lock()
	defer pgMu.Unlock()
	return pgquery.Parse(text)
}

func pgDeparse(tree *pg.ParseResult) (string, error) {
	pgMu.Lock()
	defer pgMu.Unlock()
	return pgquery.Deparse(tree)
}
