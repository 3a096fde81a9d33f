// The YAML loader behind every file ergobench reads (Benchmarks, kubeconfigs, price tables).
#include <cstdint>
#include <string_view>

#include "base/yaml_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto documents = ergobench::ParseYamlDocuments(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (documents.ok()) {
    for (const auto& document : *documents) (void)document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return 0;
}
