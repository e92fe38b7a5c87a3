package memory_test

import (
	"testing"

	convmem "regintel/shared/conversation/memory"
	"regintel/shared/conversation/storetest"
)

func TestAdminContract(t *testing.T) {
	storetest.RunAdmin(t, func(*testing.T) storetest.AdminStore { return convmem.New() })
}
