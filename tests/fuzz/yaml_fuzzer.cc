// The YAML loader behind every file ergobench reads (Benchmarks, kubeconfigs, price tables),
// and the writer behind `-o yaml`: every document it reads, written as YAML, reads back as
// the same value.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string_view>

#include "base/yaml_json.h"

namespace {

bool HasNan(const nlohmann::json& value) {
  if (value.is_number_float()) return std::isnan(value.get<double>());
  if (value.is_structured()) {
    for (const nlohmann::json& item : value) {
      if (HasNan(item)) return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto documents = ergobench::ParseYamlDocuments(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!documents.ok()) return 0;
  for (const auto& document : *documents) {
    (void)document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::string yaml = ergobench::ToYaml(document);
    auto again = ergobench::ParseYamlDocuments(yaml, "written");
    if (!again.ok() || again->size() != 1 || (!HasNan(document) && again->front() != document)) {
      std::fprintf(stderr, "round trip failed: %s\n%s\n",
                   again.ok() ? "another value" : again.status().ToString().c_str(), yaml.c_str());
      std::abort();
    }
  }
  return 0;
}
