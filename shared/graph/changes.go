package graph

import (
	"context"
	"time"
)

// The change feed orders every node and edge by (updated_at, key), where the
// key is NodeChangeKey or EdgeChangeKey. A ChangeCursor is a position in that
// order: "everything up to and including this item has been seen". Because
// every write sets updated_at (graph/write), re-reading from a cursor yields
// exactly what changed since, and an item written again moves to the end.

// ChangeCursor is a position in the change order. The zero cursor is before
// everything (a snapshot).
type ChangeCursor struct {
	UpdatedAt int64  // epoch milliseconds, as stored
	Key       string // NodeChangeKey or EdgeChangeKey
}

// IsZero reports whether c is the start of the order.
func (c ChangeCursor) IsZero() bool { return c.UpdatedAt == 0 && c.Key == "" }

// Before reports whether the item at (updatedAt, key) comes after c, that is
// whether a reader positioned at c has not seen it yet.
func (c ChangeCursor) Before(updatedAt int64, key string) bool {
	return updatedAt > c.UpdatedAt || (updatedAt == c.UpdatedAt && key > c.Key)
}

// NodeChangeKey is the order key of a node.
func NodeChangeKey(id string) string { return "n:" + id }

// EdgeChangeKey is the order key of an edge (also its identity: at most one
// edge of a type links two nodes, since writes MERGE).
func EdgeChangeKey(fromID, typ, toID string) string { return "e:" + fromID + "|" + typ + "|" + toID }

// Edge is a relationship as read back for the change feed.
type Edge struct {
	FromID     string         `json:"from"`
	Type       string         `json:"type"`
	ToID       string         `json:"to"`
	Properties map[string]any `json:"properties,omitempty"`
	UpdatedAt  time.Time      `json:"updatedAt"`
}

// Change is one changed node or edge (exactly one of Node and Edge is set).
type Change struct {
	Cursor ChangeCursor // the item's own position; resuming from it skips the item
	// CreatedAt is the item's created_at (epoch ms; 0 when unknown), so a
	// feed can tell additions from updates.
	CreatedAt int64
	Node      *Node
	Edge      *Edge
}

// ChangeQuery selects changes after a cursor.
type ChangeQuery struct {
	After ChangeCursor
	// Until, when not 0, leaves out changes with updated_at after it (epoch
	// ms), so a feed can wait for slower concurrent writes to commit before
	// moving its cursor past their timestamps.
	Until int64
	// Jurisdictions keeps nodes whose jurisdiction is one of these (empty:
	// all). Labels keeps nodes carrying one of these labels (empty: all
	// whitelisted labels). An edge is kept when both its ends are.
	Jurisdictions []string
	Labels        []string
	// Limit bounds the result (required, > 0).
	Limit int
}

// ChangeReader reads the graph's changes in cursor order: at most q.Limit
// nodes and edges, the earliest after q.After.
type ChangeReader interface {
	Changes(ctx context.Context, q ChangeQuery) ([]Change, error)
}
