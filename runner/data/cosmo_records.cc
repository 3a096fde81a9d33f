#include "runner/data/cosmo_records.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>

#include "runner/data/tf_example.h"

namespace ergobench {
namespace {

static_assert(std::endian::native == std::endian::little, "x's int16 counts are little-endian, as the host's");

std::string Shape(const CosmoVolume& volume) {
  return std::to_string(volume.channels) + " x " + std::to_string(volume.side) + "^3";
}

// Calls copy(channels-last index, channels-first index) for every value of the volume.
template <typename Copy>
void ForEachValue(const CosmoVolume& volume, Copy&& copy) {
  const int64_t cells = volume.side * volume.side * volume.side, channels = volume.channels;
  for (int64_t cell = 0; cell < cells; ++cell) {
    for (int64_t c = 0; c < channels; ++c) copy(cell * channels + c, c * cells + cell);
  }
}

}  // namespace

Status DecodeCosmoRecord(std::string_view record, const CosmoVolume& volume, int16_t* counts, float* parameters) {
  ASSIGN_OR_RETURN(TfFeatures features, DecodeTfExample(record));
  const auto x = features.find("x");
  if (x == features.end() || x->second.kind != TfFeature::Kind::kBytes || x->second.bytes.size() != 1) {
    return Status::InvalidArgument("feature x: want one bytes value, the volume's int16 counts");
  }
  const std::string& bytes = x->second.bytes[0];
  const int64_t want = volume.Values() * static_cast<int64_t>(sizeof(int16_t));
  if (static_cast<int64_t>(bytes.size()) != want) {
    return Status::InvalidArgument("feature x: " + std::to_string(bytes.size()) + " bytes, " +
                                   std::to_string(bytes.size() / 2) + " counts; the model wants " + Shape(volume) +
                                   " = " + std::to_string(volume.Values()));
  }
  const auto y = features.find("y");
  if (y == features.end() || y->second.kind != TfFeature::Kind::kFloat ||
      y->second.floats.size() != static_cast<size_t>(kCosmoParameters)) {
    return Status::InvalidArgument("feature y: want a float list of the " + std::to_string(kCosmoParameters) +
                                   " parameters");
  }
  // Straight from x's bytes, which hold no alignment for int16.
  ForEachValue(volume, [&](int64_t last, int64_t first) { std::memcpy(&counts[first], &bytes[2 * last], 2); });
  std::copy(y->second.floats.begin(), y->second.floats.end(), parameters);
  return Status::Ok();
}

std::string EncodeCosmoRecord(const int16_t* counts, const float* parameters, const CosmoVolume& volume) {
  std::string x(static_cast<size_t>(volume.Values()) * 2, '\0');
  ForEachValue(volume, [&](int64_t last, int64_t first) { std::memcpy(&x[2 * last], &counts[first], 2); });
  TfFeatures features;
  features["x"] = {TfFeature::Kind::kBytes, {std::move(x)}, {}, {}};
  features["y"] = {TfFeature::Kind::kFloat, {}, std::vector<float>(parameters, parameters + kCosmoParameters), {}};
  return EncodeTfExample(features);
}

StatusOr<std::vector<std::string>> ListTfRecordFiles(const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return Status::NotFound(folder + ": not a folder");
  std::vector<std::string> files;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".tfrecord" && it->is_regular_file(error)) files.push_back(it->path().string());
  }
  if (error) return Status::NotFound(folder + ": cannot list: " + error.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace ergobench
