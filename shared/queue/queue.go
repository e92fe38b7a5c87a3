// Package queue defines the versioned message envelope and the publisher the
// chat and resolver functions use. queue/sqs is the AWS implementation;
// queue/inprocess runs the consumer's handler in the same process.
package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Message types.
const (
	TypeConceptsCaptured    = "concepts.captured"
	TypeEnrichmentRequested = "enrichment.requested"
)

// CurrentVersion of the envelope schema.
const CurrentVersion = 1

// Envelope wraps every message on every queue.
type Envelope struct {
	Type    string          `json:"type"`
	Version int             `json:"version"`
	ID      string          `json:"id"`
	Time    time.Time       `json:"time"`
	Payload json.RawMessage `json:"payload"`
}

// NewEnvelope marshals payload into a new envelope with a fresh id.
func NewEnvelope(msgType string, payload any) (Envelope, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, fmt.Errorf("marshal %s payload: %w", msgType, err)
	}
	return Envelope{Type: msgType, Version: CurrentVersion, ID: uuid.NewString(), Time: time.Now().UTC(), Payload: raw}, nil
}

// Decode parses an envelope and checks its type and version are known.
func Decode(body []byte) (Envelope, error) {
	var env Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return Envelope{}, fmt.Errorf("envelope is not valid JSON: %w", err)
	}
	if env.Type != TypeConceptsCaptured && env.Type != TypeEnrichmentRequested {
		return Envelope{}, fmt.Errorf("unknown message type %q", env.Type)
	}
	if env.Version != CurrentVersion {
		return Envelope{}, fmt.Errorf("unsupported %s version %d", env.Type, env.Version)
	}
	if env.ID == "" || len(env.Payload) == 0 {
		return Envelope{}, fmt.Errorf("envelope without id or payload")
	}
	return env, nil
}

// Handler consumes one envelope. An error means it was not handled: the
// queue delivers it again, up to its limit, so handlers must be idempotent.
type Handler func(ctx context.Context, env Envelope) error

// Publisher sends envelopes to one queue; several envelopes go in one call
// (one batch where the backend allows).
type Publisher interface {
	Publish(ctx context.Context, msgs ...Envelope) error
}
