#pragma once
// Bulk byte scans for the scan pass: where the next of many literals occurs in a buffer, and how
// many newlines a stretch holds. Both run over every byte of the corpus, so they are written for
// throughput (see docs/performance.md); everything after them only sees candidate lines.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

// Exact, case-sensitive multi-literal search: the same answers as taking the smallest
// std::string_view::find over every literal, at well under a cycle per byte on log text.
//
// A literal of at least kStride + 3 bytes registers kStride consecutive 4-byte windows of itself
// in a hash table, so testing every kStride-th position of the text meets one of them wherever
// the literal starts. The run of windows is the one rarest in a sample of the input when given
// one (log lines repeat a few templates, so which 4-grams are common cannot be told from the bytes
// alone). A bitset (128 KiB) rejects almost every position; a hit is verified against the
// literals with that window.
// The few shorter literals are found by a 16-byte SSE2 compare of one byte pair of each (two bytes
// of the literal, not always adjacent: short literals that share a pair share its compare, such as
// the '[' and ']' of kernel module tags " [nfs]", " [osc]"). With more short literals (or one of a
// single byte) every position is tested with one window per literal.
// A small set (bucketed_for: at most kMaxBucketed literals, none of a single byte), where the CPU has
// AVX2, takes a bucket scan instead, whatever its literals' lengths: each literal's rarest three bytes
// (two for a literal of two) sort it into one of 8 buckets, and 32 positions at a time are tested
// against every bucket by six nibble-table lookups (the "Teddy" scheme of Hyperscan). The other
// structures stay built for a CPU without AVX2.
class LiteralSearch {
 public:
  // `sample`: some of the text to be searched, to choose rare windows; any sample (or none) gives
  // the same answers.
  explicit LiteralSearch(const std::vector<std::string>& literals, std::string_view sample = {});

  // Start of the leftmost occurrence of any literal that begins at or after `from` (and ends
  // within `buf`), or npos.
  size_t find(std::string_view buf, size_t from) const;

  // Literals shorter than this are found by their byte pairs, each pair costing work on every byte of
  // the input.
  static constexpr size_t kMinWindowed = 7;
  static constexpr size_t kMaxShortLiterals = 16;
  // Whether these literals (repeats and empty ones aside) take the fast strided scan where SSE2 is
  // there: at most kMaxShortLiterals shorter than kMinWindowed, none of a single byte. Otherwise every
  // position is tested, several times slower.
  static bool strided_for(const std::vector<std::string>& literals);
  // Whether every run of windows the filter could register for `lit` (kStride in a row) holds one of four
  // blanks: then every aligned run of spaces in the text is checked against it (rules lint warns).
  static bool blank_in_every_window_run(std::string_view lit);
  // Tests: whether the AVX2 loop runs where the CPU has AVX2 (default true); both loops give the
  // same answers.
  static void use_avx2(bool on);
  static bool avx2_available();  // this build and CPU have the AVX2 loop
  // The most literals the AVX2 bucket scan takes (8 buckets; more per bucket lets more positions
  // through to verification).
  static constexpr size_t kMaxBucketed = 64;
  // Whether these literals (repeats and empty ones aside) take the bucket scan where the CPU has AVX2.
  static bool bucketed_for(const std::vector<std::string>& literals);

 private:
  struct Entry {
    uint32_t window;  // 4 (or width_) bytes of the literal, little-endian
    uint32_t offset;  // where that window starts in the literal
    uint32_t literal;
  };
  struct Pair {  // a short literal, found where its test's bytes a, b occur at `offset`, `offset + dist`
    uint32_t offset;
    uint32_t literal;
  };
  struct PairTest {  // one SIMD compare, for the literals pairs_ [first, last)
    char a, b;
    uint32_t dist;
    uint32_t first, last;
  };
  // The filter's bit for a window; its top kBits bits are the window's bucket of entries.
  static uint32_t filter_bit(uint32_t w) { return (w * 0x9E3779B1u) >> (32 - kFilterBits); }
  static uint32_t hash(uint32_t w) { return filter_bit(w) >> (kFilterBits - kBits); }
  // Whether some literal's window may be `w`: its bit is set.
  bool maybe(uint32_t w) const {
    uint32_t x = filter_bit(w);
    return (bits_[x >> 6] >> (x & 63)) & 1;
  }
  void add_window(uint32_t literal, size_t offset);
  void check_window(const char* p, size_t n, size_t from, size_t i, size_t* best) const;
  void check_pairs(const char* p, size_t n, size_t from, size_t j, const PairTest& t, size_t* best) const;
  // `windows`: bit k for the window at i + k * kStride the filter let through; `pairs`: bit j for a
  // pair test that fired at i + j.
  void check_block(const char* p, size_t n, size_t from, size_t i, uint32_t windows, uint32_t pairs, size_t* best,
                   size_t* limit) const;
  void choose_pairs(const std::vector<uint32_t>& short_ones, std::string_view sample);
  bool occurs(const char* p, size_t n, size_t from, size_t start, uint32_t literal, size_t best) const;
  size_t find_strided(std::string_view buf, size_t from) const;
  // find_strided's block loop, 32 positions at a time with AVX2's byte compares for the pairs,
  // where the CPU has AVX2; returns where it stopped.
  size_t avx2_blocks(const char* p, size_t n, size_t from, size_t i, size_t* best, size_t* limit) const;
  template <bool kFullWidth>
  size_t find_every(std::string_view buf, size_t from) const;
  // How rare a window of a literal is (lower: rarer), from the sample or the bytes alone.
  using WindowScore = std::function<int64_t(std::string_view)>;
  // The bucket scan (AVX2): fingerprint tables and each bucket's literals, with the offset of the
  // bytes they are found by.
  void build_fingerprints(const WindowScore& score);
  size_t find_fingerprinted(std::string_view buf, size_t from) const;
  void check_fingerprint(const char* p, size_t n, size_t from, size_t q, uint8_t buckets, size_t* best) const;
  struct Fingerprinted {
    uint32_t literal, offset;
    char print[4];  // the bytes it is found by (two or three), compared before the whole literal
    uint32_t width;
  };
  bool fingerprinted_ = false;
  // Bucket bits by the low and high nibble of a fingerprint's first byte, then its second's and third's
  // (a fingerprint of two bytes has every bit of its bucket set for the third).
  static constexpr int kPrint = 3;
  uint8_t nibble_[2 * kPrint][16] = {};
  std::vector<Fingerprinted> bucket_[8];
  size_t print_max_offset_ = 0;  // the bucket scan's max_offset_: a fingerprint sits this far into its literal

  static constexpr int kBits = 15;
  static constexpr size_t kStride = 4;
  static constexpr size_t kMaxShort = kMaxShortLiterals;
  static constexpr uint32_t kMaxPairDist = kMinWindowed - 2;  // two bytes of a short literal are at most this far apart
  static_assert(kMinWindowed == kStride + 3);
  // A bit per hash of 20 bits (128 KiB, in L2): with a few thousand windows about 1% of a text's
  // windows pass, so nearly every 16-byte block is rejected by four bit tests. A byte table of 32
  // KiB (in L1, but a fifth of its slots taken) let a third of the blocks through to the slow path.
  static constexpr int kFilterBits = 20;
  std::vector<std::string> lits_;
  std::vector<Entry> entries_;     // grouped by hash: those of hash h are [start_[h], start_[h+1])
  std::vector<uint32_t> start_;
  std::vector<uint64_t> bits_;  // the filter: bit filter_bit(w) is set for each literal window w
  std::vector<Pair> pairs_;  // grouped by test
  std::vector<PairTest> tests_;
  uint32_t max_dist_ = 1;  // the SIMD loop reads this many bytes past a block
  bool strided_ = false;
  uint32_t width_ = 4, mask_ = 0xFFFFFFFFu;  // the every-position mode's window
  size_t max_offset_ = 0;  // a match can be found this many bytes after its start
  bool has_empty_ = false;  // an empty literal occurs everywhere
};

// Number of bytes equal to `c` in `s` (newlines, for line numbers), 32 or 16 bytes at a time.
size_t count_byte(std::string_view s, char c);
// The first position at or after `from` where `a` is followed by `b` in `s`, or npos: 16 positions at a
// time (glibc's memmem takes a few instructions a byte for needles this short).
size_t find_byte_pair(std::string_view s, char a, char b, size_t from = 0);

}  // namespace attribution
