// The one file that names the backends with a plugin of their own.
#include "operator/controller/benchmark/backend_plugin.h"
#include "operator/controller/benchmark/mpi/mpi_backend.h"

namespace ergobench::controller {

const BackendPlugin& BackendOf(const Benchmark& benchmark) {
  static const BackendPlugin kGloo;
  static const MpiBackend kMpi;
  if (benchmark.spec.backend == "mpi") return kMpi;
  return kGloo;
}

}  // namespace ergobench::controller
