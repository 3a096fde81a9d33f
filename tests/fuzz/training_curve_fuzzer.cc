// A run's mllog as `ergobench report` reads it (cli/report/training_curves.h), from a results
// folder or a cluster's ConfigMap: any bytes. The curve is bounded, its times and values finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cli/report/training_curves.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ergobench::TrainingCurve curve =
      ergobench::ParseTrainingCurve(std::string_view(reinterpret_cast<const char*>(data), size));
  if (curve.points.size() > ergobench::kMaxCurvePoints) std::abort();
  for (const ergobench::CurvePoint& p : curve.points) {
    if (!std::isfinite(p.seconds) || (p.samples && !std::isfinite(*p.samples)) || p.values.empty()) std::abort();
    for (const auto& [key, value] : p.values) {
      if (!std::isfinite(value)) std::abort();
    }
  }
  return 0;
}
