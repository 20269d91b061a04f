#include "core/scan/paste_hosts.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

namespace {
Finding at(const std::string& host) {
  Finding f;
  f.host = host;
  f.evidence.emplace_back();
  f.evidence.back().host = host;
  return f;
}
}  // namespace

TEST_CASE("paste hosts: one machine named in a file, its unnamed findings take it") {
  std::vector<Finding> v{at(""), at("node7"), at(""), at("node7")};
  share_only_host(v);
  for (const Finding& f : v) {
    CHECK(f.host == "node7");
    CHECK(f.evidence.at(0).host == "node7");
  }
}

TEST_CASE("paste hosts: two machines in a file, or none, and nothing is guessed") {
  std::vector<Finding> two{at(""), at("node7"), at("node8")};
  share_only_host(two);
  CHECK(two[0].host.empty());
  std::vector<Finding> none{at(""), at("")};
  share_only_host(none);
  CHECK(none[0].host.empty());
}

TEST_CASE("paste hosts: a flat paste's one named machine, within the node list") {
  std::vector<Finding> a{at("")}, b{at("")};
  const std::set<std::string> named{"gpu-a-01"};
  const std::vector<std::vector<Finding>*> files{&a, &b};
  SECTION("no node list") {
    adopt_only_named_host(files, named, {});
    CHECK(a[0].host == "gpu-a-01");
    CHECK(b[0].evidence.at(0).host == "gpu-a-01");
  }
  SECTION("a node list without it: not taken") {
    adopt_only_named_host(files, named, {"node1"});
    CHECK(a[0].host.empty());
  }
  SECTION("two machines named: no guess") {
    adopt_only_named_host(files, {"gpu-a-01", "gpu-a-02"}, {});
    CHECK(a[0].host.empty());
  }
  SECTION("a finding that names its machine: the others are not filled") {
    b[0] = at("node2");
    adopt_only_named_host(files, named, {});
    CHECK(a[0].host.empty());
  }
}
