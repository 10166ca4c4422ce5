package opa_test

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/sqe-project/sqe/opa"
)

func storeOf(_ testing.TB, b *opa.Bundle) storage.Store { return inmem.NewFromObject(b.Data()) }
