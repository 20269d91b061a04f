#include <catch2/catch.hpp>

#include "core/base/identity.hpp"

using namespace attribution;

TEST_CASE("one GPU identity from four spellings") {
  CHECK(normalize_pci("PCI:0000:52:00") == "0000:52:00.0");
  CHECK(normalize_pci("0000:52:00") == "0000:52:00.0");
  CHECK(normalize_pci("00000000:52:00.0") == "0000:52:00.0");
  CHECK(normalize_pci("PCI:0000:01:00 GPU-I:05") == "0000:01:00.0");
  CHECK(normalize_pci("0000:B9:00.0") == "0000:b9:00.0");
  CHECK(normalize_pci("0018:01:00") == "0018:01:00.0");
  CHECK(pci_from_nccl_busid("52000") == "0000:52:00.0");
  CHECK(pci_from_nccl_busid("b9000") == "0000:b9:00.0");
  CHECK(pci_from_nccl_busid("100000") == "0001:00:00.0");
  CHECK(normalize_pci("nonsense").empty());
  CHECK(normalize_pci("zz:yy:xx").empty());
  CHECK(pci_from_nccl_busid("xyz").empty());
}

TEST_CASE("peers name hosts") {
  CHECK(peer_host("10.216.210.236<54862>") == "10.216.210.236");
  CHECK(peer_host("gpu-node1.int.hpcie.labs.faculty.ie.edu<45074>") == "gpu-node1");
  CHECK(peer_host("fe80::966d:ae03:8b:df78%ib0<53249>") == "fe80::966d:ae03:8b:df78");
  CHECK(peer_host("[::ffff:127.0.0.1]") == "[::ffff:127.0.0.1]");
  CHECK(is_ip_address("10.0.0.4"));
  CHECK_FALSE(is_ip_address("node03"));
}

TEST_CASE("reverse-DNS names give the address in order") {
  CHECK(reversed_ipv4("247.3.148.10") == "10.148.3.247");
  CHECK(reversed_ipv4("1.0.0.127") == "127.0.0.1");
  CHECK(reversed_ipv4("7") == "7");
}

TEST_CASE("addresses inside host names, and container ids that are no machine's name") {
  CHECK(address_in_name("ip-172-31-27-211") == "172.31.27.211");
  CHECK(address_in_name("ip-10-0-0-7.ec2.internal") == "10.0.0.7");
  CHECK(address_in_name("ip-10-0-0").empty());
  CHECK(address_in_name("ip-10-0-0-7x").empty());
  CHECK(address_in_name("node03").empty());
  CHECK(address_in_name("ip-999-0-0-1").empty());
  CHECK(is_container_id("32a68c302449"));
  CHECK_FALSE(is_container_id("123456789012"));
  CHECK_FALSE(is_container_id("node03"));
}
