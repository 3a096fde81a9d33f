#include "operator/controller/benchmark/mpi/ssh_keys.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ergobench::controller {
namespace {

// RFC 8032 §7.1, test 1: the public key of this seed is d75a9801...511a.
constexpr Ed25519Seed kRfc8032Seed = {0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a,
                                      0xf4, 0x92, 0xec, 0x2c, 0xc4, 0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32,
                                      0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60};
// "ssh-ed25519" and that public key, as an SSH public key blob in base64.
constexpr char kRfc8032PublicLine[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea";

class SshKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ssh_keys_test." + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text, mode_t mode = 0600) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
    return path;
  }

  // OpenSSH's own ssh-keygen, the ground truth for the formats: its stdout, or "" if it failed.
  static std::string SshKeygen(const std::string& args) {
    std::string out;
    FILE* pipe = popen(("ssh-keygen " + args + " 2>/dev/null").c_str(), "r");
    if (pipe == nullptr) return out;
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
    return pclose(pipe) == 0 ? out : "";
  }

  std::filesystem::path dir_;
};

TEST_F(SshKeysTest, TheRfc8032SeedGivesItsPublicKey) {
  const auto pair = SshKeyFromSeed(kRfc8032Seed, "bench@ns");
  ASSERT_TRUE(pair.ok()) << pair.status().ToString();
  EXPECT_EQ(pair->public_key, std::string(kRfc8032PublicLine) + " bench@ns");
  EXPECT_EQ(pair->private_key.rfind("-----BEGIN OPENSSH PRIVATE KEY-----\n", 0), 0u);
  EXPECT_TRUE(pair->private_key.ends_with("\n-----END OPENSSH PRIVATE KEY-----\n"));
}

TEST_F(SshKeysTest, SshKeygenReadsThePrivateKeyAndFindsItsPublicKey) {
  const auto pair = SshKeyFromSeed(kRfc8032Seed, "bench@ns");
  ASSERT_TRUE(pair.ok());
  const std::string key = Write("id_ed25519", pair->private_key);
  EXPECT_EQ(SshKeygen("-y -f " + key), pair->public_key + "\n");
}

TEST_F(SshKeysTest, AGeneratedKeySignsWhatItsPublicKeyVerifies) {
  const auto pair = GenerateSshKey("launcher");
  ASSERT_TRUE(pair.ok()) << pair.status().ToString();
  EXPECT_NE(pair->public_key.substr(0, 80), std::string(kRfc8032PublicLine).substr(0, 80));
  const std::string key = Write("id_ed25519", pair->private_key);
  const std::string message = Write("message", "all-reduce\n", 0644);
  ASSERT_EQ(SshKeygen("-Y sign -q -f " + key + " -n ergobench " + message), "");
  ASSERT_TRUE(std::filesystem::exists(message + ".sig")) << "ssh-keygen could not sign with the key";
  const std::string signers = Write("allowed_signers", "launcher " + pair->public_key + "\n", 0644);
  EXPECT_NE(SshKeygen("-Y verify -f " + signers + " -I launcher -n ergobench -s " + message + ".sig < " + message), "");
  // And a different key does not verify it.
  const auto other = GenerateSshKey("other");
  ASSERT_TRUE(other.ok());
  Write("allowed_signers", "launcher " + other->public_key + "\n", 0644);
  EXPECT_EQ(SshKeygen("-Y verify -f " + signers + " -I launcher -n ergobench -s " + message + ".sig < " + message), "");
}

TEST_F(SshKeysTest, TwoGeneratedKeysDiffer) {
  const auto a = GenerateSshKey("");
  const auto b = GenerateSshKey("");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->private_key, b->private_key);
  EXPECT_EQ(a->public_key.find(' ', 12), std::string::npos) << "no comment, no trailing space: " << a->public_key;
}

}  // namespace
}  // namespace ergobench::controller
