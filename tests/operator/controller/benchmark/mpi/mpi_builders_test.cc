// Golden tests of the MPI builders, and OpenSSH's own word on the configurations they write.
#include "operator/controller/benchmark/mpi/mpi_builders.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/v1alpha1/defaults.h"
#include "tests/testing/golden.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;
using testing::ExpectGolden;

Benchmark Fmnist3() {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "mnist";
  b.metadata.namespace_name = "bench";
  b.metadata.uid = "6c1f0d2e-8a3b-4f5c-9d7e-0a1b2c3d4e5f";
  b.metadata.generation = 1;
  b.spec.task = "fmnist";
  b.spec.workers = 3;
  b.spec.backend = "mpi";
  b.spec.image = "ergobench-runner:0.1.0";
  ApplyDefaults(&b);
  return b;
}

SshKeyPair KeyOfSeed(unsigned char fill, const std::string& comment) {
  Ed25519Seed seed;
  seed.fill(fill);
  return *SshKeyFromSeed(seed, comment);
}

// Runs `command`; its exit status and output.
std::pair<int, std::string> Shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  char buffer[512];
  while (pipe != nullptr && fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  const int status = pipe == nullptr ? -1 : pclose(pipe);
  return {status, out};
}

TEST(MpiBuilders, Names) {
  EXPECT_EQ(SshSecretName(Fmnist3()), "mnist-ssh-6c1f0d2e-8a3b-4f5c-9d7e-0a1b2c3d4e5f");
  EXPECT_EQ(LauncherPodName(Fmnist3()), "mnist-launcher");
}

TEST(MpiBuilders, Secret) {
  const json secret = BuildSshSecret(Fmnist3(), KeyOfSeed(1, "mnist launcher"), KeyOfSeed(2, "mnist workers"));
  ExpectGolden(secret, "ssh-secret.json");
  EXPECT_EQ(secret["stringData"]["known_hosts"].get<std::string>().rfind("mnist-workers ssh-ed25519 ", 0), 0u);
}

TEST(MpiBuilders, ConfigMapAddsTheHostfileInRankOrder) {
  const json cm = BuildConfigMap(Fmnist3());
  ExpectGolden(cm, "configmap-mpi.json");
  EXPECT_EQ(cm["data"]["hostfile"],
            "# rank i runs on line i: one rank per worker pod\n"
            "mnist-worker-0.mnist-workers slots=1\nmnist-worker-1.mnist-workers slots=1\nmnist-worker-2.mnist-workers slots=1\n");
}

// Open MPI reads numbers and skips what follows '#': the rules are these numbers, in its order
// (collectives, MPI_Allreduce's id, communicator sizes, the smallest, message sizes, then
// size / algorithm / fan-in / segment size for each): below 1 MiB algorithm 0 (Open MPI's own
// choice), from 1 MiB algorithm 4 (the ring). Measured across 3 nodes: 0.31 -> 0.99 of the link.
TEST(MpiBuilders, LargeAllreducesGoByTheRing) {
  const json data = MpiConfigData(Fmnist3());
  std::vector<long> numbers;
  std::istringstream lines(data["coll_tuned_rules"].get<std::string>());
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line.substr(0, line.find('#')));
    for (long n; fields >> n;) numbers.push_back(n);
  }
  EXPECT_EQ(numbers, (std::vector<long>{1, 2, 1, 1, 2, 0, 0, 0, 0, 1048576, 4, 0, 0}));
  const std::string flat = BuildLauncherPod(Fmnist3(), {1, 2})["spec"]["containers"][0]["command"].dump();
  EXPECT_NE(flat.find(R"("coll_tuned_dynamic_rules_filename",")" + std::string(kConfigMountPath) + "/coll_tuned_rules\""),
            std::string::npos)
      << flat;
}

TEST(MpiBuilders, AWorkerServesSshdInFrontOfTheSameRunner) {
  const json gloo_pod = [] {
    Benchmark gloo = Fmnist3();
    gloo.spec.backend = "gloo";
    return BuildWorkerPod(gloo, 1, {1, 0});
  }();
  const json pod = BuildWorkerPod(Fmnist3(), 1, {1, 0});
  ExpectGolden(pod, "pod-mpi-rank1.json");
  const json& container = pod["spec"]["containers"][0];
  const json& command = container["command"];
  // After "--": the gloo pod's runner command line, unchanged.
  const auto dashes = std::find(command.begin(), command.end(), "--");
  ASSERT_NE(dashes, command.end());
  json runner = {"ergobench-runner"};
  for (const json& arg : gloo_pod["spec"]["containers"][0]["args"]) runner.push_back(arg);
  EXPECT_EQ(json(std::vector<json>(dashes + 1, command.end())), runner);
  EXPECT_EQ(pod["spec"]["securityContext"], gloo_pod["spec"]["securityContext"]);
}

TEST(MpiBuilders, TheLauncherRunsMpirunOverSshOnTheWorkers) {
  const json pod = BuildLauncherPod(Fmnist3(), {1, 2});
  ExpectGolden(pod, "launcher.json");
  EXPECT_EQ(pod["metadata"]["labels"][kRoleLabel], "launcher");
  EXPECT_FALSE(pod["metadata"]["labels"].contains(kRankLabel));
}

// The audit's Low: every worker mounted the whole Secret, the launcher's client key included, and
// could log into its peers. Each role mounts only the files it uses.
TEST(MpiBuilders, EachRoleMountsOnlyTheKeysItUses) {
  const auto files = [](const json& pod) {
    std::vector<std::string> out;
    for (const json& volume : pod["spec"]["volumes"]) {
      if (volume["name"] != "ssh") continue;
      for (const json& item : volume["secret"]["items"]) out.push_back(item["key"]);
    }
    return out;
  };
  EXPECT_EQ(files(BuildWorkerPod(Fmnist3(), 1, {1, 0})), (std::vector<std::string>{"ssh_host_ed25519_key", "authorized_keys"}));
  EXPECT_EQ(files(BuildLauncherPod(Fmnist3(), {1, 0})), (std::vector<std::string>{"id_ed25519", "known_hosts"}));
}

// OpenSSH parses what we write: sshd's test mode checks every option and loads the host key,
// as a user other than root, as in the pod (root's sshd wants its privilege separation
// directory); ssh -G resolves the client's.
TEST(MpiBuilders, OpensshAcceptsTheConfigurations) {
  constexpr uid_t kNobody = 65534;
  const bool root = geteuid() == 0;
  const std::string as_user = root ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const auto dir = std::filesystem::temp_directory_path() / ("mpi_builders_test." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const Benchmark b = Fmnist3();
  const json secret = BuildSshSecret(b, KeyOfSeed(1, "launcher"), KeyOfSeed(2, "workers"));
  for (const auto& [name, text] : secret["stringData"].items()) {
    std::ofstream(dir / name) << text.get<std::string>();
    std::filesystem::permissions(dir / name, std::filesystem::perms::owner_read);
    if (root) {
      ASSERT_EQ(chown((dir / name).c_str(), kNobody, kNobody), 0);
    }
  }
  const json data = MpiConfigData(b);
  const auto local = [&](std::string text) {
    for (size_t at = 0; (at = text.find(kSshMountPath, at)) != std::string::npos;) text.replace(at, std::strlen(kSshMountPath), dir.string());
    return text;
  };
  std::ofstream(dir / "sshd_config") << local(data["sshd_config"]);
  std::ofstream(dir / "ssh_config") << local(data["ssh_config"]);
  const auto [sshd_status, sshd_out] = Shell(as_user + "/usr/sbin/sshd -t -f " + (dir / "sshd_config").string());
  EXPECT_EQ(sshd_status, 0) << sshd_out;
  const auto [ssh_status, ssh_out] = Shell("ssh -G -F " + (dir / "ssh_config").string() + " mnist-worker-0.mnist-workers");
  EXPECT_EQ(ssh_status, 0) << ssh_out;
  EXPECT_NE(ssh_out.find("port 2222\n"), std::string::npos) << ssh_out;
  EXPECT_NE(ssh_out.find("stricthostkeychecking true\n"), std::string::npos) << ssh_out;
  EXPECT_NE(ssh_out.find("hostkeyalias mnist-workers\n"), std::string::npos) << ssh_out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ergobench::controller
