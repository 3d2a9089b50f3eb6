// Package sqlserver holds the SQL Server collectors, one file per source view.
package sqlserver
