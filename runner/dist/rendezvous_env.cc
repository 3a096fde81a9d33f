#include "runner/dist/rendezvous_env.h"

#include <charconv>
#include <cstdlib>

#include "api/contract/runner_invocation.h"

namespace ergobench {
namespace {

StatusOr<int> ParseInt(const EnvLookup& env, const std::string& name, int min, int max) {
  std::optional<std::string> text = env(name);
  if (!text) return Status::InvalidArgument(name + " is not set");
  int value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    return Status::InvalidArgument(name + " must be an integer between " + std::to_string(min) + " and " +
                                   std::to_string(max) + ", got \"" + *text + "\"");
  }
  return value;
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

StatusOr<RendezvousOptions> RendezvousFromEnv(const EnvLookup& env) {
  using E = RendezvousEnv;
  RendezvousOptions options;
  if (!env(E::kRank) && !env(E::kWorldSize) && !env(E::kMasterAddr) && !env(E::kMasterPort)) {
    options.master_addr = "127.0.0.1";
    options.bind_address = "127.0.0.1";
    return options;
  }
  ASSIGN_OR_RETURN(options.world_size, ParseInt(env, E::kWorldSize, 1, 1 << 20));
  ASSIGN_OR_RETURN(options.rank, ParseInt(env, E::kRank, 0, options.world_size - 1));
  std::optional<std::string> master = env(E::kMasterAddr);
  if (!master || master->empty()) return Status::InvalidArgument(std::string(E::kMasterAddr).append(" is not set"));
  options.master_addr = *master;
  ASSIGN_OR_RETURN(options.master_port, ParseInt(env, E::kMasterPort, 1, 65535));
  return options;
}

int LocalRank(const EnvLookup& env) {
  for (const char* name : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"}) {
    const std::optional<std::string> value = env(name);
    if (!value) continue;
    char* end = nullptr;
    const long rank = std::strtol(value->c_str(), &end, 10);
    if (end != value->c_str() && *end == '\0' && rank >= 0 && rank < 1 << 20) return static_cast<int>(rank);
  }
  return 0;
}

}  // namespace ergobench
