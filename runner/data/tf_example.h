// tf.train.Example, the protocol buffer in each record of the CosmoFlow reference's TFRecords
// (tensorflow/core/example/example.proto and feature.proto):
//
//   Example   { Features features = 1; }
//   Features  { map<string, Feature> feature = 1; }    an entry: { string key = 1; Feature value = 2; }
//   Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }
//   FloatList { repeated float value = 1 [packed = true]; }
//   Int64List { repeated int64 value = 1 [packed = true]; }
//
// Read and written with protobuf's coded streams (libprotobuf-lite, which libtorch already
// needs): its varints, length limits and unknown-field skipping; the five messages' fields here,
// with protobuf's semantics: lists read packed or not, a repeated message merges, a map's later
// entry for a key and a oneof's later case win.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct TfFeature {
  enum class Kind { kNone, kBytes, kFloat, kInt64 };
  Kind kind = Kind::kNone;
  std::vector<std::string> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  bool operator==(const TfFeature&) const = default;
};

using TfFeatures = std::map<std::string, TfFeature>;

// An error names the message and field that is wrong ("tf.train.Example: features.feature[0].value.float_list: ...").
StatusOr<TfFeatures> DecodeTfExample(std::string_view bytes);
// Lists written packed, as TensorFlow writes them; entries in key order.
std::string EncodeTfExample(const TfFeatures& features);

}  // namespace ergobench
