// Where a model's forward lets a gradient sync act around each of its blocks: ZeRO stage 3
// (gradientSync sharded, zeroStage 3) gathers a block's parameters before the block runs and
// lets them go after; a hook on the block's output gathers them again when backward reaches
// it. A model that supports this also names its blocks' parameters. Only torch translation
// units include this.
#pragma once

#include <cstddef>

#include <ATen/core/Tensor.h>

namespace ergobench {

class BlockHooks {
 public:
  virtual ~BlockHooks() = default;
  // Block `block`'s parameters must be whole when this returns.
  virtual void BeforeBlock(size_t block) = 0;
  // After the block: returns `output`, with whatever backward needs to find the parameters
  // whole again.
  virtual at::Tensor AfterBlock(size_t block, at::Tensor output) = 0;
};

}  // namespace ergobench
