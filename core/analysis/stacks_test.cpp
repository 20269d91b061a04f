#include <catch2/catch.hpp>

#include "core/analysis/precedence.hpp"
#include "core/analysis/stacks.hpp"
#include "tests/finding_builder.hpp"

using namespace attribution;
using namespace attribution::test;

namespace {

const char* kInCollective =
    "    synchronize (torch/cuda/__init__.py:792)\n"
    "    all_reduce (torch/distributed/distributed_c10d.py:2050)\n"
    "    train_step (train.py:88)\n"
    "    <module> (train.py:301)\n";
const char* kDataLoader =
    "    wait (threading.py:324)\n"
    "    get (queue.py:180)\n"
    "    _try_get_data (torch/utils/data/dataloader.py:1133)\n"
    "    train (train.py:212)\n";

Finding& stack(Builder& b, int rank, const char* text) {
  Finding& f = b.add("t.stack", rank < 4 ? "node1" : "node2", kT0 + 20 * kMin, rank);
  f.fields = {{"stack", text}};
  f.evidence.front().text = std::to_string(rank) + text;  // each process's own dump
  return f;
}

}  // namespace

TEST_CASE("stacks: py-spy and faulthandler frames read the same / collectives, data loading, storage") {
  StackReading a = read_stack(kInCollective);
  CHECK(a.in_collective);
  CHECK(a.innermost == "synchronize (torch/cuda/__init__.py:792)");
  StackReading b = read_stack(kDataLoader);
  CHECK_FALSE(b.in_collective);
  CHECK(b.activity == "data loading");
  StackReading c = read_stack(
      "  File \"/usr/lib/python3.10/shutil.py\", line 267 in copyfile\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/serialization.py\", line 628 in save\n"
      "  File \"/lustre/proj/run/train.py\", line 140 in save_checkpoint\n"
      "  File \"/lustre/proj/run/train.py\", line 301 in <module>");
  CHECK_FALSE(c.in_collective);
  CHECK(c.innermost == "copyfile (/usr/lib/python3.10/shutil.py:267)");
  CHECK(c.activity == "checkpoint saving or loading");
  CHECK(c.network_fs);
  CHECK(read_stack("    compute_loss (model.py:41)\n    <module> (/lustre/x/train.py:9)\n").activity == "its own code");
  CHECK_FALSE(read_stack("    compute_loss (model.py:41)\n    <module> (/lustre/x/train.py:9)\n").network_fs);
}

TEST_CASE("stacks: the one rank outside collectives while the others wait in them is named") {
  Builder b;
  for (int r = 0; r < 8; ++r) stack(b, r, r == 5 ? kDataLoader : kInCollective);
  auto t = b.timeline();
  auto l = stack_outlier(t, b.rules);
  REQUIRE(l);
  CHECK(l->kind == "stack-outside-collective");
  CHECK(l->rank == 5);
  CHECK(l->host == "node2");
  CHECK(l->family == "application");
  CHECK(l->title == "Rank 5's main thread is in data loading (wait (threading.py:324)) while the other 7 process(es) "
                    "wait in collectives");
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "stack-outside-collective");
}

TEST_CASE("stacks: every rank in collectives, or most outside, names nobody") {
  Builder all_in;
  for (int r = 0; r < 4; ++r) stack(all_in, r, kInCollective);
  auto t1 = all_in.timeline();
  CHECK_FALSE(stack_outlier(t1, all_in.rules));
  Builder most_out;
  for (int r = 0; r < 4; ++r) stack(most_out, r, r == 0 ? kInCollective : kDataLoader);
  auto t2 = most_out.timeline();
  CHECK_FALSE(stack_outlier(t2, most_out.rules));
}

TEST_CASE("stacks: gdb backtraces read as native frames: read(2) is file I/O, NCCL and CUDA syncs are collectives") {
  StackReading io = read_stack(
      "#0  0x00007f2a3c91e7e2 in __GI___libc_read (fd=23, buf=0x55d1c4f2a000, nbytes=65536) at "
      "../sysdeps/unix/sysv/linux/read.c:26\n"
      "#1  0x000055d1c2d9f3a1 in _Py_read (fd=23, buf=0x55d1c4f2a000, count=65536) at Python/fileutils.c:1800\n");
  CHECK_FALSE(io.in_collective);
  CHECK(io.activity == "file I/O");
  CHECK(io.innermost == "__GI___libc_read (../sysdeps/unix/sysv/linux/read.c:26)");
  StackReading sync = read_stack(
      "#0  0x00007f11a9c3e117 in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6\n"
      "#1  0x00007f0f9b2c8a40 in cudaStreamSynchronize () from /usr/local/cuda/lib64/libcudart.so.12\n");
  CHECK(sync.in_collective);
  CHECK(read_stack("#0  0x00007f11a9c3e117 in pthread_cond_wait () from /lib/libc.so.6\n").activity == "a lock or a wait");
}
