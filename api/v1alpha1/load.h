// Loading Benchmarks from files: YAML or JSON, one or several documents, each decoded,
// defaulted and validated. This is the one entry point the CLI and the runner use, so both
// reject bad input with the same messages.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/sweep.h"
#include "base/status.h"

namespace ergobench {

// Decodes one document, applies defaults and validates. On failure the message lists every
// field error, prefixed by `where` ("task0a.yaml, document 2").
StatusOr<Benchmark> ResolveBenchmark(const nlohmann::json& document, const std::string& where);

// A file's BenchmarkSweeps with their points, which are also in its Benchmarks.
struct LoadedSweep {
  BenchmarkSweep sweep;
  std::vector<SweepPoint> points;  // in run order
};

struct LoadedDocuments {
  std::vector<Benchmark> benchmarks;  // a sweep's points in its place, in its run order
  std::vector<LoadedSweep> sweeps;
};

// Every Benchmark in `text`, a BenchmarkSweep's as its points (sweep.h); fails if any document
// is invalid or if there is none. Dataset
// documents are validated too, and a Benchmark's dataset.ref to one of them with a url source
// becomes that url (the form `ergobench run` can fetch); other refs stay for a cluster.
StatusOr<LoadedDocuments> LoadDocuments(std::string_view text, const std::string& source);
// Its Benchmarks only.
StatusOr<std::vector<Benchmark>> LoadBenchmarks(std::string_view text, const std::string& source);

// Reads `path` ("-" for standard input) and loads it.
StatusOr<LoadedDocuments> LoadDocumentFile(const std::string& path);
StatusOr<std::vector<Benchmark>> LoadBenchmarkFile(const std::string& path);

// Reads a whole file; NotFound names the path. A file larger than `limit` bytes (a device such
// as /dev/zero never ends) is InvalidArgument, naming the path and the limit, read no further.
StatusOr<std::string> ReadFile(const std::string& path, size_t limit = std::numeric_limits<size_t>::max());

}  // namespace ergobench
