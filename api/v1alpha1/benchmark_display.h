// What kubectl's columns show of a Benchmark (status.display): short strings with units and
// three significant figures, made from the rest of its status each time it is written.
#pragma once

#include "api/v1alpha1/benchmark.h"

namespace ergobench {

// "42% · epoch 3/164 · accuracy 0.71→0.8 · ≤7m40s left" while it runs; "done · epoch 12/164 ·
// goal reached" when it succeeded; where it stopped when it failed; "" before it starts.
std::string DisplayProgress(const Benchmark& benchmark);

// Every column's string; the ones without a figure yet are empty.
BenchmarkDisplay DisplayOf(const Benchmark& benchmark);

}  // namespace ergobench
