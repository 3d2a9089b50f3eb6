// Package sqlserver is the SQL Server dialect (2016 through 2022, Azure SQL
// Database and Managed Instance): connection, probe and capability flags,
// privilege errors that name the GRANT, and the settle steps around a window.
package sqlserver
