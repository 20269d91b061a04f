#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "core/rules/literal_search.hpp"

using namespace attribution;

namespace {

// The reference: the smallest find over every literal (what the RE2 alternation answered).
size_t naive_find(const std::vector<std::string>& lits, std::string_view buf, size_t from) {
  if (from > buf.size()) return std::string_view::npos;
  size_t best = std::string_view::npos;
  for (const auto& l : lits) best = std::min(best, buf.find(l, from));
  return best;
}

// Every answer, from every start offset, equals the reference.
// Untuned, and tuned on the buffer itself (the windows chosen are then the ones it lacks).
// With and without the AVX2 loop (where the CPU has it).
void check_all_offsets(const std::vector<std::string>& lits, std::string_view buf) {
  if (!LiteralSearch::avx2_available()) WARN("no AVX2 in this build or CPU: only the SSE2 loop is tested");
  LiteralSearch plain(lits), tuned(lits, buf);
  for (bool avx2 : {false, true}) {
    LiteralSearch::use_avx2(avx2);
    for (size_t from = 0; from <= buf.size() + 1; ++from) {
      size_t want = naive_find(lits, buf, from);
      for (const LiteralSearch* s : {&plain, &tuned}) {
        size_t got = s->find(buf, from);
        if (want != got) {
          INFO("buffer: " << std::string(buf) << " from " << from << (s == &tuned ? " tuned" : " untuned")
                          << (avx2 ? " avx2" : " sse2"));
          REQUIRE(got == want);
        }
      }
    }
  }
}

std::string random_text(std::mt19937& rng, size_t n, std::string_view alphabet) {
  std::string s(n, ' ');
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  for (auto& c : s) c = alphabet[pick(rng)];
  return s;
}

}  // namespace

TEST_CASE("literal search finds literals at the start and end of a buffer") {
  std::vector<std::string> lits = {"NVRM: Xid", "SXid", "out of memory", "async"};
  check_all_offsets(lits, "NVRM: Xid (PCI:0000:91:00): 79");
  check_all_offsets(lits, "a line that ends in SXid");
  check_all_offsets(lits, "SXid");
  check_all_offsets(lits, "SXi");
  check_all_offsets(lits, "");
  check_all_offsets(lits, "x\nasync\nno newline at the end: out of memory");
  LiteralSearch s(lits);
  CHECK(s.find("xx", 5) == std::string_view::npos);
}

TEST_CASE("literal search returns the leftmost start when literals overlap") {
  // "abcdefgh" contains the later-windowed "bcdefgh" starting before "cdef": the search must not
  // stop at the first window it verifies.
  std::vector<std::string> lits = {"cdef", "bcdefghXYZ", "bcdefgh", "aaaa", "aaaaaaaaab", "zzzz"};
  check_all_offsets(lits, "abcdefgh");
  check_all_offsets(lits, "abcdefghXYZ");
  check_all_offsets(lits, "aaaaaaaaaaaaaaaaaaaaaaaaaaaab");
  check_all_offsets(lits, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz");
}

TEST_CASE("literal search with literals shorter than four bytes") {
  check_all_offsets({"a"}, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbba");
  check_all_offsets({"ab", "xyz", "longer literal"}, "zzzzzzzzzzzzzzzzzzzzzxyzab longer literal");
  check_all_offsets({"ab", "xyz"}, "ab");
  check_all_offsets({"xyz"}, "xy");
}

TEST_CASE("literal search is case-sensitive like the rules' literals") {
  LiteralSearch s({"NVRM: Xid", "oom-kill"});
  CHECK(s.find("nvrm: xid 79", 0) == std::string_view::npos);
  CHECK(s.find("OOM-KILL", 0) == std::string_view::npos);
  CHECK(s.find("xx oom-kill", 0) == 3);
}

TEST_CASE("literal search without literals finds nothing and an empty literal finds everything") {
  LiteralSearch none({});
  CHECK(none.find("anything at all", 0) == std::string_view::npos);
  LiteralSearch empty({"", "abc"});
  CHECK(empty.find("xyz", 1) == 1);
  CHECK(empty.find("xyz", 3) == 3);
  CHECK(empty.find("xyz", 4) == std::string_view::npos);
}

TEST_CASE("literal search agrees with find on random buffers") {
  std::mt19937 rng(12345);
  for (int round = 0; round < 600; ++round) {
    // A small alphabet makes literals occur often and overlap. Rounds cycle through the modes:
    // few literals (strided, short ones as byte pairs), many short ones (every position, 4-byte
    // windows), and literals of 1 to 3 bytes (every position, narrower windows).
    std::string alphabet = round % 2 ? "ab\n" : "abcd \n:X";
    int mode = round % 3;
    std::uniform_int_distribution<int> count(mode == 1 ? 9 : 1, mode == 1 ? 16 : 8);
    std::uniform_int_distribution<int> len(mode == 2 ? 1 : mode == 1 ? 4 : 2, mode == 1 ? 6 : 12);
    std::vector<std::string> lits;
    for (int k = count(rng); k > 0; --k) lits.push_back(random_text(rng, len(rng), alphabet));
    size_t size = std::uniform_int_distribution<size_t>(0, round % 5 == 0 ? 300 : 70)(rng);
    check_all_offsets(lits, random_text(rng, size, alphabet));
  }
}

TEST_CASE("literal search with many short literals: the bucket scan (AVX2) and every position tested agree") {
  std::vector<std::string> lits = {"SXid", "async", "abcd", "bcde", "cdefg", "defgh", "efghi", "fghij", "ghijk",
                                   "hijkl", "a longer literal"};
  std::string buf(100, '.');
  buf += "hijkl";
  buf += std::string(40, '.') + "a longer literal" + std::string(3, '.') + "SXid";
  check_all_offsets(lits, buf);
}

TEST_CASE("literal search with many short literals: the section keys of pasted prompts on log-like text") {
  // The host hints' keys (host_hints.cpp): 18 short literals, two of two bytes, a line end among them.
  std::vector<std::string> lits = {":~", "ssh ", "srun ", "sbatch ", "salloc ", " debug node/", "===", "---", "###",
                                   "***", "ost:", "ode:", "ostname:", "ost =", "ode =", "==> ", "NodeName=", ":\n",
                                   ":\r\n", " | FAILED", " | CHANGED", " [FAILURE] ", " ~ # ", " ~ % ", "] % ", "] # "};
  CHECK_FALSE(LiteralSearch::strided_for(lits));
  CHECK(LiteralSearch::bucketed_for(lits));  // with AVX2, the bucket scan is what check_all_offsets tests
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {"[rank3]: ", "node07:1234:5678 [3] NCCL INFO ", "iteration 10/100 | ", "Host: ",
                                           "ost", "ode", "=", "==", "-", "--", ":", "~", "#", "%", "] ", " ~ ",
                                           "\n", "\r\n", "ssh", "srun", " | ", "NodeName", "user@gpu-01:~$ "};
  for (int round = 0; round < 40; ++round) {
    std::string buf;
    for (int k = std::uniform_int_distribution<int>(0, 60)(rng); k > 0; --k)
      buf += pieces[std::uniform_int_distribution<size_t>(0, pieces.size() - 1)(rng)];
    check_all_offsets(lits, buf);
  }
}

TEST_CASE("literal search with many short literals, one of them a pair's repeat at another offset") {
  // Literals whose rarest pair is not at their start: a later-found pair may start an earlier match.
  std::vector<std::string> lits = {"xxqz", "qz", "aqzb", "zzzzzzzzqz"};
  for (int i = 0; i < 16; ++i) lits.push_back("k" + std::to_string(10 + i));
  check_all_offsets(lits, "zzzzzzzzqz aqzb xxqz " + std::string(70, 'z') + "qz");
}

TEST_CASE("the bucket scan takes at most 64 distinct literals, none of one byte") {
  std::vector<std::string> lits;
  for (int i = 0; i < 64; ++i) lits.push_back("k" + std::to_string(100 + i));
  lits.push_back(lits.back());  // a repeat counts once
  lits.push_back("");           // an empty literal is not a fingerprint
  CHECK(LiteralSearch::bucketed_for(lits));
  lits.push_back("k999");
  CHECK_FALSE(LiteralSearch::bucketed_for(lits));
  CHECK_FALSE(LiteralSearch::bucketed_for({"ab", "c"}));
}

TEST_CASE("the strided scan takes at most 16 distinct short literals, none of one byte") {
  std::vector<std::string> lits = {"a literal long enough"};
  for (int i = 0; i < 16; ++i) lits.push_back("s" + std::to_string(100 + i));  // 4 bytes each
  lits.push_back(lits.back());                                                // a repeat counts once
  CHECK(LiteralSearch::strided_for(lits));
  auto with_empty = lits;
  with_empty.push_back("");  // found everywhere, by no scan: not counted
  CHECK(LiteralSearch::strided_for(with_empty));
  std::string buf = std::string(50, '.') + "s115" + std::string(30, '.') + "a literal long enough..s100";
  check_all_offsets(lits, buf);
  lits.push_back("s999");  // the 17th
  CHECK_FALSE(LiteralSearch::strided_for(lits));
  check_all_offsets(lits, buf + "s999");  // every position tested: the same answers
  lits.pop_back();
  lits.push_back("x");
  CHECK_FALSE(LiteralSearch::strided_for(lits));
}

TEST_CASE("short literals that share a byte pair at a distance are found alike, up to the buffer's end") {
  // The kernel module tags of a call trace share '[' and ']' four bytes apart: one compare for all.
  std::vector<std::string> lits = {" [nfs]", " [osc]", " [mdc]", " [lov]", "Name:", "SXid", "a longer literal"};
  std::string buf = " nfs_wait_bit_killable+0x1c/0x60 [nfs]\n [xyz] [abc]x [no]\n" + std::string(70, '.') + " [osc]";
  check_all_offsets(lits, buf);
  check_all_offsets(lits, buf + "\n [mdc");  // a tag cut by the end
  check_all_offsets(lits, std::string(40, '[') + " [lov]" + std::string(40, ']') + "SXi");
  std::string sample;
  for (int i = 0; i < 20; ++i) sample += " [abc] [rank0]: Name  SX Fa step 7\n";
  LiteralSearch tuned(lits, sample);
  for (size_t from = 0; from <= buf.size(); ++from) REQUIRE(tuned.find(buf, from) == naive_find(lits, buf, from));
}

TEST_CASE("literal search agrees with find on log-like buffers with the real literal shapes") {
  std::vector<std::string> lits = {"NVRM: Xid", "SXid", "async", "Init COMPLETE", "NCCL communicator was aborted",
                                   ": Link down", "out of memory", "out of memory: Kill", "srun: error: ",
                                   "] Assertion `", "synd 0x", "traps: ", "TCPStore", "RuntimeError: "};
  std::mt19937 rng(7);
  std::string buf;
  std::uniform_int_distribution<size_t> pick(0, lits.size() - 1);
  for (int line = 0; line < 400; ++line) {
    buf += random_text(rng, std::uniform_int_distribution<size_t>(0, 60)(rng), "abcdefghij NCLXMR:.0123");
    if (line % 7 == 0) buf += lits[pick(rng)];
    if (line % 11 == 0) buf += lits[pick(rng)].substr(1);  // near misses
    buf += '\n';
  }
  // Tuned on a sample that repeats some literals' windows, as log templates do.
  LiteralSearch s(lits), tuned(lits, buf.substr(0, buf.size() / 3));
  for (bool avx2 : {false, true}) {
    LiteralSearch::use_avx2(avx2);
    for (size_t from = 0; from <= buf.size(); from += 1 + from % 13) {
      size_t want = naive_find(lits, buf, from);
      REQUIRE(s.find(buf, from) == want);
      REQUIRE(tuned.find(buf, from) == want);
    }
  }
}

TEST_CASE("find_byte_pair finds the first pair at or after `from`, like a search for the two bytes") {
  std::mt19937 rng(5);
  for (size_t n : {0, 1, 2, 16, 17, 18, 33, 100, 1000}) {
    std::string s = random_text(rng, n, "ab'x");
    for (size_t from : {size_t(0), size_t(1), n / 2, n})
      CHECK(find_byte_pair(s, '\'', '\'', from) == s.find("''", from));
  }
  CHECK(find_byte_pair(std::string(15, 'x') + "[0m", '[', '0') == 15);  // across a 16-byte block's edge
  CHECK(find_byte_pair("x[", '[', '0') == std::string_view::npos);       // the last byte has no successor
}

TEST_CASE("count_byte counts newlines across block and lane-overflow boundaries, with and without AVX2") {
  for (bool avx2 : {false, true}) {
    LiteralSearch::use_avx2(avx2);
    INFO("avx2 " << avx2);
    std::mt19937 rng(3);
    for (size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 255 * 16 - 1, 255 * 16, 255 * 16 + 1, 255 * 32 - 1, 255 * 32,
                     255 * 32 + 1, 255 * 32 + 47, 10000}) {
      std::string s = random_text(rng, n, "ab\n");
      CHECK(count_byte(s, '\n') == static_cast<size_t>(std::count(s.begin(), s.end(), '\n')));
    }
    // every lane full: 255 rounds must not wrap a byte counter
    for (size_t n : {5000, 255 * 32 * 3 + 7}) CHECK(count_byte(std::string(n, '\n'), '\n') == n);
  }
  LiteralSearch::use_avx2(true);
}
