#include "runner/data/imagenet_samples.h"

#include "runner/data/image_transforms.h"
#include "runner/data/jpeg_codec.h"

namespace ergobench {

Status FillTrainingSample(const std::string& path, int side, bool augment, SplitMix64 rng, float* out) {
  ASSIGN_OR_RETURN(const RgbImage image, DecodeJpegFile(path, 0));
  const CropBox box =
      augment ? RandomResizedCropBox(image.width, image.height, rng) : CenterCropBox(image.width, image.height);
  const bool flip = augment && rng.Below(2) == 1;
  ResampleCrop(image, box, side, flip, kImageNetNormalization, out);
  return Status::Ok();
}

Status FillEvaluationSample(const std::string& path, int side, float* out) {
  ASSIGN_OR_RETURN(const RgbImage image, DecodeJpegFile(path, static_cast<int>(side / 0.875)));
  ResampleCrop(image, CenterCropBox(image.width, image.height), side, false, kImageNetNormalization, out);
  return Status::Ok();
}

}  // namespace ergobench
