package postgres_test

import (
	"testing"

	pgstore "regintel/shared/conversation/postgres"
	"regintel/shared/conversation/storetest"
	"regintel/shared/postgres/pgtest"
)

func TestHandoffContract(t *testing.T) {
	store := pgstore.New(pgtest.NewMigratedPool(t, 25))
	storetest.RunHandoff(t, func(*testing.T) storetest.HandoffStore { return store })
}
