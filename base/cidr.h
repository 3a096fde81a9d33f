// IP networks in CIDR notation ("10.0.0.0/8", "fd00::/8") and the test of an address against
// them, for the fetches that must not reach a cluster's internal addresses (runner/data).
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct Cidr {
  std::array<uint8_t, 16> address{};  // IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d)
  int prefix = 0;                     // of the 128 bits
  std::string text;                   // as written
};

// "a.b.c.d/n" (n of 32) or "x::y/n" (n of 128); an address alone is one address.
StatusOr<Cidr> ParseCidr(std::string_view text);

// Whether `address` (an AF_INET or AF_INET6 sockaddr; IPv4-mapped IPv6 counts as IPv4) is in
// `network`. Any other family is in none.
bool Contains(const Cidr& network, const sockaddr* address);

// Where a cluster keeps what its tenants must not fetch from: "this network" (0/8), loopback,
// link-local (a cloud's metadata service at 169.254.169.254), private (RFC 1918), shared
// (RFC 6598), and IPv6's loopback, unspecified, link-local and unique-local ranges.
const std::vector<Cidr>& InternalNetworks();

}  // namespace ergobench
