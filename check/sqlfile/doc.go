// Package sqlfile reads the SQL files a check is given (--schema,
// --migration, --down): File, the loaders that take files and directories
// in the order a migration tool would run them, and Split, which reads
// their statements once the server's dialect is known. Apart from check so
// that the restore (package check/restore) can hold and count the files it
// undoes without importing what measures them.
package sqlfile
