package bolt

import (
	"context"
	"errors"
)

// withContextErr keeps a dead caller context visible to errors.Is. The
// driver reports an expired deadline (and a cancel mid-write) as its own
// connectivity or connection-cancelled error, which does not unwrap to the
// context's error; the driver's error is kept, the context's is added.
func withContextErr(ctx context.Context, err error) error {
	ctxErr := ctx.Err()
	if err == nil || ctxErr == nil || errors.Is(err, ctxErr) {
		return err
	}
	return &contextError{driver: err, ctx: ctxErr}
}

// contextError reads as the driver's error and is also the context's.
type contextError struct{ driver, ctx error }

func (e *contextError) Error() string   { return e.driver.Error() }
func (e *contextError) Unwrap() []error { return []error{e.driver, e.ctx} }
