#include "runner/dist/tcp_store.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/units.h"

namespace ergobench {

std::string FirstLine(const char* what) {
  std::string text(what);
  return text.substr(0, text.find('\n'));
}

// The store's client gives up at once on some errors a cluster makes for a few seconds: a
// restarted rank 0's name resolves to nothing yet, or to its old address (no route to host).
// Other ranks try again, a second apart, until the rendezvous deadline.
StatusOr<c10::intrusive_ptr<c10d::TCPStore>> ConnectStore(const RendezvousOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(options.master_port);
  store_options.isServer = options.rank == 0;
  store_options.numWorkers = options.world_size;
  store_options.waitWorkers = true;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    store_options.timeout = std::max(left, std::chrono::milliseconds(1));
    try {
      return c10::make_intrusive<c10d::TCPStore>(options.master_addr, store_options);
    } catch (const std::exception& e) {
      if (options.rank == 0 || std::chrono::steady_clock::now() + std::chrono::seconds(1) >= deadline) {
        return Status::DeadlineExceeded("rendezvous with MASTER_ADDR:MASTER_PORT=" + options.master_addr + ":" +
                                        std::to_string(options.master_port) + " failed within " +
                                        FormatSeconds(options.timeout.count() / 1000.0) + ": " + FirstLine(e.what()));
      }
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace ergobench
