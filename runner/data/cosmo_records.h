// The CosmoFlow reference's samples as its preprocessed TFRecords hold them (mlcommons/hpc
// cosmoflow, data/cosmo.py): a data folder of train/ and validation/, each of *.tfrecord files
// (gzip'd, its `compression: GZIP`; one sample a file, or more), each record a tf.train.Example of
//
//   x: bytes_list of one value, the volume's int16 particle counts, little-endian, side^3 x
//      channels channels-last ([D][H][W][C], 128^3 x 4 in the reference's data)
//   y: float_list of the four scaled cosmological parameters
//
// Our model reads channels first ([C][D][H][W]): decoding transposes, encoding transposes back.
// The task reads log1p of the counts, as the reference's apply_log does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct CosmoVolume {
  int64_t side = 0;
  int64_t channels = 0;
  int64_t Values() const { return side * side * side * channels; }
};

inline constexpr int kCosmoParameters = 4;

// One record into `counts` (volume.Values(), channels first) and `parameters` (4). An error says
// what the record holds against what `volume` wants.
Status DecodeCosmoRecord(std::string_view record, const CosmoVolume& volume, int16_t* counts, float* parameters);
// `counts` channels first, as DecodeCosmoRecord gives them.
std::string EncodeCosmoRecord(const int16_t* counts, const float* parameters, const CosmoVolume& volume);

// The *.tfrecord files of `folder`, sorted by name as the reference's glob and sort; NotFound
// naming the folder when it is not one.
StatusOr<std::vector<std::string>> ListTfRecordFiles(const std::string& folder);

}  // namespace ergobench
