// An ImageNet-layout folder: one subfolder per class, named by its id (n01440764, ...), holding
// that class's JPEGs. Classes are numbered in the sorted order of their folder names, as
// torchvision's ImageFolder and every ImageNet reference number them, so labels agree with
// models trained elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct ImageFolder {
  std::vector<std::string> classes;  // sorted folder names; the label is the index
  std::vector<std::string> paths;    // sorted by class, then by file name
  std::vector<int32_t> labels;       // one per path
};

// Lists `dir`. `max_classes` is the model's head: a folder with more classes is an error
// naming `classes_field`, as is a folder without classes or without images.
StatusOr<ImageFolder> ListImageFolder(const std::string& dir, int64_t max_classes, const std::string& classes_field);

}  // namespace ergobench
