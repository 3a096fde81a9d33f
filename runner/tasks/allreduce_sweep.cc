#include "runner/tasks/allreduce_sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>

#include "api/analysis/training_phases.h"
#include "base/units.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/progress_writer.h"
#include "runner/stop_signal.h"
#include "runner/tasks/sweep_collectives.h"
#include "runner/tasks/sweep_operation.h"
#include "runner/train/recipe_reader.h"

namespace ergobench {

std::vector<int64_t> SweepSizes(int64_t min_elements, int64_t max_elements, int count) {
  std::vector<int64_t> sizes;
  const double lo = std::log10(static_cast<double>(min_elements));
  const double hi = std::log10(static_cast<double>(max_elements));
  for (int i = 0; i < count; ++i) {
    const double exponent = count == 1 ? lo : lo + (hi - lo) * i / (count - 1);
    sizes.push_back(std::llround(std::pow(10.0, exponent)));
  }
  return sizes;
}

SizeStats ComputeSizeStats(int64_t elements, size_t element_size, int world_size, std::vector<double> seconds) {
  return ComputeSizeStats(elements, elements * static_cast<int64_t>(element_size),
                          BusBandwidthFactor(Collective::kAllReduce, world_size), std::move(seconds));
}

SizeStats ComputeSizeStats(int64_t elements, int64_t bytes, double bus_factor, std::vector<double> seconds) {
  SizeStats s;
  s.elements = elements;
  s.bytes = bytes;
  s.repetitions = static_cast<int64_t>(seconds.size());
  if (seconds.empty()) return s;
  std::sort(seconds.begin(), seconds.end());
  s.min_seconds = seconds.front();
  s.max_seconds = seconds.back();
  const size_t n = seconds.size();
  s.median_seconds = n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  if (s.median_seconds > 0) s.algbw = static_cast<double>(s.bytes) / s.median_seconds;
  s.busbw = s.algbw * bus_factor;
  return s;
}

uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t raw_exponent = (bits >> 23) & 0xff;
  const uint32_t mantissa = bits & 0x7fffffu;
  if (raw_exponent == 0xff) return static_cast<uint16_t>(sign | (mantissa ? 0x7e00u : 0x7c00u));  // NaN, inf
  const int32_t exponent = static_cast<int32_t>(raw_exponent) - 127 + 15;
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  // Normal halves drop 13 mantissa bits; subnormal ones also shift in the implicit 1.
  const uint32_t significand = exponent > 0 ? mantissa : (mantissa | 0x800000u);
  const int shift = exponent > 0 ? 13 : 14 - exponent;
  if (shift > 24) return static_cast<uint16_t>(sign);  // underflow to zero
  uint32_t half = sign | (exponent > 0 ? static_cast<uint32_t>(exponent) << 10 : 0u) | (significand >> shift);
  // Round to nearest even on the dropped bits; a carry may step into the next exponent.
  const uint32_t rest = significand & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

float HalfToFloat(uint16_t half) {
  const uint32_t sign = (half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

namespace {

double InputValue(DType dtype, int rank, size_t i) {
  if (dtype == DType::kFloat16) return 1.0 + static_cast<double>(i % 2);
  return (rank + 1) + static_cast<double>(i % 7);
}

}  // namespace

double ExpectedSum(DType dtype, int world_size, size_t i) {
  if (dtype == DType::kFloat16) return world_size * (1.0 + static_cast<double>(i % 2));
  return world_size * (world_size + 1) / 2.0 + world_size * static_cast<double>(i % 7);
}

void FillInput(void* data, size_t count, DType dtype, int rank) {
  switch (dtype) {
    case DType::kFloat32: {
      auto* p = static_cast<float*>(data);
      for (size_t i = 0; i < count; ++i) p[i] = static_cast<float>(InputValue(dtype, rank, i));
      break;
    }
    case DType::kFloat64: {
      auto* p = static_cast<double*>(data);
      for (size_t i = 0; i < count; ++i) p[i] = InputValue(dtype, rank, i);
      break;
    }
    case DType::kFloat16: {
      auto* p = static_cast<uint16_t*>(data);
      const uint16_t one = FloatToHalf(1.0f);
      const uint16_t two = FloatToHalf(2.0f);
      for (size_t i = 0; i < count; ++i) p[i] = i % 2 ? two : one;
      break;
    }
    case DType::kInt64: {
      auto* p = static_cast<int64_t*>(data);
      for (size_t i = 0; i < count; ++i) p[i] = static_cast<int64_t>(InputValue(dtype, rank, i));
      break;
    }
  }
}

double ElementAsDouble(const void* data, DType dtype, size_t i) {
  switch (dtype) {
    case DType::kFloat32: return static_cast<const float*>(data)[i];
    case DType::kFloat64: return static_cast<const double*>(data)[i];
    case DType::kFloat16: return HalfToFloat(static_cast<const uint16_t*>(data)[i]);
    case DType::kInt64: return static_cast<double>(static_cast<const int64_t*>(data)[i]);
  }
  return NAN;
}

int64_t FirstMismatch(const void* data, size_t count, DType dtype, int world_size) {
  if (dtype == DType::kFloat32) {
    // The hot case: a tight loop over the 7-periodic expected values.
    const auto* p = static_cast<const float*>(data);
    float expected[7];
    for (size_t j = 0; j < 7; ++j) expected[j] = static_cast<float>(ExpectedSum(dtype, world_size, j));
    for (size_t i = 0; i < count; ++i) {
      if (p[i] != expected[i % 7]) return static_cast<int64_t>(i);
    }
    return -1;
  }
  for (size_t i = 0; i < count; ++i) {
    if (ElementAsDouble(data, dtype, i) != ExpectedSum(dtype, world_size, i)) return static_cast<int64_t>(i);
  }
  return -1;
}

void FillExpected(void* data, size_t count, DType dtype, int world_size) {
  for (size_t i = 0; i < count; ++i) {
    const double sum = ExpectedSum(dtype, world_size, i);
    switch (dtype) {
      case DType::kFloat32: static_cast<float*>(data)[i] = static_cast<float>(sum); break;
      case DType::kFloat64: static_cast<double*>(data)[i] = sum; break;
      case DType::kFloat16: static_cast<uint16_t*>(data)[i] = FloatToHalf(static_cast<float>(sum)); break;
      case DType::kInt64: static_cast<int64_t*>(data)[i] = static_cast<int64_t>(sum); break;
    }
  }
}

int64_t VerifyAndRefill(void* data, size_t count, DType dtype, int world_size, int rank) {
  // Inputs and sums repeat every 7 (or 2) elements, so whole periods compare and copy as
  // bytes: exact small integers have one encoding. Element by element the pass took 10x a
  // memset (3.4 ms against 0.36 ms for 16 MiB of float32).
  constexpr size_t kPeriod = 7 * 2 * 128;
  const size_t element_size = DTypeSize(dtype);
  const size_t period_bytes = kPeriod * element_size;
  std::vector<std::byte> expected(period_bytes);
  std::vector<std::byte> input(period_bytes);
  FillExpected(expected.data(), kPeriod, dtype, world_size);
  FillInput(input.data(), kPeriod, dtype, rank);
  auto* bytes = static_cast<std::byte*>(data);
  size_t done = 0;
  for (; done + kPeriod <= count; done += kPeriod) {
    std::byte* chunk = bytes + done * element_size;
    if (std::memcmp(chunk, expected.data(), period_bytes) != 0) break;
    std::memcpy(chunk, input.data(), period_bytes);
  }
  // The tail, or the period holding a mismatch, element by element.
  std::byte* rest = bytes + done * element_size;
  const int64_t bad = FirstMismatch(rest, count - done, dtype, world_size);
  if (bad >= 0) return static_cast<int64_t>(done) + bad;
  FillInput(rest, count - done, dtype, rank);
  return -1;
}

std::string SweepTableCsv(const std::vector<SizeStats>& rows, const std::string& dtype) {
  std::string out = "elements,bytes,dtype,repetitions,min_seconds,median_seconds,max_seconds,"
                    "algbw_bytes_per_second,busbw_bytes_per_second\n";
  char line[256];
  for (const SizeStats& r : rows) {
    std::snprintf(line, sizeof line, "%lld,%lld,%s,%lld,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                  static_cast<long long>(r.elements), static_cast<long long>(r.bytes), dtype.c_str(),
                  static_cast<long long>(r.repetitions), r.min_seconds, r.median_seconds, r.max_seconds,
                  r.algbw, r.busbw);
    out += line;
  }
  return out;
}

nlohmann::json SweepTableJson(const std::vector<SizeStats>& rows, const std::string& dtype, int world_size,
                              const std::string& backend) {
  nlohmann::json table = nlohmann::json::array();
  for (const SizeStats& r : rows) {
    table.push_back({{"elements", r.elements},
                     {"bytes", r.bytes},
                     {"repetitions", r.repetitions},
                     {"minSeconds", r.min_seconds},
                     {"medianSeconds", r.median_seconds},
                     {"maxSeconds", r.max_seconds},
                     {"algbwBytesPerSecond", r.algbw},
                     {"busbwBytesPerSecond", r.busbw}});
  }
  return {{"dtype", dtype}, {"worldSize", world_size}, {"backend", backend}, {"rows", table}};
}

namespace {

using Clock = std::chrono::steady_clock;

class AllreduceSweepTask : public Task {
 public:
  StatusOr<TaskOutcome> Run(TaskContext& context) override {
    RecipeReader read(context.benchmark.spec.hyperparameters);
    const std::string dtype_name = read.String("dtype");
    const std::string collective_name = read.String("collective");
    const int64_t min_elements = read.Int("minElements");
    const int64_t max_elements = read.Int("maxElements");
    const int size_count = static_cast<int>(read.Int("sizes"));
    const int warmup = static_cast<int>(read.Int("warmup"));
    const int repetitions = static_cast<int>(read.Int("repetitions"));
    RETURN_IF_ERROR(read.status());
    Communicator& comm = context.communicator;
    const int k = comm.world_size();
    ASSIGN_OR_RETURN(const DType dtype, ParseDType(dtype_name));
    ASSIGN_OR_RETURN(const Collective collective, ParseCollective(collective_name));
    if (!comm.Supports(dtype)) {
      return Status::InvalidArgument(std::string("spec.hyperparameters.dtype: ") + DTypeName(dtype) +
                                     " is not supported by backend " + comm.backend());
    }
    const std::vector<int64_t> sizes = SweepSizes(min_elements, max_elements, size_count);
    const int64_t largest = std::max<int64_t>(*std::max_element(sizes.begin(), sizes.end()), k);
    StatusOr<SweepOperation> created = SweepOperation::Create(comm, collective, dtype, largest);
    if (!created.ok()) {
      return Status::Unavailable(created.status().message() + " for spec.hyperparameters.maxElements=" +
                                 std::to_string(largest));
    }
    SweepOperation& operation = *created;

    const auto start = Clock::now();
    context.mllog.Start("run_start");
    std::vector<SizeStats> rows;
    double communication_seconds = 0;
    for (size_t index = 0; index < sizes.size(); ++index) {
      RETURN_IF_ERROR(AgreeToContinue(comm, "before the sweep finished"));
      const int64_t count = CountPerCall(collective, sizes[index], k);
      // Every result is checked; the input is made again (or refilled by the check) before each.
      for (int w = 0; w < warmup; ++w) {
        RETURN_IF_ERROR(operation.Prepare(count));
        RETURN_IF_ERROR(operation.Run(count));
        RETURN_IF_ERROR(operation.Check(count));
      }
      std::vector<double> seconds;
      for (int r = 0; r < repetitions; ++r) {
        RETURN_IF_ERROR(operation.Prepare(count));
        RETURN_IF_ERROR(comm.Barrier());
        const auto t0 = Clock::now();
        RETURN_IF_ERROR(operation.Run(count));
        const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        seconds.push_back(elapsed);
        communication_seconds += elapsed;
        RETURN_IF_ERROR(operation.Check(count));
      }
      context.metrics.AddPhaseSeconds(TrainingPhase::kCommunication, Sum(seconds));
      // A collective has finished when its slowest rank has.
      RETURN_IF_ERROR(comm.AllReduce(seconds.data(), seconds.size(), DType::kFloat64, ReduceOp::kMax));
      SizeStats stats = ComputeSizeStats(BufferElements(collective, count, k),
                                         OperationBytes(collective, count, DTypeSize(dtype), k),
                                         BusBandwidthFactor(collective, k), std::move(seconds));
      context.metrics.SetBusBandwidth(stats.bytes, stats.busbw);
      ReportSize(context, stats, index, sizes.size());
      rows.push_back(stats);
    }

    TaskOutcome outcome;
    outcome.figures.run_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    context.mllog.Stop("run_stop", {{"status", "success"}});
    outcome.figures.phase_seconds[PhaseName(TrainingPhase::kCommunication)] = communication_seconds;
    DerivePhaseFigures(&outcome.figures);
    outcome.figures.allreduce = Summarize(rows, collective, dtype, repetitions);
    outcome.summary = SummaryLine(*outcome.figures.allreduce, rows);
    if (comm.rank() == 0 && !context.output_dir.empty()) {
      RETURN_IF_ERROR(WriteTables(context, rows, collective, dtype));
    }
    return outcome;
  }

 private:
  static double Sum(const std::vector<double>& v) {
    double total = 0;
    for (double x : v) total += x;
    return total;
  }

  static void ReportSize(TaskContext& context, const SizeStats& s, size_t index, size_t total) {
    const std::string note = FormatBytes(static_cast<double>(s.bytes)) + ": median " +
                             FormatSeconds(s.median_seconds) + ", busbw " + FormatBytesPerSecond(s.busbw);
    ProgressEvent event;
    event.stage = "run";
    event.done = static_cast<int64_t>(index + 1);
    event.total = static_cast<int64_t>(total);
    event.note = note;
    context.progress.Report(event);
    if (context.communicator.rank() == 0) {
      std::cout << "[0a] " << index + 1 << "/" << total << " " << note << std::endl;
    }
  }

  static AllreduceSummary Summarize(const std::vector<SizeStats>& rows, Collective collective, DType dtype,
                                    int repetitions) {
    AllreduceSummary summary;
    summary.collective = CollectiveName(collective);
    summary.sizes = static_cast<int64_t>(rows.size());
    summary.repetitions = repetitions;
    summary.dtype = DTypeName(dtype);
    for (const SizeStats& r : rows) {
      if (r.busbw > summary.peak_bus_bandwidth_bytes_per_second) {
        summary.peak_bus_bandwidth_bytes_per_second = r.busbw;
        summary.peak_bus_bandwidth_bytes = r.bytes;
      }
    }
    if (!rows.empty()) summary.min_latency_seconds = rows.front().median_seconds;
    return summary;
  }

  static std::string SummaryLine(const AllreduceSummary& s, const std::vector<SizeStats>& rows) {
    std::string line = s.collective + ", " + std::to_string(s.sizes) + " sizes of " + s.dtype;
    if (!rows.empty()) {
      line += " (" + FormatBytes(static_cast<double>(rows.front().bytes)) + " to " +
              FormatBytes(static_cast<double>(rows.back().bytes)) + ")";
    }
    const bool sums = s.collective == "all_reduce" || s.collective == "reduce" || s.collective == "reduce_scatter";
    line += std::string(", all ") + (sums ? "sums" : "results") + " correct; peak busbw " + FormatBytesPerSecond(s.peak_bus_bandwidth_bytes_per_second) +
            " at " + FormatBytes(static_cast<double>(s.peak_bus_bandwidth_bytes)) + ", latency " +
            FormatSeconds(s.min_latency_seconds) + " at the smallest size";
    return line;
  }

  static Status WriteTables(const TaskContext& context, const std::vector<SizeStats>& rows, Collective collective,
                            DType dtype) {
    const std::string base = context.output_dir + "/allreduce";
    std::ofstream csv(base + ".csv");
    csv << SweepTableCsv(rows, DTypeName(dtype));
    std::ofstream json(base + ".json");
    nlohmann::json table = SweepTableJson(rows, DTypeName(dtype), context.communicator.world_size(),
                                          context.communicator.backend());
    table["collective"] = CollectiveName(collective);
    json << table.dump(2) << "\n";
    if (!csv || !json) return Status::Unavailable("cannot write " + base + ".csv/.json");
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Task> NewAllreduceSweepTask() { return std::make_unique<AllreduceSweepTask>(); }

}  // namespace ergobench
