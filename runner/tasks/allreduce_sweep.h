// Task 0a (MLBench): the all-reduce bandwidth sweep, and nccl-tests' other collectives
// (`collective`: sweep_collectives.h). For each of `sizes` message sizes log-spaced from
// minElements to maxElements, every rank runs the collective `warmup` times untimed and
// `repetitions` times timed, checking every result against the exact expected values. Latency
// is per completed operation, the max over ranks of each repetition; algbw and busbw follow
// nccl-tests. The pure pieces are declared here for tests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/dist/communicator.h"
#include "runner/tasks/task.h"

namespace ergobench {

std::unique_ptr<Task> NewAllreduceSweepTask();

// round(logspace(log10(min), log10(max), count)), as MLBench computes its sizes; repeats
// at the small end are kept so that the table has exactly `count` rows.
std::vector<int64_t> SweepSizes(int64_t min_elements, int64_t max_elements, int count);

struct SizeStats {
  int64_t elements = 0;
  int64_t bytes = 0;
  int64_t repetitions = 0;
  double min_seconds = 0;
  double median_seconds = 0;
  double max_seconds = 0;
  double algbw = 0;  // bytes / median latency
  double busbw = 0;  // algbw x the collective's factor (all-reduce: 2(n-1)/n)
};

// A row from its repetitions' times: the operation's `bytes` and busbw's `bus_factor`.
SizeStats ComputeSizeStats(int64_t elements, int64_t bytes, double bus_factor, std::vector<double> seconds);
// An all-reduce's row: `elements` of `element_size` over `world_size` ranks.
SizeStats ComputeSizeStats(int64_t elements, size_t element_size, int world_size, std::vector<double> seconds);

// Each rank's input is chosen so that every sum is an exact small integer in its dtype,
// whatever the reduction order: float16 stays within 2048 for up to 1024 ranks.
void FillInput(void* data, size_t count, DType dtype, int rank);
double ExpectedSum(DType dtype, int world_size, size_t index);
// Writes ExpectedSum for each index in the buffer's dtype.
void FillExpected(void* data, size_t count, DType dtype, int world_size);
// The first index whose value differs from ExpectedSum, or -1.
int64_t FirstMismatch(const void* data, size_t count, DType dtype, int world_size);
// FirstMismatch and FillInput in one pass over the buffer, at memcpy speed: the pass runs
// between timed repetitions, and a slower one changed how fast the next all-reduce ran.
// After a mismatch the buffer's contents are unspecified.
int64_t VerifyAndRefill(void* data, size_t count, DType dtype, int world_size, int rank);
double ElementAsDouble(const void* data, DType dtype, size_t index);

// IEEE binary16 conversions, for float16 buffers without a compiler extension.
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t half);

std::string SweepTableCsv(const std::vector<SizeStats>& rows, const std::string& dtype);
nlohmann::json SweepTableJson(const std::vector<SizeStats>& rows, const std::string& dtype, int world_size,
                              const std::string& backend);

}  // namespace ergobench
