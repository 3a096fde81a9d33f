// Autocast to bf16 on the CPU for the forward pass (precision bf16 of the transformer tasks);
// a no-op at fp32. Only torch translation units include this header.
#pragma once

#include <ATen/autocast_mode.h>

namespace ergobench {

class CpuAutocast {
 public:
  explicit CpuAutocast(bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(true);
  }
  ~CpuAutocast() {
    if (!enabled_) return;
    at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
  }
  CpuAutocast(const CpuAutocast&) = delete;
  CpuAutocast& operator=(const CpuAutocast&) = delete;

 private:
  bool enabled_;
};

}  // namespace ergobench
