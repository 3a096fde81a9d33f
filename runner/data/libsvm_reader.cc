#include "runner/data/libsvm_reader.h"

#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runner/data/data_bytes.h"


namespace ergobench {
namespace {

// Splits off the next space-separated token of `line` starting at `*at`.
std::string_view NextToken(std::string_view line, size_t* at) {
  while (*at < line.size() && (line[*at] == ' ' || line[*at] == '\t')) ++*at;
  const size_t start = *at;
  while (*at < line.size() && line[*at] != ' ' && line[*at] != '\t') ++*at;
  return line.substr(start, *at - start);
}

bool ParseFloat(std::string_view text, float* out) {
  const std::string copy(text);  // strtof wants a terminated string
  char* end = nullptr;
  *out = std::strtof(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size() && std::isfinite(*out);
}

}  // namespace

std::vector<float> SparseDataset::ToDense() const {
  std::vector<float> dense(static_cast<size_t>(count * features), 0.0f);
  for (int64_t row = 0; row < count; ++row) {
    for (int64_t k = row_offsets[row]; k < row_offsets[row + 1]; ++k) {
      dense[static_cast<size_t>(row * features + indices[k])] = values[k];
    }
  }
  return dense;
}

// Streams line by line: epsilon's training set is 12 GB of text.
StatusOr<SparseDataset> ParseLibsvm(std::istream& in, const std::string& source, int64_t features) {
  SparseDataset data;
  int64_t max_index = 0;
  std::string buffer;
  for (int64_t line_number = 1; std::getline(in, buffer); ++line_number) {
    std::string_view line(buffer);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = source + ":" + std::to_string(line_number) + ": ";
    size_t at = 0;
    const std::string_view label_text = NextToken(line, &at);
    if (label_text.empty() || label_text[0] == '#') continue;
    float label = 0;
    if (!ParseFloat(label_text, &label) || (label != -1 && label != 0 && label != 1)) {
      return Status::InvalidArgument(where + "label \"" + std::string(label_text) + "\" is not -1, 0 or +1");
    }
    data.labels.push_back(label > 0 ? 1.0f : 0.0f);
    int64_t previous = 0;
    for (std::string_view token = NextToken(line, &at); !token.empty(); token = NextToken(line, &at)) {
      const size_t colon = token.find(':');
      int64_t index = 0;
      auto [end, error] = std::from_chars(token.data(), token.data() + (colon == std::string_view::npos ? 0 : colon), index);
      float value = 0;
      if (colon == std::string_view::npos || error != std::errc() || end != token.data() + colon ||
          !ParseFloat(token.substr(colon + 1), &value)) {
        return Status::InvalidArgument(where + "\"" + std::string(token) + "\" is not index:value");
      }
      if (index < 1) return Status::InvalidArgument(where + "feature index " + std::to_string(index) + " is not 1-based");
      if (index <= previous) {
        return Status::InvalidArgument(where + "feature index " + std::to_string(index) + " does not increase");
      }
      if (features > 0 && index > features) {
        return Status::InvalidArgument(where + "feature index " + std::to_string(index) + " exceeds " +
                                       std::to_string(features) + " features");
      }
      previous = index;
      max_index = std::max(max_index, index);
      data.indices.push_back(static_cast<int32_t>(index - 1));
      data.values.push_back(value);
    }
    data.row_offsets.push_back(static_cast<int64_t>(data.indices.size()));
    ++data.count;
  }
  if (data.count == 0) return Status::InvalidArgument(source + ": holds no samples");
  data.features = features > 0 ? features : max_index;
  return data;
}

StatusOr<SparseDataset> ParseLibsvm(const std::string& text, const std::string& source, int64_t features) {
  std::istringstream in(text);
  return ParseLibsvm(in, source, features);
}

StatusOr<SparseDataset> ReadLibsvm(const std::string& path, int64_t features) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  StatusOr<SparseDataset> dataset = ParseLibsvm(in, path, features);
  if (dataset.ok()) CountDataFile(path);  // read to its end
  return dataset;
}

}  // namespace ergobench
