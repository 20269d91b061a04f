#include <catch2/catch.hpp>

#include "core/analysis/hosts.hpp"
#include "tests/finding_builder.hpp"

using namespace attribution;
using namespace attribution::test;

namespace {

Finding& setting(Builder& b, const char* host, const char* name, const char* value) {
  Finding& f = b.add("t.setting", host, kT0, -1);
  f.fields = {{"setting", name}, {"value", value}};
  f.evidence.front().text = std::string(name) + " set to " + value;  // two lines, not one line seen twice
  return f;
}

// The stop-in-init reading of what `b` holds.
std::optional<Localisation> stall_in(Builder& b) {
  auto t = b.timeline();
  return init_incomplete(t, b.rules);
}

}  // namespace

TEST_CASE("hosts: the node whose NCCL setting differs from the others is named, every setting read") {
  Builder b;
  for (const char* h : {"node1", "node2", "node3", "node4"}) {
    setting(b, h, "NCCL_SOCKET_IFNAME", "eth0");
    setting(b, h, "NCCL_IB_HCA", std::string(h) == "node3" ? "mlx5_1" : "mlx5_0");
  }
  auto t = b.timeline();
  auto l = host_mismatch(t, b.rules);
  REQUIRE(l);
  CHECK(l->kind == "host-mismatch");
  CHECK(l->host == "node3");
  CHECK(l->family == "configuration");
  CHECK(l->title == "node3 differs from the other 3 node(s): NCCL_IB_HCA is 'mlx5_1' there and 'mlx5_0' on the others");
}

TEST_CASE("hosts: two nodes that differ, or no majority, name nobody") {
  Builder two;
  setting(two, "node1", "NCCL_IB_HCA", "mlx5_0");
  setting(two, "node2", "NCCL_IB_HCA", "mlx5_1");
  auto t2 = two.timeline();
  CHECK_FALSE(host_mismatch(t2, two.rules));
  Builder split;
  for (const char* h : {"node1", "node2"}) setting(split, h, "NCCL_IB_HCA", "mlx5_0");
  for (const char* h : {"node3", "node4"}) setting(split, h, "NCCL_IB_HCA", "mlx5_1");
  auto t4 = split.timeline();
  CHECK_FALSE(host_mismatch(t4, split.rules));
}

TEST_CASE("hosts: NCCL set-up lines and no communicator that finished init read as a stop inside NCCL's init") {
  // The machines whose set-up lines there are ("" for lines that name none), and what is said of them:
  // one machine is named, several are not (nothing says which one stalled).
  struct Case {
    std::vector<const char*> hosts;
    std::string host, where;
  };
  for (const Case& c : {Case{{"node1", "node2"}, "", "2 hosts"}, Case{{"node3", "node3"}, "node3", "node3"},
                        Case{{""}, "", "an unnamed host"}, Case{{"node3", ""}, "", "2 hosts"}}) {
    Builder b;
    const char* names[] = {"NCCL_SOCKET_IFNAME", "NCCL_IB_HCA"};
    for (size_t i = 0; i < c.hosts.size(); ++i) setting(b, c.hosts[i], names[i % 2], "x");
    auto l = stall_in(b);
    INFO(c.where);
    REQUIRE(l);
    CHECK(l->kind == "init-incomplete");
    CHECK(l->family == "configuration");
    CHECK(l->blame == Blame::unknown);
    CHECK(l->confidence == Confidence::low);
    CHECK(l->host == c.host);
    CHECK(l->title == "NCCL began setting up on " + c.where + " and no communicator finished its init (no 'Init COMPLETE' line)");
    CHECK(l->findings.size() == c.hosts.size());
  }
}

TEST_CASE("hosts: a communicator that finished init, a step report or no set-up line at all is not a stop in init") {
  Builder done;
  setting(done, "node1", "NCCL_SOCKET_IFNAME", "eth0");
  done.add("t.init", "node1", kT0 + kMin, 3);
  CHECK_FALSE(stall_in(done));

  Builder stepped;
  setting(stepped, "node1", "NCCL_SOCKET_IFNAME", "eth0");
  stepped.add("t.progress", "node1", kT0 + kMin, 0).series_head = {812.0f};
  CHECK_FALSE(stall_in(stepped));

  Builder none;
  none.add("t.progress", "node1", kT0, 0);
  CHECK_FALSE(stall_in(none));
}
