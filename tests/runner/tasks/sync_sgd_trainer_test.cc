// The trainer's gradient averaging against plain single-process autograd: k ranks, each on
// its slice of a batch, all-reduced over the real gloo backend and averaged, must give the
// gradient of the whole batch (up to float rounding).
#include "runner/tasks/sync_sgd_trainer.h"

#include <gtest/gtest.h>

#include "runner/models/models.h"
#include "tests/testing/loopback_ranks.h"

namespace ergobench {
namespace {

std::vector<torch::Tensor> Gradients(SmallCnn& model) {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& p : model->parameters()) grads.push_back(p.grad().clone());
  return grads;
}

void ExpectAveragedGradientsMatchSingleProcess(int world_size) {
  constexpr int64_t kBatch = 8;
  torch::manual_seed(11);
  const torch::Tensor inputs = torch::randn({kBatch, 1, 28, 28});
  const torch::Tensor labels = torch::randint(0, 10, {kBatch});

  // Identical initial weights everywhere: the generator is global, so build them here.
  std::vector<SmallCnn> models;
  for (int i = 0; i <= world_size; ++i) {
    torch::manual_seed(3);
    models.emplace_back(10);
  }
  SmallCnn& single = models.back();
  torch::nn::functional::cross_entropy(single->forward(inputs), labels).backward();
  const std::vector<torch::Tensor> expected = Gradients(single);

  const int64_t per_rank = kBatch / world_size;
  std::vector<Status> statuses = OnLoopbackRanks(world_size, [&](Communicator& comm) -> Status {
    SmallCnn& model = models[static_cast<size_t>(comm.rank())];
    const torch::Tensor x = inputs.slice(0, comm.rank() * per_rank, (comm.rank() + 1) * per_rank);
    const torch::Tensor y = labels.slice(0, comm.rank() * per_rank, (comm.rank() + 1) * per_rank);
    torch::nn::functional::cross_entropy(model->forward(x), y).backward();
    GradientBuffer buffer(model->parameters());
    buffer.Pack();
    RETURN_IF_ERROR(comm.AllReduce(buffer.data(), buffer.size(), DType::kFloat32, ReduceOp::kSum));
    buffer.UnpackAveraged(world_size);
    return Status::Ok();
  });
  for (const Status& s : statuses) ASSERT_TRUE(s.ok()) << s.ToString();
  for (int rank = 0; rank < world_size; ++rank) {
    const std::vector<torch::Tensor> got = Gradients(models[static_cast<size_t>(rank)]);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(torch::allclose(got[i], expected[i], /*rtol=*/1e-4, /*atol=*/1e-6))
          << "rank " << rank << ", parameter " << i << ": max difference "
          << (got[i] - expected[i]).abs().max().item<float>();
    }
  }
}

TEST(GradientBufferTest, TwoRanksMatchOneProcess) { ExpectAveragedGradientsMatchSingleProcess(2); }
TEST(GradientBufferTest, FourRanksMatchOneProcess) { ExpectAveragedGradientsMatchSingleProcess(4); }

TEST(SgdRecipeTest, ReadsTheDefaultedSpec) {
  BenchmarkSpec spec;
  spec.hyperparameters = {{"batchSize", 128}, {"learningRate", 0.02}, {"momentum", 0.9}, {"nesterov", true},
                          {"weightDecay", 1e-4}, {"plateauFactor", 0.1}, {"plateauPatience", 2}, {"seed", 42},
                          {"warmupSteps", 20}, {"trainSamples", 0}};
  spec.max_epochs = 164;
  spec.dataset.source = "path";
  spec.goal = Goal{"accuracy", 0.8, false};
  SgdRecipe r = ReadSgdRecipe(spec);
  EXPECT_EQ(r.batch, 128);
  EXPECT_TRUE(r.nesterov);
  EXPECT_EQ(r.max_epochs, 164);
  EXPECT_EQ(r.goal, 0.8);
  spec.dataset.source = "synthetic";
  EXPECT_FALSE(ReadSgdRecipe(spec).goal);  // synthetic data has no accuracy to reach
}

}  // namespace
}  // namespace ergobench
