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
  Builder b;
  setting(b, "node1", "NCCL_SOCKET_IFNAME", "eth0");
  setting(b, "node2", "NCCL_SOCKET_IFNAME", "eth0");
  auto t = b.timeline();
  auto l = init_incomplete(t, b.rules);
  REQUIRE(l);
  CHECK(l->kind == "init-incomplete");
  CHECK(l->family == "configuration");
  CHECK(l->blame == Blame::unknown);
  CHECK(l->confidence == Confidence::low);
  CHECK(l->host.empty());  // nothing says which node stalled
  CHECK(l->title == "NCCL began setting up on 2 hosts and no communicator finished its init (no 'Init COMPLETE' line)");
  CHECK(l->findings.size() == 2);
}

TEST_CASE("hosts: a communicator that finished init, a step report or no set-up line at all is not a stop in init") {
  Builder done;
  setting(done, "node1", "NCCL_SOCKET_IFNAME", "eth0");
  done.add("t.init", "node1", kT0 + kMin, 3);
  auto t1 = done.timeline();
  CHECK_FALSE(init_incomplete(t1, done.rules));

  Builder stepped;
  setting(stepped, "node1", "NCCL_SOCKET_IFNAME", "eth0");
  Finding& step = stepped.add("t.progress", "node1", kT0 + kMin, 0);
  step.series_head = {812.0f};
  auto t2 = stepped.timeline();
  CHECK_FALSE(init_incomplete(t2, stepped.rules));

  Builder none;
  none.add("t.progress", "node1", kT0, 0);
  auto t3 = none.timeline();
  CHECK_FALSE(init_incomplete(t3, none.rules));
}

TEST_CASE("hosts: a stop inside NCCL's init names the one machine whose set-up lines there are, never one of several") {
  Builder one;
  setting(one, "node3", "NCCL_SOCKET_IFNAME", "eth0");
  setting(one, "node3", "NCCL_IB_HCA", "mlx5_0");
  auto t1 = one.timeline();
  auto l1 = init_incomplete(t1, one.rules);
  REQUIRE(l1);
  CHECK(l1->host == "node3");
  CHECK(l1->title == "NCCL began setting up on node3 and no communicator finished its init (no 'Init COMPLETE' line)");

  Builder unnamed;
  setting(unnamed, "", "NCCL_SOCKET_IFNAME", "eth0");
  auto t2 = unnamed.timeline();
  auto l2 = init_incomplete(t2, unnamed.rules);
  REQUIRE(l2);
  CHECK(l2->host.empty());
}
