// Package postgres holds the PostgreSQL collectors, one file per source view.
package postgres
