package postgres_test

import (
	"testing"

	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/conversation/storetest"
	"regintel/shared/pgpool/pgtest"
)

func TestAdminContract(t *testing.T) {
	// One database: every contract test uses its own tenants.
	store := convpg.New(pgtest.NewMigratedPool(t, 8))
	storetest.RunAdmin(t, func(*testing.T) storetest.AdminStore { return store })
}
