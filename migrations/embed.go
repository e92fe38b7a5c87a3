// Package migrations holds the Postgres schema as goose SQL migrations,
// embedded so every binary that applies them (make dev, the migrate
// function) carries the exact files it was built with.
package migrations

import "embed"

// FS holds the migration files, named NNNNN_description.sql.
//
//go:embed *.sql
var FS embed.FS
