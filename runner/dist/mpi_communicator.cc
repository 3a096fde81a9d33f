#include "runner/dist/mpi_communicator.h"

#include <cstdlib>
#include <cstring>

#include <mpi.h>

namespace ergobench {
namespace {

MPI_Datatype ToMpi(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return MPI_FLOAT;
    case DType::kFloat64: return MPI_DOUBLE;
    case DType::kInt64: return MPI_INT64_T;
    case DType::kFloat16: break;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op ToMpi(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kMin: return MPI_MIN;
  }
  return MPI_SUM;
}

Status FromMpi(int code, const char* what) {
  if (code == MPI_SUCCESS) return Status::Ok();
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return Status::Unavailable(std::string("MPI ") + what + " failed: " + std::string(text, length));
}

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator(int rank, int world_size, bool serialized)
      : rank_(rank), world_size_(world_size), serialized_(serialized) {}
  ~MpiCommunicator() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  const char* backend() const override { return "mpi"; }
  bool Supports(DType dtype) const override { return dtype != DType::kFloat16; }
  bool CallableFromAnotherThread() const override { return serialized_; }

  Status AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override {
    RETURN_IF_ERROR(CheckType(dtype));
    return FromMpi(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), ToMpi(dtype), ToMpi(op),
                                 MPI_COMM_WORLD),
                   "allreduce");
  }

  Status ReduceScatter(void* data, size_t count, DType dtype, ReduceOp op) override {
    RETURN_IF_ERROR(CheckType(dtype));
    // In place, MPI leaves the reduced block at the front of the buffer; it belongs at this rank's.
    RETURN_IF_ERROR(FromMpi(MPI_Reduce_scatter_block(MPI_IN_PLACE, data, static_cast<int>(count), ToMpi(dtype),
                                                     ToMpi(op), MPI_COMM_WORLD),
                            "reduce-scatter"));
    const size_t block = count * DTypeSize(dtype);
    if (rank_ != 0) std::memcpy(static_cast<std::byte*>(data) + rank_ * block, data, block);
    return Status::Ok();
  }

  Status AllGather(void* data, size_t count, DType dtype) override {
    RETURN_IF_ERROR(CheckType(dtype));
    return FromMpi(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, static_cast<int>(count), ToMpi(dtype),
                                 MPI_COMM_WORLD),
                   "all-gather");
  }

  Status Broadcast(void* data, size_t count, DType dtype, int root) override {
    RETURN_IF_ERROR(CheckType(dtype));
    return FromMpi(MPI_Bcast(data, static_cast<int>(count), ToMpi(dtype), root, MPI_COMM_WORLD), "broadcast");
  }

  // In place at the root; the others only send.
  Status Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) override {
    RETURN_IF_ERROR(CheckType(dtype));
    const bool is_root = rank_ == root;
    return FromMpi(MPI_Reduce(is_root ? MPI_IN_PLACE : data, is_root ? data : nullptr, static_cast<int>(count),
                              ToMpi(dtype), ToMpi(op), root, MPI_COMM_WORLD),
                   "reduce");
  }

  Status AllToAll(const void* send, void* receive, size_t count, DType dtype) override {
    RETURN_IF_ERROR(CheckType(dtype));
    return FromMpi(MPI_Alltoall(send, static_cast<int>(count), ToMpi(dtype), receive, static_cast<int>(count),
                                ToMpi(dtype), MPI_COMM_WORLD),
                   "alltoall");
  }

  Status Barrier() override { return FromMpi(MPI_Barrier(MPI_COMM_WORLD), "barrier"); }

  void AbortJob(int exit_code) override {
    if (world_size_ > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
  }

 private:
  Status CheckType(DType dtype) const {
    if (Supports(dtype)) return Status::Ok();
    return Status::Unimplemented(std::string("backend mpi cannot reduce ") + DTypeName(dtype));
  }

  int rank_;
  int world_size_;
  bool serialized_;  // MPI_THREAD_SERIALIZED or better: any one thread at a time may call
};

}  // namespace

bool LaunchedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_RANK") != nullptr || std::getenv("PMI_RANK") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

StatusOr<std::unique_ptr<Communicator>> ConnectMpi(int expected_world_size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return Status::FailedPrecondition("MPI is already initialised in this process");
  int provided = 0;
  // Serialized: overlapped gradient sync all-reduces from its own thread while the main thread
  // computes, never both calling MPI at once.
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    return Status::Unavailable("MPI_Init failed; backend mpi needs the ranks started by mpirun");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto communicator = std::make_unique<MpiCommunicator>(rank, size, provided >= MPI_THREAD_SERIALIZED);
  if (size != expected_world_size) {
    return Status::FailedPrecondition("mpirun started " + std::to_string(size) + " ranks but spec.workers is " +
                                      std::to_string(expected_world_size));
  }
  return std::unique_ptr<Communicator>(std::move(communicator));
}

std::string MpiLibraryVersion() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, length);
  return version.substr(0, version.find_first_of(",\n"));
}

}  // namespace ergobench
