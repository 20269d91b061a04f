#include "core/scan/host_word.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("a machine's name, and the words shaped like one that are not") {
  CHECK(host_like("gpu-node-3"));
  CHECK(host_like("10.0.3.17"));
  CHECK(host_like("ip-10-0-0-7.ec2.internal"));
  CHECK_FALSE(host_like("RuntimeError"));  // neither digit, '-' nor '.'
  CHECK_FALSE(host_like("train.py"));      // a script's name
  CHECK_FALSE(host_like("3600.412s"));     // a duration
  CHECK(could_name_machine("rig-6600"));
  CHECK(could_name_machine("HGX-H100-13"));        // upper case with a digit and a hyphen: gethostname's
  CHECK_FALSE(could_name_machine("CUDA12"));       // upper case without a hyphen
  CHECK_FALSE(could_name_machine("torch.distributed"));
  CHECK_FALSE(could_name_machine("python3.10"));
  CHECK_FALSE(could_name_machine("socket.gaierror"));  // Python exceptions with a lower-case class
  CHECK_FALSE(could_name_machine("socket.timeout"));
  CHECK_FALSE(could_name_machine("select.error"));
  CHECK_FALSE(could_name_machine("zlib.error"));
  CHECK(could_name_machine("node7.cluster.local"));
  CHECK(could_name_machine("timeout.cluster.local"));  // only the last label is a class
  CHECK(could_name_machine("error.node7.example.com"));
  CHECK_FALSE(could_name_machine("nvidia-container-cli"));  // NVIDIA's tools and the operator's containers
  CHECK_FALSE(could_name_machine("nvidia-driver-ctr"));
  CHECK(names_program("nvidia-peermem-ctr"));
  CHECK(names_program("python3.10"));
  CHECK_FALSE(names_program("nvidia-desktop"));  // a Jetson's host name
  CHECK(could_name_machine("nvidia-dgx-07"));
  CHECK(could_name_machine("nvidia-desktop"));              // a Jetson's default host name
  CHECK_FALSE(could_name_machine("gpu3"));         // a GPU's index
  CHECK_FALSE(could_name_machine("rank-12"));      // a counter
  CHECK_FALSE(could_name_machine("stage-1"));      // a pipeline stage
  CHECK_FALSE(could_name_machine("shard_3"));
  CHECK(could_name_machine("gpu17"));              // more GPUs than a node holds: a machine
  // Versions and GPU architectures are shaped like names and are none.
  CHECK_FALSE(host_like("cuda-12.1"));
  CHECK_FALSE(host_like("v2.18.3-1"));
  CHECK_FALSE(host_like("llama-3.1-70b"));
  CHECK_FALSE(host_like("Qwen2.5-7B"));
  CHECK(host_like("node1.cluster.local"));
  CHECK(host_like("ip-10-0-0-7.us-west-2.compute.internal"));
  CHECK_FALSE(could_name_machine("sm_90"));
  CHECK_FALSE(could_name_machine("gfx90a"));
  CHECK(redacted_host("localhost"));
}

TEST_CASE("prose words are no machine's name, whole words only") {
  CHECK(prose_word("with"));
  CHECK(prose_word("the"));
  CHECK(prose_word("is"));
  CHECK_FALSE(prose_word("withers"));  // a word only begins like one
  CHECK_FALSE(prose_word("node03"));
  CHECK_FALSE(prose_word("With"));     // a sentence's first word is capitalised: a host's never is
}
