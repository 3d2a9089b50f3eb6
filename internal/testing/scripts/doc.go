// Package scripts holds the tests of the shell scripts in scripts/.
package scripts
