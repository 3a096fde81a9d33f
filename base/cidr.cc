#include "base/cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>

namespace ergobench {
namespace {

// The 16 bytes of `address`, IPv4 mapped into IPv6; false for another family.
bool BytesOf(const sockaddr* address, std::array<uint8_t, 16>* out) {
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    *out = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    std::memcpy(out->data() + 12, &v4->sin_addr, 4);
    return true;
  }
  if (address->sa_family == AF_INET6) {
    std::memcpy(out->data(), &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, 16);
    return true;
  }
  return false;
}

}  // namespace

StatusOr<Cidr> ParseCidr(std::string_view text) {
  Cidr cidr;
  cidr.text = std::string(text);
  const size_t slash = text.find('/');
  const std::string host(text.substr(0, slash));
  int bits = -1;
  if (inet_pton(AF_INET, host.c_str(), cidr.address.data() + 12) == 1) {
    cidr.address[10] = cidr.address[11] = 0xff;
    bits = 32;
  } else if (inet_pton(AF_INET6, host.c_str(), cidr.address.data()) == 1) {
    bits = 128;
  } else {
    return Status::InvalidArgument("\"" + cidr.text + "\" is not a network (examples: 10.20.0.0/16, fd00::/8)");
  }
  int prefix = bits;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() || prefix < 0 || prefix > bits) {
      return Status::InvalidArgument("\"" + cidr.text + "\" has no prefix length of 0 to " + std::to_string(bits));
    }
  }
  cidr.prefix = prefix + (128 - bits);
  return cidr;
}

bool Contains(const Cidr& network, const sockaddr* address) {
  std::array<uint8_t, 16> bytes{};
  if (!BytesOf(address, &bytes)) return false;
  for (int bit = 0; bit < network.prefix; ++bit) {
    const uint8_t mask = static_cast<uint8_t>(0x80 >> (bit % 8));
    if ((bytes[bit / 8] & mask) != (network.address[bit / 8] & mask)) return false;
  }
  return true;
}

const std::vector<Cidr>& InternalNetworks() {
  static const std::vector<Cidr>* networks = [] {
    auto* out = new std::vector<Cidr>;
    for (const char* text : {"0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "10.0.0.0/8", "172.16.0.0/12",
                             "192.168.0.0/16", "100.64.0.0/10", "::1/128", "::/128", "fe80::/10", "fc00::/7"}) {
      out->push_back(*ParseCidr(text));
    }
    return out;
  }();
  return *networks;
}

}  // namespace ergobench
