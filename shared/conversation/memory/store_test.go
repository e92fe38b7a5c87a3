package memory_test

import (
	"testing"

	convmem "regintel/shared/conversation/memory"
	"regintel/shared/conversation/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(testing.TB) storetest.Store { return convmem.New() })
}

func BenchmarkConformanceStore(b *testing.B) {
	storetest.Bench(b, func(testing.TB) storetest.Store { return convmem.New() })
}
