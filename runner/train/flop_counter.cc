#include "runner/train/flop_counter.h"

#include <cstring>
#include <memory>

#include <ATen/record_function.h>
#include <torch/torch.h>

namespace ergobench {
namespace {

struct Counting {
  double flops = 0;
  int depth = 0;  // counted ops open on this thread
};
thread_local Counting* t_counting = nullptr;

// Marks a counted op that is open, for the end callback.
struct Open : at::ObserverContext {};

std::vector<int64_t> Sizes(const c10::IValue& v) {
  return v.isTensor() ? v.toTensor().sizes().vec() : std::vector<int64_t>();
}
std::vector<int64_t> Ints(const c10::IValue& v) { return v.isIntList() ? v.toIntVector() : std::vector<int64_t>(); }

double Product(const std::vector<int64_t>& sizes, size_t from = 0) {
  double p = 1;
  for (size_t i = from; i < sizes.size(); ++i) p *= static_cast<double>(sizes[i]);
  return p;
}

// The FLOPs of `name` called with `in`; 0 for an op that is not counted.
double OpFlops(const char* name, c10::ArrayRef<const c10::IValue> in) {
  auto is = [name](const char* op) { return std::strcmp(name, op) == 0; };
  if (is("aten::mm") && in.size() >= 2) {  // [m, k] x [k, n]
    const auto a = Sizes(in[0]), b = Sizes(in[1]);
    return a.size() == 2 && b.size() == 2 ? 2 * Product(a) * static_cast<double>(b[1]) : 0;
  }
  if ((is("aten::addmm") || is("aten::bmm") || is("aten::baddbmm")) && in.size() >= 2) {
    const bool added = !is("aten::bmm");  // addmm(bias, a, b), baddbmm(bias, a, b)
    const auto a = Sizes(in[added ? 1 : 0]), b = Sizes(in[added ? 2 : 1]);
    return !a.empty() && a.size() == b.size() ? 2 * Product(a) * static_cast<double>(b.back()) : 0;
  }
  if ((is("aten::mv") || is("aten::addmv")) && in.size() >= 2) {
    return 2 * Product(Sizes(in[is("aten::mv") ? 0 : 1]));
  }
  if (is("aten::convolution") && in.size() >= 9) {
    return ConvolutionFlops(Sizes(in[0]), Sizes(in[1]), Ints(in[3]), Ints(in[4]), Ints(in[5]), in[6].isBool() && in[6].toBool(),
                            in[8].isInt() ? in[8].toInt() : 1);
  }
  return 0;
}

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  Counting* c = t_counting;
  if (c == nullptr) return nullptr;
  const double flops = OpFlops(fn.name(), fn.inputs());
  if (flops <= 0) return nullptr;
  if (c->depth++ == 0) c->flops += flops;
  return std::make_unique<Open>();
}

void OnEnd(const at::RecordFunction&, at::ObserverContext* open) {
  if (open != nullptr && t_counting != nullptr) --t_counting->depth;
}

thread_local at::CallbackHandle t_handle = 0;
thread_local Counting t_state;

}  // namespace

double ConvolutionFlops(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
                        const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                        const std::vector<int64_t>& dilation, bool transposed, int64_t groups) {
  const size_t dims = weight.size() >= 3 ? weight.size() - 2 : 0;  // spatial
  if (dims == 0 || input.size() != weight.size() || groups < 1) return 0;
  auto at = [](const std::vector<int64_t>& v, size_t i, int64_t otherwise) {
    return v.empty() ? otherwise : v[std::min(i, v.size() - 1)];
  };
  const double kernel = Product(weight, 2);
  if (transposed) {  // weight [in, out / groups, k...]: each input element spreads over the kernel
    return 2 * Product(input) * static_cast<double>(weight[1]) * kernel;
  }
  double out_elements = static_cast<double>(input[0]) * static_cast<double>(weight[0]);
  for (size_t d = 0; d < dims; ++d) {
    const int64_t extent = input[2 + d] + 2 * at(padding, d, 0) - at(dilation, d, 1) * (weight[2 + d] - 1) - 1;
    out_elements *= static_cast<double>(extent / at(stride, d, 1) + 1);
  }
  return 2 * out_elements * static_cast<double>(weight[1]) * kernel;  // weight [out, in / groups, k...]
}

FlopCounter::FlopCounter() {
  t_state = Counting{};
  t_counting = &t_state;
  t_handle = at::addThreadLocalCallback(at::RecordFunctionCallback(OnStart, OnEnd).needsInputs(true));
}

FlopCounter::~FlopCounter() {
  at::removeCallback(t_handle);
  t_counting = nullptr;
}

double FlopCounter::flops() const { return t_state.flops; }

}  // namespace ergobench
