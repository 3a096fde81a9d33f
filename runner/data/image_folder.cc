#include "runner/data/image_folder.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

bool IsJpegName(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpeg" || ext == ".jpg";
}

// Sorted entries of `dir` that pass `keep`.
std::vector<fs::path> SortedEntries(const fs::path& dir, bool (*keep)(const fs::directory_entry&), std::error_code* error) {
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, *error), end; !*error && it != end; it.increment(*error)) {
    if (keep(*it)) entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

}  // namespace

StatusOr<ImageFolder> ListImageFolder(const std::string& dir, int64_t max_classes, const std::string& classes_field) {
  std::error_code error;
  const std::vector<fs::path> class_dirs =
      SortedEntries(dir, [](const fs::directory_entry& e) { return e.is_directory(); }, &error);
  if (error) return Status::NotFound(dir + ": cannot list: " + error.message());
  if (class_dirs.empty()) return Status::InvalidArgument(dir + ": holds no class folders (expected <class>/<image>.JPEG)");
  if (static_cast<int64_t>(class_dirs.size()) > max_classes) {
    return Status::InvalidArgument(classes_field + ": " + std::to_string(max_classes) + ", but " + dir + " holds " +
                                   std::to_string(class_dirs.size()) + " class folders");
  }
  ImageFolder folder;
  for (const fs::path& class_dir : class_dirs) {
    const std::vector<fs::path> files = SortedEntries(
        class_dir, [](const fs::directory_entry& e) { return e.is_regular_file() && IsJpegName(e.path()); }, &error);
    if (error) return Status::NotFound(class_dir.string() + ": cannot list: " + error.message());
    const int32_t label = static_cast<int32_t>(folder.classes.size());
    folder.classes.push_back(class_dir.filename().string());
    for (const fs::path& file : files) {
      folder.paths.push_back(file.string());
      folder.labels.push_back(label);
    }
  }
  if (folder.paths.empty()) return Status::InvalidArgument(dir + ": its class folders hold no .JPEG or .jpg files");
  return folder;
}

}  // namespace ergobench
