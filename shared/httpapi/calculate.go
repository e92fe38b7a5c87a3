package httpapi

// POST /calculate: one calculator of shared/calc over the graph's facts
// valid on the asked date. It reads the graph once and costs no model
// tokens; the facts are every tenant's, so only the caller's identity
// (Auth) scopes it.

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"regintel/shared/calc"
	"regintel/shared/graph"
	"regintel/shared/httpapi/reply"
)

func (a *API) calculate(w http.ResponseWriter, r *http.Request) error {
	// The dates are read as pointers: null leaves a date out, as the
	// document says, but an empty string is no date.
	var body struct {
		Calculator string          `json:"calculator"`
		AsOf       *string         `json:"asOf"`
		TaxYear    *string         `json:"taxYear"`
		Inputs     json.RawMessage `json:"inputs"`
	}
	if err := a.decodeJSON(w, r, &body); err != nil {
		return err
	}
	req := calc.Request{Calculator: body.Calculator, Inputs: body.Inputs}
	for _, d := range []struct {
		field string
		value *string
		into  *string
	}{{"asOf", body.AsOf, &req.AsOf}, {"taxYear", body.TaxYear, &req.TaxYear}} {
		if d.value != nil && *d.value == "" {
			return reply.InvalidInput.With(d.field + ": must not be empty: leave it out (or null) for today")
		}
		if d.value != nil {
			*d.into = *d.value
		}
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
