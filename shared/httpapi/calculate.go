package httpapi

// POST /calculate: one calculator of shared/calc over the graph's facts
// valid on the asked date. It reads the graph once and costs no model
// tokens; the facts are every tenant's, so only the caller's identity
// (Auth) scopes it.

import (
	"errors"
	"net/http"
	"strings"

	"regintel/shared/calc"
	"regintel/shared/graph"
	"regintel/shared/httpapi/reply"
)

func (a *API) calculate(w http.ResponseWriter, r *http.Request) error {
	var req calc.Request
	if err := a.decodeJSON(w, r, &req); err != nil {
		return err
	}
	series, _ := a.graph.(graph.SeriesReader)
	res, err := calc.Run(r.Context(), series, req, a.now())
	var field *calc.FieldError
	var missing *calc.MissingFactsError
	switch {
	case errors.As(err, &field):
		return reply.InvalidInput.With(field.Field + ": " + field.Message)
	case errors.As(err, &missing):
		return reply.FactsMissing.With("the graph has no value valid on " + missing.Date + " for: " + strings.Join(missing.Series, ", "))
	case err != nil:
		a.log.Error("calculation failed", "request_id", RequestID(r.Context()), "calculator", req.Calculator, "err", err)
		return reply.GraphUnavailable
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
