// Loading Benchmarks from files: YAML or JSON, one or several documents, each decoded,
// defaulted and validated. This is the one entry point the CLI and the runner use, so both
// reject bad input with the same messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/benchmark.h"
#include "base/status.h"

namespace ergobench {

// Decodes one document, applies defaults and validates. On failure the message lists every
// field error, prefixed by `where` ("task0a.yaml, document 2").
StatusOr<Benchmark> ResolveBenchmark(const nlohmann::json& document, const std::string& where);

// Every Benchmark in `text`; fails if any document is invalid or if there is none. Dataset
// documents are validated too, and a Benchmark's dataset.ref to one of them with a url source
// becomes that url (the form `ergobench run` can fetch); other refs stay for a cluster.
StatusOr<std::vector<Benchmark>> LoadBenchmarks(std::string_view text, const std::string& source);

// Reads `path` ("-" for standard input) and loads it.
StatusOr<std::vector<Benchmark>> LoadBenchmarkFile(const std::string& path);

// Reads a whole file; NotFound names the path.
StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace ergobench
