#include "runner/tasks/sweep_collectives.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runner/tasks/allreduce_sweep.h"

namespace ergobench {
namespace {

constexpr Collective kCollectives[] = {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                                       Collective::kBroadcast, Collective::kReduce,    Collective::kAllToAll};

bool Blocked(Collective c) {
  return c == Collective::kAllGather || c == Collective::kReduceScatter || c == Collective::kAllToAll;
}

// A value that names `token` in any dtype: float16 keeps integers exact to 2048.
double TokenValue(DType dtype, int64_t token, int64_t index) {
  const int64_t modulus = dtype == DType::kFloat16 ? 512 : int64_t{1} << 20;
  return static_cast<double>(token % modulus + 1 + index % 7);
}

void Store(void* data, DType dtype, int64_t index, double value) {
  const auto i = static_cast<size_t>(index);
  switch (dtype) {
    case DType::kFloat32: static_cast<float*>(data)[i] = static_cast<float>(value); break;
    case DType::kFloat64: static_cast<double*>(data)[i] = value; break;
    case DType::kFloat16: static_cast<uint16_t*>(data)[i] = FloatToHalf(static_cast<float>(value)); break;
    case DType::kInt64: static_cast<int64_t*>(data)[i] = static_cast<int64_t>(value); break;
  }
}

// Whether element `index` of rank `rank`'s result is specified, and its value.
bool Specified(Collective c, int64_t index, int64_t count, int rank) {
  if (c == Collective::kReduce) return rank == kSweepRoot;
  if (c == Collective::kReduceScatter) return index / count == rank;
  return true;
}

}  // namespace

const char* CollectiveName(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kAllGather: return "all_gather";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kBroadcast: return "broadcast";
    case Collective::kReduce: return "reduce";
    case Collective::kAllToAll: return "alltoall";
  }
  return "?";
}

StatusOr<Collective> ParseCollective(const std::string& name) {
  for (Collective c : kCollectives) {
    if (name == CollectiveName(c)) return c;
  }
  return Status::InvalidArgument("spec.hyperparameters.collective: unknown collective \"" + name +
                                 "\"; one of all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall");
}

double BusBandwidthFactor(Collective collective, int world_size) {
  const double k = world_size;
  if (collective == Collective::kAllReduce) return 2 * (k - 1) / k;
  if (Blocked(collective)) return (k - 1) / k;
  return 1;
}

int64_t CountPerCall(Collective collective, int64_t elements, int world_size) {
  return Blocked(collective) ? std::max<int64_t>(1, elements / world_size) : elements;
}

int64_t OperationBytes(Collective collective, int64_t count, size_t element_size, int world_size) {
  return BufferElements(collective, count, world_size) * static_cast<int64_t>(element_size);
}

int64_t BufferElements(Collective collective, int64_t count, int world_size) {
  return Blocked(collective) ? count * world_size : count;
}

double ExpectedResult(Collective c, int64_t index, int64_t count, DType dtype, int rank, int world_size) {
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kReduce:
    case Collective::kReduceScatter: return ExpectedSum(dtype, world_size, static_cast<size_t>(index));
    case Collective::kAllGather: return TokenValue(dtype, index / count, index % count);  // block j is rank j's
    case Collective::kBroadcast: return TokenValue(dtype, kSweepRoot, index);
    case Collective::kAllToAll:  // block j holds what rank j sent to this rank
      return TokenValue(dtype, (index / count) * world_size + rank, index % count);
  }
  return NAN;
}

void FillPoison(void* data, int64_t elements, DType dtype) {
  for (int64_t i = 0; i < elements; ++i) Store(data, dtype, i, -1);
}

void FillCollectiveInput(Collective c, void* data, int64_t count, DType dtype, int rank, int world_size) {
  const int64_t elements = BufferElements(c, count, world_size);
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kReduce:
    case Collective::kReduceScatter:  // the sums of ExpectedSum, element by element
      FillInput(data, static_cast<size_t>(elements), dtype, rank);
      return;
    case Collective::kAllGather:  // its own block; the others must be overwritten
      FillPoison(data, elements, dtype);
      for (int64_t i = 0; i < count; ++i) Store(data, dtype, rank * count + i, TokenValue(dtype, rank, i));
      return;
    case Collective::kBroadcast:
      if (rank != kSweepRoot) return FillPoison(data, elements, dtype);
      for (int64_t i = 0; i < count; ++i) Store(data, dtype, i, TokenValue(dtype, kSweepRoot, i));
      return;
    case Collective::kAllToAll:  // block j goes to rank j
      for (int64_t i = 0; i < elements; ++i) {
        Store(data, dtype, i, TokenValue(dtype, rank * world_size + i / count, i % count));
      }
      return;
  }
}

int64_t CheckCollectiveResult(Collective c, const void* data, int64_t count, DType dtype, int rank, int world_size) {
  const int64_t elements = BufferElements(c, count, world_size);
  for (int64_t i = 0; i < elements; ++i) {
    if (!Specified(c, i, count, rank)) continue;
    if (ElementAsDouble(data, dtype, static_cast<size_t>(i)) != ExpectedResult(c, i, count, dtype, rank, world_size)) {
      return i;
    }
  }
  return -1;
}

}  // namespace ergobench
