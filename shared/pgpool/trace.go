package pgpool

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/tracing"
)

// queryTracer gives each query and each pipelined batch a span under the
// caller's span. Without a recording span (tracing off) it does nothing.
type queryTracer struct{}

var (
	_ pgx.QueryTracer = queryTracer{}
	_ pgx.BatchTracer = queryTracer{}
)

var postgresSystem = attribute.String("db.system.name", "postgresql")

func (queryTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	ctx, _ = tracing.Start(ctx, "postgres query", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(postgresSystem))
	return ctx
}

func (queryTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	endSpan(ctx, data.Err)
}

func (queryTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	size := 0
	if data.Batch != nil {
		size = data.Batch.Len()
	}
	ctx, _ = tracing.Start(ctx, "postgres batch", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(postgresSystem, attribute.Int("db.operation.batch.size", size)))
	return ctx
}

func (queryTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (queryTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	endSpan(ctx, data.Err)
}

// endSpan ends the query's span. A failure is recorded by its SQLSTATE
// only: a server message can quote the row's values.
func endSpan(ctx context.Context, err error) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if err != nil {
		state := "error"
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			state = pgErr.Code
		}
		span.SetStatus(codes.Error, state)
	}
	span.End()
}
