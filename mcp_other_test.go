//go:build !linux

package main

const pdeathsig = false
