// The libsvm text format of epsilon and other LIBSVM data sets: one sample a line,
// "label index:value index:value ...", indices 1-based and increasing. Read into a sparse
// row layout; dense models take ToDense(). Labels -1/+1 and 0/1 both map to 0/1.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct SparseDataset {
  int64_t count = 0;
  int64_t features = 0;
  std::vector<int64_t> row_offsets = {0};  // count + 1 entries into indices/values
  std::vector<int32_t> indices;            // 0-based
  std::vector<float> values;
  std::vector<float> labels;  // 0 or 1

  // count × features, row-major.
  std::vector<float> ToDense() const;
};

// `features` 0 infers the width from the largest index; otherwise a larger index is an
// error. Errors name the file and line.
StatusOr<SparseDataset> ReadLibsvm(const std::string& path, int64_t features = 0);
StatusOr<SparseDataset> ParseLibsvm(std::istream& in, const std::string& source, int64_t features = 0);
StatusOr<SparseDataset> ParseLibsvm(const std::string& text, const std::string& source, int64_t features = 0);

}  // namespace ergobench
