package conversation

import (
	"context"
	"errors"
)

// A conversation belongs to the user who started it. Store calls run on
// behalf of that user: the caller puts the user's id in the context with
// WithOwner, and every store method touches only conversations of that
// owner (and tenant). Another user's conversation is ErrNotFound, exactly
// like a missing one. Tenant-wide sharing, if it is ever wanted, is an
// explicit share, never a default.

type ownerKey struct{}

// ErrNoOwner is returned by a store call whose context names no owner.
var ErrNoOwner = errors.New("conversation store: the context names no owner")

// WithOwner returns ctx carrying the id of the user the store calls act for.
func WithOwner(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, ownerKey{}, userID)
}

// OwnerOf returns the user id WithOwner put in ctx, or ErrNoOwner.
func OwnerOf(ctx context.Context) (string, error) {
	owner, _ := ctx.Value(ownerKey{}).(string)
	if owner == "" {
		return "", ErrNoOwner
	}
	return owner, nil
}
