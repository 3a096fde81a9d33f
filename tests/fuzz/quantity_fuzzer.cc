// Kubernetes quantities as a spec's resources give them: an answer is finite or an error.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api/v1alpha1/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256) return 0;  // the CRD and validation bound the field long before
  auto quantity = ergobench::ParseQuantity(std::string(reinterpret_cast<const char*>(data), size));
  if (quantity.ok() && !std::isfinite(*quantity)) std::abort();
  return 0;
}
