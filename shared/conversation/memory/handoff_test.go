package memory_test

import (
	"testing"

	convmem "regintel/shared/conversation/memory"
	"regintel/shared/conversation/storetest"
)

func TestHandoffContract(t *testing.T) {
	storetest.RunHandoff(t, func(*testing.T) storetest.HandoffStore { return convmem.New() })
}
