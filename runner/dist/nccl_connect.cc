#include "runner/dist/nccl_connect.h"

#include "runner/cuda/cuda_runtime.h"
#include "runner/cuda/nccl_communicator.h"
#include "runner/dist/rendezvous_env.h"
#include "runner/dist/tcp_store.h"

namespace ergobench {
namespace {

constexpr const char* kUniqueIdKey = "ergobench/nccl/unique-id";

}  // namespace

StatusOr<std::unique_ptr<Communicator>> ConnectNcclRanks(const RendezvousOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<DeviceRuntime> device, OpenCudaRuntime(LocalRank(ProcessEnv())));
  ASSIGN_OR_RETURN(std::shared_ptr<NcclLibrary> nccl, NcclLibrary::Load());
  NcclRendezvous rendezvous;
  rendezvous.rank = options.rank;
  rendezvous.world_size = options.world_size;
  rendezvous.collective_timeout = options.collective_timeout;
  // The store lives until every rank has the id: ncclCommInitRank returns on no rank before all
  // have called it, so it may go once ConnectNccl returns.
  c10::intrusive_ptr<c10d::TCPStore> store;
  if (options.world_size > 1) {
    ASSIGN_OR_RETURN(store, ConnectStore(options));
    rendezvous.publish = [&store](const std::string& id) -> Status {
      try {
        store->set(kUniqueIdKey, std::vector<uint8_t>(id.begin(), id.end()));
        return Status::Ok();
      } catch (const std::exception& e) {
        return Status::Unavailable(std::string("backend nccl: publishing the unique id failed: ") + FirstLine(e.what()));
      }
    };
    rendezvous.fetch = [&store]() -> StatusOr<std::string> {
      try {
        const std::vector<uint8_t> id = store->get(kUniqueIdKey);
        return std::string(id.begin(), id.end());
      } catch (const std::exception& e) {
        return Status::DeadlineExceeded(std::string("backend nccl: rank 0's unique id did not come: ") +
                                        FirstLine(e.what()));
      }
    };
  }
  return ConnectNccl(std::move(nccl), std::move(device), rendezvous);
}

}  // namespace ergobench
