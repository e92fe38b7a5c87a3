// Package e2e holds the end-to-end tests that cross every production
// backend at once: chat over HTTP with Postgres, concepts published to SQS
// (moto), the resolver Lambda handler writing to the Bolt graph (Neo4j), and
// the next turn's prompt reading the graph back.
package e2e
