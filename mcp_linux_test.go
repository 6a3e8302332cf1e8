package main

// pdeathsig: the kernel kills lunar's children with it (MCP servers, bash).
const pdeathsig = true
