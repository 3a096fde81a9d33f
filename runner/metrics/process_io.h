// The kernel's I/O accounting of this process (/proc/self/io): what it fetched from storage,
// below the page cache, for IoFigures' storage bytes. The text is the kernel's, but parsed as
// any input: bounded, every number checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ergobench {

// The "read_bytes: N" line of /proc/<pid>/io; an error naming the line where the text has
// none, or it is not a count.
StatusOr<int64_t> ParseStorageReadBytes(std::string_view text);

// This process's, now; none where the kernel keeps no I/O accounting (or /proc is not there).
std::optional<int64_t> StorageReadBytes(const std::string& path = "/proc/self/io");

}  // namespace ergobench
