#include <catch2/catch.hpp>

#include "core/base/hostlist.hpp"

using namespace attribution;
using V = std::vector<std::string>;

TEST_CASE("hostlists expand as Slurm does") {
  CHECK(*expand_hostlist("node[001-004,007],gpu-a05") == V{"node001", "node002", "node003", "node004", "node007", "gpu-a05"});
  CHECK(*expand_hostlist("tux[0-2,12]") == V{"tux0", "tux1", "tux2", "tux12"});
  CHECK(*expand_hostlist("rack[1-2]-node[01-02]") == V{"rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"});
  CHECK(*expand_hostlist("linux[0998-1001]") == V{"linux0998", "linux0999", "linux1000", "linux1001"});
  CHECK(*expand_hostlist("single") == V{"single"});
  CHECK(*expand_hostlist("a,b[1-2]") == V{"a", "b1", "b2"});
  CHECK(expand_hostlist("linux[0000-1023]")->size() == 1024);
}

TEST_CASE("bad hostlists are errors / not crashes") {
  for (const char* bad : {"node[1-", "node]1[", "node[3-1]", "node[a-b]", "node[]", "", ",", "a,,b", "node[1-99999999999]", "a b"})
    CHECK_FALSE(expand_hostlist(bad));
  CHECK(expand_hostlist("node[1-").error().message.find("node[1-") != std::string::npos);
}
