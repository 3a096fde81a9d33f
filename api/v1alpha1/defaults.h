// Defaults: fills what a Benchmark leaves out, from the task catalog (recipe, goal,
// epochs, dataset) and from ergobench's own choices (backend, device, run policy). The
// result is the resolved config every rank runs with, so a run's recipe is always explicit.
#pragma once

#include <cstdint>
#include <string>

#include "api/v1alpha1/benchmark.h"

namespace ergobench {

// This build's version (the project's, CMakeLists.txt): what --version prints and
// ergobench_build_info labels.
const char* ErgobenchVersion();

// The runner image when spec.image is empty: "ergobench-runner:<version>".
std::string DefaultRunnerImage();

// The seed of run `n` derived from a recipe's `seed` (a repeat's, repeats.h; a sweep instance's,
// sweep.h): their sum within the hyperparameter's range (0 .. 2^31-1), so run 0 is the recipe's.
int64_t DerivedSeed(int64_t seed, int64_t n);

// Idempotent. Leaves fields it cannot resolve (an unknown task's recipe) for validation.
void ApplyDefaults(Benchmark* benchmark);

}  // namespace ergobench
