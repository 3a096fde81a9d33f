// The backends as the builders, the plan and the reconciler see them: gloo's plugin adds
// nothing, MPI's adds its launcher, hostfile and Secret.
#include "operator/controller/benchmark/backend_plugin.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

Benchmark OfBackend(const std::string& backend) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "mnist";
  b.metadata.namespace_name = "bench";
  b.metadata.uid = "u1";
  b.spec.task = "fmnist";
  b.spec.workers = 2;
  b.spec.backend = backend;
  ApplyDefaults(&b);
  return b;
}

StatusOr<SshKeyPair> KeyNamed(const std::string& comment) { return SshKeyPair{"private of " + comment, "public of " + comment}; }

TEST(BackendPlugin, GlooAndNcclAddNothing) {
  for (const char* backend : {"gloo", "nccl"}) {
    const Benchmark b = OfBackend(backend);
    const BackendPlugin& plugin = BackendOf(b);
    EXPECT_FALSE(plugin.HasLauncher()) << backend;
    json data = {{"benchmark.json", "{}"}};
    plugin.AddConfigData(b, &data);
    EXPECT_EQ(data, json({{"benchmark.json", "{}"}})) << backend;
    const json worker = BuildWorkerPod(b, 1, Gang{1, 0, 0}, {});
    json changed = worker;
    plugin.MakeWorker(b, &changed);
    EXPECT_EQ(changed, worker) << backend;
    auto secret = plugin.BuildSecret(b, KeyNamed);
    ASSERT_TRUE(secret.ok());
    EXPECT_FALSE(secret->has_value()) << backend;
  }
}

TEST(BackendPlugin, MpiAddsALauncherAHostfileAndAnSshSecret) {
  const Benchmark b = OfBackend("mpi");
  const BackendPlugin& plugin = BackendOf(b);
  EXPECT_TRUE(plugin.HasLauncher());
  EXPECT_EQ(plugin.LauncherPodName(b), "mnist-launcher");
  EXPECT_EQ(plugin.BuildLauncherPod(b, Gang{1, 0, 0})["metadata"]["name"], "mnist-launcher");
  json data = json::object();
  plugin.AddConfigData(b, &data);
  EXPECT_EQ(data["hostfile"],
            "# rank i runs on line i: one rank per worker pod\n"
            "mnist-worker-0.mnist-workers slots=1\nmnist-worker-1.mnist-workers slots=1\n");
  auto secret = plugin.BuildSecret(b, KeyNamed);
  ASSERT_TRUE(secret.ok() && secret->has_value());
  EXPECT_EQ((**secret)["metadata"]["name"], "mnist-ssh-u1");
  EXPECT_EQ((**secret)["stringData"]["id_ed25519"], "private of ergobench launcher of bench/mnist");
  EXPECT_EQ((**secret)["stringData"]["ssh_host_ed25519_key"], "private of ergobench workers of bench/mnist");
}

TEST(BackendPlugin, MpiSaysWhichKeyItCouldNotMake) {
  const Benchmark b = OfBackend("mpi");
  auto secret = BackendOf(b).BuildSecret(b, [](const std::string& comment) -> StatusOr<SshKeyPair> {
    if (comment.find("workers") != std::string::npos) return Status::Internal("no entropy");
    return SshKeyPair{"k", "p"};
  });
  ASSERT_FALSE(secret.ok());
  EXPECT_EQ(secret.status().message(), "make the ssh host key of the workers: no entropy");
}

}  // namespace
}  // namespace ergobench::controller
