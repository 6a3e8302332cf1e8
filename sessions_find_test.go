package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShortIDs(t *testing.T) {
	ids := []string{"01234567-89ab-cdef", "01234567-89ac-0000", "fedcba98-7654", "bbbbbbbb-1", "bbbbbbbbx", "abc"}
	want := map[string]string{
		"01234567-89ab-cdef": "01234567-89ab", // one past what it shares
		"01234567-89ac-0000": "01234567-89ac",
		"fedcba98-7654":      "fedcba98",   // at least minShortID
		"bbbbbbbb-1":         "bbbbbbbb-1", // never ending in a dash
		"bbbbbbbbx":          "bbbbbbbbx",
		"abc":                "abc", // shorter than minShortID: whole
	}
	assert.Equal(t, want, shortIDs(ids))
	for _, id := range ids {
		assert.Equal(t, want[id], shortID(id, ids), id)
	}
}
