// One ImageNet image as task resnet50 feeds it to the model, from its JPEG file to normalised
// CHW floats (image_transforms.h). Shared by the task and bench/jpeg_data_path, which measures
// how far ahead of training this keeps.
#pragma once

#include <string>

#include "base/status.h"
#include "runner/data/shard.h"

namespace ergobench {

// Training: the full-size image, torchvision's random resized crop and a flip drawn from
// `rng` (or the centre crop without `augment`), resampled to side × side.
Status FillTrainingSample(const std::string& path, int side, bool augment, SplitMix64 rng, float* out);

// Evaluation: decoded at no less than side / 0.875 on its shorter side (the reference's
// resize to 256), the centre crop resampled to side × side.
Status FillEvaluationSample(const std::string& path, int side, float* out);

}  // namespace ergobench
