// Defaults: fills what a Benchmark leaves out, from the task catalog (recipe, goal,
// epochs, dataset) and from ergobench's own choices (backend, device, run policy). The
// result is the resolved config every rank runs with, so a run's recipe is always explicit.
#pragma once

#include <string>

#include "api/v1alpha1/benchmark.h"

namespace ergobench {

// This build's version (the project's, CMakeLists.txt): what --version prints and
// ergobench_build_info labels.
const char* ErgobenchVersion();

// The runner image when spec.image is empty: "ergobench-runner:<version>".
std::string DefaultRunnerImage();

// Idempotent. Leaves fields it cannot resolve (an unknown task's recipe) for validation.
void ApplyDefaults(Benchmark* benchmark);

}  // namespace ergobench
