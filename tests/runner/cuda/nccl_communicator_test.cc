#include "runner/cuda/nccl_communicator.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <mutex>
#include <set>

#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/progress_writer.h"
#include "runner/tasks/allreduce_sweep.h"
#include "tests/testing/sharded_collectives.h"
#include "tests/testing/test_paths.h"

namespace ergobench {
namespace {

// A DeviceRuntime on host memory: what it allocates is its "device" memory; it counts the
// copies the communicator makes, and its stream can be made to never finish.
class HostRuntime : public DeviceRuntime {
 public:
  std::string Describe() const override { return "host memory"; }
  int device() const override { return 0; }
  StatusOr<void*> Allocate(size_t bytes) override {
    void* p = std::malloc(std::max<size_t>(bytes, 1));
    std::lock_guard<std::mutex> lock(mutex_);
    allocated_.insert(p);
    return p;
  }
  void Free(void* p) override {
    std::lock_guard<std::mutex> lock(mutex_);
    allocated_.erase(p);
    std::free(p);
  }
  Status CopyToDevice(void* to, const void* from, size_t bytes) override {
    ++copies_to_device;
    std::memcpy(to, from, bytes);
    return Status::Ok();
  }
  Status CopyToHost(void* to, const void* from, size_t bytes) override {
    std::memcpy(to, from, bytes);
    return Status::Ok();
  }
  bool IsDeviceMemory(const void* p) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocated_.count(const_cast<void*>(p)) > 0;
  }
  void* stream() override { return nullptr; }
  StatusOr<bool> StreamDone() override { return !stuck; }

  std::atomic<int> copies_to_device{0};
  std::atomic<bool> stuck{false};  // a collective that never finishes, as behind a dead peer

 private:
  mutable std::mutex mutex_;
  std::set<void*> allocated_;
};

std::shared_ptr<NcclLibrary> FakeNccl() {
  StatusOr<std::shared_ptr<NcclLibrary>> nccl = NcclLibrary::Load(testing::kFakeNcclPath);
  EXPECT_TRUE(nccl.ok()) << nccl.status().ToString();
  return nccl.ok() ? *nccl : nullptr;
}

// The fake's test control: the error every ncclCommGetAsyncError reports.
void SetAsyncError(ncclResult_t error) {
  void* handle = dlopen(testing::kFakeNcclPath, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  auto set = reinterpret_cast<void (*)(ncclResult_t)>(dlsym(handle, "fake_nccl_set_async_error"));
  ASSERT_NE(set, nullptr);
  set(error);
  dlclose(handle);
}

// Rank 0's unique id handed to the others, as the TCPStore does between processes.
struct IdExchange {
  std::promise<std::string> id;
  std::shared_future<std::string> published = id.get_future().share();
};

// Each rank's status from `body`, the ranks as threads joined by the fake NCCL; `device`
// sees each rank's runtime before it connects.
std::vector<Status> OnNcclRanks(int world_size, const std::function<Status(Communicator&, HostRuntime&)>& body,
                                std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  std::shared_ptr<NcclLibrary> nccl = FakeNccl();
  if (!nccl) return {Status::Internal("no fake NCCL")};
  IdExchange exchange;
  std::vector<std::future<Status>> ranks;
  for (int rank = 0; rank < world_size; ++rank) {
    ranks.push_back(std::async(std::launch::async, [&, rank] {
      auto runtime = std::make_unique<HostRuntime>();
      HostRuntime& device = *runtime;
      NcclRendezvous rendezvous;
      rendezvous.rank = rank;
      rendezvous.world_size = world_size;
      rendezvous.collective_timeout = timeout;
      rendezvous.publish = [&](const std::string& id) {
        exchange.id.set_value(id);
        return Status::Ok();
      };
      rendezvous.fetch = [&]() -> StatusOr<std::string> { return exchange.published.get(); };
      StatusOr<std::unique_ptr<Communicator>> comm = ConnectNccl(nccl, std::move(runtime), rendezvous);
      if (!comm.ok()) return comm.status();
      return body(**comm, device);
    }));
  }
  std::vector<Status> statuses;
  for (auto& r : ranks) statuses.push_back(r.get());
  return statuses;
}

void ExpectAllOk(const std::vector<Status>& statuses) {
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(NcclCommunicatorTest, AllReduceOfHostBuffersIsStagedThroughTheDevice) {
  ExpectAllOk(OnNcclRanks(3, [](Communicator& comm, HostRuntime& device) -> Status {
    EXPECT_STREQ(comm.backend(), "nccl");
    EXPECT_EQ(comm.world_size(), 3);
    EXPECT_EQ(comm.LibraryVersion(), "nccl 2.28.9 on host memory");
    std::vector<float> sum = {1.0f * (comm.rank() + 1), 10.0f};
    RETURN_IF_ERROR(comm.AllReduce(sum.data(), sum.size(), DType::kFloat32, ReduceOp::kSum));
    EXPECT_EQ(sum, (std::vector<float>{6.0f, 30.0f}));
    EXPECT_EQ(device.copies_to_device.load(), 1) << "host bytes go to the device once, and back";
    double max = comm.rank();
    RETURN_IF_ERROR(comm.AllReduce(&max, 1, DType::kFloat64, ReduceOp::kMax));
    EXPECT_EQ(max, 2.0);
    int64_t min = 5 + comm.rank();
    RETURN_IF_ERROR(comm.AllReduce(&min, 1, DType::kInt64, ReduceOp::kMin));
    EXPECT_EQ(min, 5);
    return comm.Barrier();
  }));
}

TEST(NcclCommunicatorTest, DeviceBuffersGoToNcclAsTheyAre) {
  ExpectAllOk(OnNcclRanks(2, [](Communicator& comm, HostRuntime& device) -> Status {
    constexpr size_t kCount = 1001;
    ASSIGN_OR_RETURN(std::unique_ptr<CollectiveBuffer> buffer, comm.AllocateBuffer(kCount * sizeof(float)));
    EXPECT_TRUE(device.IsDeviceMemory(buffer->data()));
    std::vector<float> host(kCount);
    FillInput(host.data(), kCount, DType::kFloat32, comm.rank());
    RETURN_IF_ERROR(buffer->CopyFromHost(host.data(), host.size() * sizeof(float)));
    const int copies = device.copies_to_device.load();
    RETURN_IF_ERROR(comm.AllReduce(buffer->data(), kCount, DType::kFloat32, ReduceOp::kSum));
    EXPECT_EQ(device.copies_to_device.load(), copies) << "no staging for the device's own memory";
    RETURN_IF_ERROR(buffer->CopyToHost(host.data(), host.size() * sizeof(float)));
    EXPECT_EQ(FirstMismatch(host.data(), kCount, DType::kFloat32, 2), -1);
    return Status::Ok();
  }));
}

// The same contract as gloo's and MPI's: in place, block r of a buffer of world_size blocks.
TEST(NcclCommunicatorTest, ReduceScatterAndAllGatherOverOneToFourRanks) {
  for (int ranks : {1, 2, 3, 4}) {
    for (size_t count : {size_t{1}, size_t{1001}}) {
      const auto statuses = OnNcclRanks(ranks, [count](Communicator& comm, HostRuntime&) {
        return testing::CheckReduceScatterAndAllGather(comm, count);
      });
      for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << ranks << " ranks: " << s.ToString();
    }
  }
}

TEST(NcclCommunicatorTest, ReduceAndAllToAllOverOneToFourRanks) {
  for (int ranks : {1, 2, 3, 4}) {
    const auto statuses = OnNcclRanks(ranks, [](Communicator& comm, HostRuntime&) {
      return testing::CheckReduceAndAllToAll(comm, 1001);
    });
    for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << ranks << " ranks: " << s.ToString();
  }
}

TEST(NcclCommunicatorTest, BroadcastFromAnyRoot) {
  ExpectAllOk(OnNcclRanks(3, [](Communicator& comm, HostRuntime&) -> Status {
    std::vector<double> values = comm.rank() == 2 ? std::vector<double>{3.5, -1} : std::vector<double>{0, 0};
    RETURN_IF_ERROR(comm.Broadcast(values.data(), values.size(), DType::kFloat64, 2));
    EXPECT_EQ(values, (std::vector<double>{3.5, -1}));
    const Status bad_root = comm.Broadcast(values.data(), values.size(), DType::kFloat64, 3);
    EXPECT_EQ(bad_root.message(), "broadcast root 3");
    return Status::Ok();
  }));
}

TEST(NcclCommunicatorTest, AnUnsupportedTypeSurfacesNcclsError) {
  // The fake, unlike NCCL, has no float16: its refusal shows how an NCCL error reads.
  ExpectAllOk(OnNcclRanks(1, [](Communicator& comm, HostRuntime&) -> Status {
    uint16_t half = 0;
    const Status s = comm.AllReduce(&half, 1, DType::kFloat16, ReduceOp::kSum);
    EXPECT_EQ(s.code(), StatusCode::kUnavailable);
    EXPECT_EQ(s.message(), "ncclAllReduce: invalid argument (run with NCCL_DEBUG=WARN for details) (fake NCCL)");
    return Status::Ok();
  }));
}

TEST(NcclCommunicatorTest, AnAsynchronousErrorAbortsTheCommunicator) {
  ExpectAllOk(OnNcclRanks(1, [](Communicator& comm, HostRuntime& device) -> Status {
    device.stuck = true;  // the collective is queued but never finishes ...
    SetAsyncError(ncclRemoteError);  // ... because a peer died
    float x = 1;
    const Status s = comm.AllReduce(&x, 1, DType::kFloat32, ReduceOp::kSum);
    SetAsyncError(ncclSuccess);
    EXPECT_EQ(s.code(), StatusCode::kUnavailable);
    EXPECT_EQ(s.message(), "ncclAllReduce: remote process exited or there was a network error (fake NCCL)");
    const Status after = comm.Barrier();
    EXPECT_EQ(after.code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(after.message(), "ncclAllReduce (barrier): the communicator was aborted");
    return Status::Ok();
  }));
}

TEST(NcclCommunicatorMeasureTest, ACollectiveThatNeverFinishesEndsAtTheTimeout) {
  const auto timeout = std::chrono::milliseconds(200);
  ExpectAllOk(OnNcclRanks(
      1,
      [timeout](Communicator& comm, HostRuntime& device) -> Status {
        device.stuck = true;
        float x = 1;
        const auto start = std::chrono::steady_clock::now();
        const Status s = comm.AllReduce(&x, 1, DType::kFloat32, ReduceOp::kSum);
        const auto waited = std::chrono::steady_clock::now() - start;
        EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
        EXPECT_EQ(s.message(), "ncclAllReduce did not finish within 200.00 ms (spec's collective timeout); the "
                               "communicator was aborted");
        EXPECT_GE(waited, timeout);
        return Status::Ok();
      },
      timeout));
}

// Every collective of task 0a on GPU buffers, each result checked on the host.
TEST(NcclCommunicatorTest, EveryCollectiveOfTheSweepRunsOnDeviceBuffers) {
  for (const char* collective : {"all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall"}) {
    Benchmark benchmark;
    benchmark.metadata.name = "nccl-sweep";
    benchmark.spec.task = "0a";
    benchmark.spec.hyperparameters = {{"dtype", "float32"}, {"minElements", 1},   {"maxElements", 3000},
                                      {"sizes", 3},         {"warmup", 1},        {"repetitions", 2},
                                      {"collective", collective}};
    std::vector<TaskOutcome> outcomes(3);
    const auto statuses = OnNcclRanks(3, [&](Communicator& comm, HostRuntime&) -> Status {
      RunnerMetrics metrics(MetricLabels{"nccl-sweep", "0a", "nccl", comm.rank(), 3});
      ProgressWriter progress("", comm.rank());
      MlLog mllog("");
      TaskContext context{benchmark, comm, metrics, progress, "", mllog};
      ASSIGN_OR_RETURN(outcomes[static_cast<size_t>(comm.rank())], NewAllreduceSweepTask()->Run(context));
      return Status::Ok();
    });
    for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << collective << ": " << s.ToString();
    EXPECT_EQ(outcomes[0].figures.allreduce->collective, collective);
    EXPECT_EQ(outcomes[0].summary.rfind(std::string(collective) + ", 3 sizes of float32", 0), 0u) << outcomes[0].summary;
  }
}

// Task 0a on GPU buffers: filled and checked through host copies, every sum verified.
TEST(NcclCommunicatorTest, TheAllReduceSweepRunsOnDeviceBuffers) {
  Benchmark benchmark;
  benchmark.metadata.name = "nccl-sweep";
  benchmark.spec.task = "0a";
  benchmark.spec.hyperparameters = {{"dtype", "float32"}, {"minElements", 1}, {"maxElements", 100000},
                                    {"sizes", 3}, {"warmup", 1}, {"repetitions", 4}, {"collective", "all_reduce"}};
  std::vector<TaskOutcome> outcomes(2);
  ExpectAllOk(OnNcclRanks(2, [&](Communicator& comm, HostRuntime& device) -> Status {
    RunnerMetrics metrics(MetricLabels{"nccl-sweep", "0a", "nccl", comm.rank(), 2});
    ProgressWriter progress("", comm.rank());
    MlLog mllog("");
    TaskContext context{benchmark, comm, metrics, progress, "", mllog};
    ASSIGN_OR_RETURN(outcomes[static_cast<size_t>(comm.rank())], NewAllreduceSweepTask()->Run(context));
    // Per size: the ranks' agreement to go on and the timings' maximum (host values, staged),
    // the input, and the input refilled after each of the 5 all-reduces. Barriers copy nothing.
    EXPECT_EQ(device.copies_to_device.load(), 3 * (1 + 1 + 1 + 5));
    return Status::Ok();
  }));
  for (const TaskOutcome& outcome : outcomes) {
    ASSERT_TRUE(outcome.figures.allreduce.has_value());
    EXPECT_EQ(outcome.figures.allreduce->sizes, 3);
    EXPECT_NE(outcome.summary.find("all sums correct"), std::string::npos) << outcome.summary;
  }
}

TEST(NcclCommunicatorTest, AUniqueIdOfTheWrongSizeIsRefused) {
  std::shared_ptr<NcclLibrary> nccl = FakeNccl();
  ASSERT_NE(nccl, nullptr);
  NcclRendezvous rendezvous;
  rendezvous.rank = 1;
  rendezvous.world_size = 2;
  rendezvous.fetch = []() -> StatusOr<std::string> { return std::string("short"); };
  const StatusOr<std::unique_ptr<Communicator>> comm = ConnectNccl(nccl, std::make_unique<HostRuntime>(), rendezvous);
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().message(), "backend nccl: rank 0 published a unique id of 5 bytes, not 128");
}

}  // namespace
}  // namespace ergobench
