#include "base/cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

#include <string>

namespace ergobench {
namespace {

// The sockaddr of an address in text, as a connect would be handed it.
sockaddr_storage Address(const std::string& text) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
  } else {
    EXPECT_EQ(inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr), 1) << text;
    v6->sin6_family = AF_INET6;
  }
  return storage;
}

bool In(const std::string& network, const std::string& address) {
  const sockaddr_storage a = Address(address);
  return Contains(*ParseCidr(network), reinterpret_cast<const sockaddr*>(&a));
}

bool Internal(const std::string& address) {
  const sockaddr_storage a = Address(address);
  for (const Cidr& network : InternalNetworks()) {
    if (Contains(network, reinterpret_cast<const sockaddr*>(&a))) return true;
  }
  return false;
}

TEST(CidrTest, NetworksContainTheirAddresses) {
  EXPECT_TRUE(In("10.20.0.0/16", "10.20.255.1"));
  EXPECT_FALSE(In("10.20.0.0/16", "10.21.0.1"));
  EXPECT_TRUE(In("10.244.0.1", "10.244.0.1")) << "an address alone is a /32";
  EXPECT_FALSE(In("10.244.0.1", "10.244.0.2"));
  EXPECT_TRUE(In("0.0.0.0/0", "8.8.8.8"));
  EXPECT_TRUE(In("fd00::/8", "fd12::1"));
  EXPECT_FALSE(In("fd00::/8", "fe80::1"));
  EXPECT_TRUE(In("127.0.0.0/8", "::ffff:127.0.0.1")) << "an IPv4-mapped address is its IPv4 one";
}

TEST(CidrTest, BadNetworksNameThemselves) {
  for (const char* bad : {"", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/8x", "10.0.0/8", "::/129", "host.example/8", "/8"}) {
    const auto parsed = ParseCidr(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find(std::string("\"") + bad + "\""), std::string::npos) << parsed.status().message();
  }
}

// The audit's SSRF: the cloud's metadata service, loopback, the node's and the cluster's
// private ranges were fetched like any server.
TEST(CidrTest, InternalNetworksAreTheClustersAndTheCloudsOwn) {
  for (const char* internal : {"169.254.169.254", "127.0.0.1", "10.96.0.1", "172.16.5.4", "192.168.1.1", "100.64.0.1",
                               "0.0.0.0", "::1", "::", "fe80::1", "fd00:ec2::254", "::ffff:169.254.169.254"}) {
    EXPECT_TRUE(Internal(internal)) << internal;
  }
  for (const char* external : {"8.8.8.8", "151.101.1.1", "172.32.0.1", "2001:4860:4860::8888"}) {
    EXPECT_FALSE(Internal(external)) << external;
  }
}

}  // namespace
}  // namespace ergobench
