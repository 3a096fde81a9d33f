// A digest of a model's final parameters: FNV-1a (64 bits) over their bytes, in order. Equal on
// every rank of a correct data-parallel run, and across backends whose reductions add in the
// same order (gloo and MPI over two ranks): a bit-exact check that two runs computed the same.
#pragma once

#include <string>
#include <vector>

namespace at {
class Tensor;
}

namespace ergobench {

// 16 lowercase hex digits.
std::string ParameterDigest(const std::vector<at::Tensor>& params);

}  // namespace ergobench
