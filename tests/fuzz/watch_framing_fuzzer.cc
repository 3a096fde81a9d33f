// Watch streams as the API server (or anything between) may send them: lines split across
// chunks anywhere, any bytes in them.
#include <cstdint>
#include <string_view>

#include "kube/client/watch_framing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t cut = size == 0 ? 0 : data[0] % (size + 1);  // the first byte picks a chunk boundary
  ergobench::kube::LineSplitter lines(1 << 16);
  auto on_line = [](std::string_view line) -> ergobench::Status {
    auto event = ergobench::kube::ParseWatchEvent(line);
    if (event.ok()) (void)ergobench::kube::EventResourceVersion(*event);
    return ergobench::Status::Ok();
  };
  if (lines.Feed(text.substr(0, cut), on_line).ok()) (void)lines.Feed(text.substr(cut), on_line);
  return 0;
}
