#include "runner/train/parameter_digest.h"

#include <torch/torch.h>

#include <cstdio>

namespace ergobench {

std::string ParameterDigest(const std::vector<at::Tensor>& params) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  for (const torch::Tensor& p : params) {
    // On the host: a GPU's parameters are not memory this process can read.
    const torch::Tensor contiguous = p.detach().to(torch::kCPU).contiguous();
    const auto* bytes = static_cast<const unsigned char*>(contiguous.data_ptr());
    for (size_t i = 0; i < static_cast<size_t>(contiguous.nbytes()); ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace ergobench
