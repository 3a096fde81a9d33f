// Counts the FLOPs of the matrix products and convolutions the calling thread dispatches while
// a FlopCounter lives, from each call's argument shapes, through ATen's RecordFunction
// callbacks: what a model's layers compute, whichever module built them (a Linear's addmm or
// matmul, attention's bmm, an LSTM's gates, a convolution of any rank). A multiply-add is 2
// FLOPs. Elementwise work (activations, normalization, the loss) is not counted, as model
// FLOPs for MFU leave it out. An op that calls another counted one (autocast's wrappers call
// the same op again) is counted once, at the outermost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ergobench {

class FlopCounter {
 public:
  FlopCounter();
  ~FlopCounter();
  FlopCounter(const FlopCounter&) = delete;
  FlopCounter& operator=(const FlopCounter&) = delete;

  double flops() const;
};

// The FLOPs of a convolution (aten::convolution's arguments): 2 x every output element x the
// input channels of its group x the kernel's size; transposed, 2 x every input element x the
// output channels of its group x the kernel's size.
double ConvolutionFlops(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
                        const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                        const std::vector<int64_t>& dilation, bool transposed, int64_t groups);

}  // namespace ergobench
