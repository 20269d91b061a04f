#pragma once
// Join keys spelled many ways: PCI addresses, NCCL bus ids, peer addresses.
#include <string>
#include <string_view>

namespace attribution {

// "PCI:0000:52:00", "0000:52:00", "00000000:52:00.0", "52:00.0" -> "0000:52:00.0"; "" if not a PCI address.
std::string normalize_pci(std::string_view text);
// NCCL "busId 52000" (hex digits of 0000:52:00.0 read as an integer) -> "0000:52:00.0".
std::string pci_from_nccl_busid(std::string_view hex);
// "10.0.0.4<54862>", "gpu-node1.int.example<45074>", "fe80::1%ib0<53249>" -> "10.0.0.4", "gpu-node1", "fe80::1".
std::string peer_host(std::string_view peer);
// True when `s` looks like an IPv4 or IPv6 address rather than a host name.
bool is_ip_address(std::string_view s);
// One machine, one name: "node03.cluster.local" is node03 (an address stays whole).
std::string short_host(std::string_view h);
// "ip-172-31-27-211" (EC2's default host names) -> "172.31.27.211"; empty for other names.
std::string address_in_name(std::string_view host);
// A 12-hex-digit host name is Docker's default: a container's id, not a machine's name.
bool is_container_id(std::string_view host);
// "247.3.148.10" -> "10.148.3.247": the octets of an in-addr.arpa name in address order.
std::string reversed_ipv4(std::string_view s);

}  // namespace attribution
