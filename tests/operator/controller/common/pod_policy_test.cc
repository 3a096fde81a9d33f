#include "operator/controller/common/pod_policy.h"

#include <gtest/gtest.h>

namespace ergobench::controller {
namespace {

Benchmark WithImage(const std::string& image) {
  Benchmark b;
  b.spec.image = image;
  return b;
}

TEST(PodPolicy, ByDefaultOnlyTheRunnerImagesRepository) {
  const PodPolicy policy;
  const std::string runner = "registry.example:5000/ergobench/runner:0.2.0";
  EXPECT_EQ(ImagePatterns(policy, runner),
            (std::vector<std::string>{"registry.example:5000/ergobench/runner", "registry.example:5000/ergobench/runner:*",
                                      "registry.example:5000/ergobench/runner@*"}));
  for (const char* ok : {"registry.example:5000/ergobench/runner:0.2.0", "registry.example:5000/ergobench/runner:dev",
                         "registry.example:5000/ergobench/runner@sha256:abc"}) {
    EXPECT_TRUE(PolicyViolations(WithImage(ok), policy, runner).empty()) << ok;
  }
  for (const char* bad : {"registry.example:5000/ergobench/runner-evil:1", "docker.io/library/busybox:1",
                          "registry.example:5000/ergobench/other:0.2.0"}) {
    const FieldErrors errors = PolicyViolations(WithImage(bad), policy, runner);
    ASSERT_EQ(errors.size(), 1u) << bad;
    EXPECT_EQ(errors.errors()[0].path, "spec.image");
    EXPECT_NE(errors.errors()[0].message.find("policy.allowedImages"), std::string::npos);
  }
}

// The audit's Medium: nfs and csi were allowed by default, which gave any author node-level
// mounts of any server. A claim only, unless the platform team adds a type.
TEST(PodPolicy, ADatasetVolumeIsAClaimUnlessThePolicyAddsAType) {
  PodPolicy policy;
  const std::string runner = "ergobench-runner:0.1.0";
  Benchmark b;
  b.spec.dataset.volume = {{"persistentVolumeClaim", {{"claimName", "data"}}}};
  EXPECT_TRUE(PolicyViolations(b, policy, runner).empty());
  for (const char* type : {"nfs", "csi", "hostPath"}) {
    b.spec.dataset.volume = {{type, nlohmann::json::object()}};
    const FieldErrors errors = PolicyViolations(b, policy, runner);
    ASSERT_EQ(errors.size(), 1u) << type;
    EXPECT_EQ(errors.errors()[0].path, std::string("spec.dataset.volume.") + type);
    EXPECT_EQ(errors.errors()[0].message, "is not allowed by the operator's policy (allowed: persistentVolumeClaim; "
                                          "Helm value policy.datasetVolumeTypes)");
  }
  policy.dataset_volume_types.push_back("nfs");
  b.spec.dataset.volume = {{"nfs", {{"server", "files.example"}, {"path", "/data"}}}};
  EXPECT_TRUE(PolicyViolations(b, policy, runner).empty());
}

// The audit's Medium: a Benchmark's inline file:// url is for `ergobench run`; in a pod it would
// read the node's files.
TEST(PodPolicy, AFileUrlIsForALocalRunOnly) {
  Benchmark b;
  b.spec.dataset.source = "url";
  b.spec.dataset.url = "file:///etc/kubernetes/admin.conf";
  const FieldErrors errors = PolicyViolations(b, PodPolicy(), "ergobench-runner:0.1.0");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.errors()[0].path, "spec.dataset.url");
  b.spec.dataset.url = "https://files.example/cifar-10-binary.tar.gz";
  EXPECT_TRUE(PolicyViolations(b, PodPolicy(), "ergobench-runner:0.1.0").empty());
}

TEST(PodPolicy, PatternsWidenIt) {
  PodPolicy policy;
  policy.allowed_images = {"registry.example/team-*/*"};
  EXPECT_TRUE(PolicyViolations(WithImage("registry.example/team-a/runner:1"), policy, "ergobench-runner:0.1.0").empty());
  EXPECT_FALSE(PolicyViolations(WithImage("registry.example/other/runner:1"), policy, "ergobench-runner:0.1.0").empty());
  EXPECT_TRUE(PolicyViolations(WithImage("ergobench-runner:0.1.0"), policy, "ergobench-runner:0.1.0").empty())
      << "the runner image itself is always allowed";
}

TEST(PodPolicy, SchedulingEscapesNeedTheirSetting) {
  Benchmark b = WithImage("ergobench-runner:0.1.0");
  b.spec.scheduling.tolerations = nlohmann::json::array({{{"operator", "Exists"}}});
  b.spec.scheduling.priority_class_name = "system-cluster-critical";
  b.spec.scheduling.scheduler_name = "other";
  b.spec.scheduling.node_selector = {{"disk", "ssd"}};
  PodPolicy policy;
  const FieldErrors denied = PolicyViolations(b, policy, "ergobench-runner:0.1.0");
  EXPECT_EQ(denied.size(), 3u) << denied.ToString();
  EXPECT_NE(denied.ToString().find("spec.scheduling.tolerations"), std::string::npos);
  policy.allow_tolerations = policy.allow_priority_class = policy.allow_scheduler_name = true;
  EXPECT_TRUE(PolicyViolations(b, policy, "ergobench-runner:0.1.0").empty());
}

}  // namespace
}  // namespace ergobench::controller
