package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"regintel/shared/httpapi/reply"
)

//go:generate go test -run TestCORSFileMatchesRoutes -update-cors .

// commonRequestHeaders are read on every route: identity (the user's token
// moves to X-User-Authorization when IAM auth owns Authorization), body
// type, the request id, and the body hash CloudFront's origin access
// control needs on a POST (the demo page always sends it).
var commonRequestHeaders = []string{"Authorization", HeaderUserAuthorization, "Content-Type", "X-Request-Id", "X-Tenant-Id", "X-User-Id", "X-Amz-Content-Sha256"}

// CORSPolicy is what a browser may do with the API, derived from the
// routes table. infra/cors.json holds it for the Function URL's CORS
// settings, which take no OPTIONS among the methods (the URL answers
// preflights itself); the CORS middleware adds it.
type CORSPolicy struct {
	AllowMethods  []string `json:"allowMethods"`
	AllowHeaders  []string `json:"allowHeaders"`
	ExposeHeaders []string `json:"exposeHeaders"`
}

// NewCORSPolicy derives the policy from routes: their methods, the common
// request headers plus each route's RequestHeaders, and X-Request-Id plus
// each route's ExposeHeaders.
func NewCORSPolicy(routes []Route) CORSPolicy {
	p := CORSPolicy{AllowMethods: routeMethods(routes)}
	p.AllowHeaders = addHeaders(nil, commonRequestHeaders...)
	p.ExposeHeaders = addHeaders(nil, "X-Request-Id")
	for _, rt := range routes {
		p.AllowHeaders = addHeaders(p.AllowHeaders, rt.RequestHeaders...)
		p.ExposeHeaders = addHeaders(p.ExposeHeaders, rt.ExposeHeaders...)
	}
	return p
}

// addHeaders appends the headers not yet in list (names compare without
// case).
func addHeaders(list []string, headers ...string) []string {
	for _, h := range headers {
		if !slices.ContainsFunc(list, func(have string) bool { return strings.EqualFold(have, h) }) {
			list = append(list, h)
		}
	}
	return list
}

// corsMaxAge is how long a browser may reuse a preflight's answer (the
// Function URL's CORS settings say the same in infra).
const corsMaxAge = "86400"

// cors answers browser preflights and marks responses readable for the
// configured origins ("*" allows any), with the policy of routes. A
// preflight from any other origin is a JSON 403 that names CORS. On AWS
// the Function URL's CORS settings do this instead.
func cors(origins []string, routes []Route) func(http.Handler) http.Handler {
	policy := NewCORSPolicy(routes)
	methods := strings.Join(append(slices.Clone(policy.AllowMethods), http.MethodOptions), ", ")
	headers := strings.Join(policy.AllowHeaders, ", ")
	exposed := strings.Join(policy.ExposeHeaders, ", ")
	allowed := map[string]bool{}
	for _, o := range origins {
		allowed[o] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin == "" || !(allowed[origin] || allowed["*"]) {
				if isPreflight(r) {
					writeError(w, reply.CORSOriginRefused)
					return
				}
				if origin != "" && !sameOrigin(r, origin) {
					r = r.WithContext(context.WithValue(r.Context(), foreignOriginKey{}, true))
				}
				next.ServeHTTP(w, r)
				return
			}
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", exposed)
			if !isPreflight(r) {
				next.ServeHTTP(w, r)
				return
			}
			h.Set("Access-Control-Allow-Methods", methods)
			h.Set("Access-Control-Allow-Headers", headers)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
		})
	}
}

// isPreflight: a browser asks whether it may send a request; any other
// OPTIONS request is an ordinary one (answered 405 by the router).
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// foreignOriginKey marks a request a browser sent from a page of an origin
// the API does not allow (no preflight was needed, so CORS did not stop it).
type foreignOriginKey struct{}

// fromForeignOrigin reports whether a browser sent r from a page of an
// origin that is neither allowed nor the API's own.
func fromForeignOrigin(r *http.Request) bool {
	foreign, _ := r.Context().Value(foreignOriginKey{}).(bool)
	return foreign
}

// sameOrigin reports whether origin is the API's own (the demo page).
func sameOrigin(r *http.Request, origin string) bool {
	return origin == "http://"+r.Host || origin == "https://"+r.Host
}
