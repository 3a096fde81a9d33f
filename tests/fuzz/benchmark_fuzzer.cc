// A Benchmark file end to end: YAML, the codec, defaults and validation; what validates must
// survive an encode/decode round trip unchanged.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/load.h"
#include "api/v1alpha1/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto benchmarks = ergobench::LoadBenchmarks(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!benchmarks.ok()) return 0;
  for (const ergobench::Benchmark& benchmark : *benchmarks) {
    const nlohmann::json encoded = ergobench::EncodeBenchmark(benchmark);
    ergobench::FieldErrors errors;
    const ergobench::Benchmark decoded = ergobench::DecodeBenchmark(encoded, &errors);
    if (!errors.empty() || ergobench::EncodeBenchmark(decoded).dump() != encoded.dump()) std::abort();
  }
  return 0;
}
