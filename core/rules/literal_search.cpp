#include "core/rules/literal_search.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ATTRIBUTION_AVX2 1
#endif

namespace attribution {
namespace {

// The 4 bytes at p as one little-endian word (an unaligned load), whatever the machine's order:
// windows of literals and of the text must compare alike, also when masked to fewer bytes.
uint32_t load32(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
  return w;
}

// The window of `w` bytes at p, for the last few bytes of a buffer (fewer than 4 remain).
uint32_t load_short(const char* p, uint32_t w) {
  uint32_t v = 0;
  for (uint32_t k = 0; k < w; ++k) v |= static_cast<uint32_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return v;
}

// How common a byte is in log text (higher: more common). Only used to choose which windows of a
// literal the filter looks for: a rare window means fewer positions to verify. A rough guess is
// enough; a bad one costs verification time, never a wrong answer.
int commonness(unsigned char c) {
  if (c == ' ') return 10;
  if (c >= 'a' && c <= 'z') return std::strchr("etaoinsrlcdu", c) ? 8 : 6;
  if (c >= '0' && c <= '9') return 7;
  if (c >= 'A' && c <= 'Z') return 3;
  if (std::strchr(":./-_=,[]()", c)) return 5;
  return 2;
}

// Words on nearly every line of AI job logs: their bytes are rare one by one but not together.
constexpr const char* kCommonWords[] = {"NCCL INFO", "NCCL WARN", "Channel", "rank", "node", "error", "Error",
                                        "CUDA", "cuda", "iteration", "time", "loss"};

int64_t static_score(std::string_view w) {
  int64_t score = 0;
  for (char c : w) score += commonness(static_cast<unsigned char>(c));
  // One byte repeated ("    ", "----", "===="): aligned columns, progress bars and banners repeat it
  // on line after line, where a sample from the files' heads may show none.
  if (w.size() > 1 && w.find_first_not_of(w[0]) == std::string_view::npos) score += 200;
  for (const char* word : kCommonWords)
    if (std::string_view(word).find(w) != std::string_view::npos) score += 100;
  return score;
}

// How often candidate windows (2 or 4 bytes) occur in a sample of the input. The static score
// breaks ties, and decides alone without a sample.
class WindowCounts {
 public:
  WindowCounts(const std::vector<std::string>& lits, std::string_view sample) {
    if (sample.size() < 4) return;
    pairs_.assign(size_t{1} << 16, 0);
    for (size_t i = 0; i + 2 <= sample.size(); ++i) ++pairs_[load_short(sample.data() + i, 2)];
    std::vector<uint8_t> maybe(size_t{1} << 16, 0);  // skips the map for most positions
    for (const auto& l : lits)
      for (size_t o = 0; o + 4 <= l.size(); ++o) {
        quads_[load32(l.data() + o)] = 0;
        maybe[(load32(l.data() + o) * 0x9E3779B1u) >> 16] = 1;
      }
    for (size_t i = 0; i + 4 <= sample.size(); ++i) {
      uint32_t w = load32(sample.data() + i);
      if (!maybe[(w * 0x9E3779B1u) >> 16]) continue;
      if (auto it = quads_.find(w); it != quads_.end()) ++it->second;
    }
  }
  int64_t score(std::string_view w) const {
    int64_t seen = 0;
    if (w.size() == 2 && !pairs_.empty()) seen = pairs_[load_short(w.data(), 2)];
    if (w.size() == 4)
      if (auto it = quads_.find(load32(w.data())); it != quads_.end()) seen = it->second;
    return seen * 1000 + static_score(w);
  }

 private:
  std::vector<uint32_t> pairs_;
  std::unordered_map<uint32_t, uint32_t> quads_;
};

#if defined(ATTRIBUTION_AVX2)
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif
std::atomic<bool> avx2_allowed{true};

}  // namespace

void LiteralSearch::use_avx2(bool on) { avx2_allowed = on; }

bool LiteralSearch::blank_in_every_window_run(std::string_view lit) {
  if (lit.size() < kMinWindowed) return false;
  auto blank = [&](size_t o) { return lit.substr(o, 4).find_first_not_of(" \t") == std::string_view::npos; };
  for (size_t run = 0; run + kStride <= lit.size() - 3; ++run) {
    size_t o = run;
    while (o < run + kStride && !blank(o)) ++o;
    if (o == run + kStride) return false;  // a run without a blank window
  }
  return true;
}

bool LiteralSearch::avx2_available() {
#if defined(ATTRIBUTION_AVX2)
  return cpu_has_avx2();
#else
  return false;
#endif
}

LiteralSearch::LiteralSearch(const std::vector<std::string>& literals, std::string_view sample) {
  std::set<std::string> unique;
  for (const auto& l : literals) {
    if (l.empty()) has_empty_ = true;
    else unique.insert(l);
  }
  lits_.assign(unique.begin(), unique.end());
  bits_.assign((size_t{1} << kFilterBits) / 64, 0);
  size_t shortest = 4;
  for (const auto& l : lits_) shortest = std::min(shortest, l.size());
#if defined(__SSE2__)
  strided_ = strided_for(lits_);  // a short literal is found by a byte pair
#endif
  width_ = strided_ ? 4 : static_cast<uint32_t>(shortest);
  mask_ = width_ == 4 ? 0xFFFFFFFFu : (1u << (8 * width_)) - 1;
  WindowCounts counts(lits_, sample);
  auto window_score = [&](std::string_view w) { return counts.score(w); };
  std::vector<uint32_t> short_ones;
  for (uint32_t i = 0; i < lits_.size(); ++i) {
    std::string_view l = lits_[i];
    if (strided_ && l.size() < kStride + 3) {
      short_ones.push_back(i);
      continue;
    }
    // The run of `span` windows (1, or kStride when strided) with the rarest bytes. Each window is
    // scored once (scoring is most of building an untuned prefilter, on every small diagnosis).
    size_t span = strided_ ? kStride : 1, best = 0;
    int64_t best_score = INT64_MAX;
    std::vector<int64_t> scores;
    for (size_t o = 0; o + width_ <= l.size(); ++o) scores.push_back(window_score(l.substr(o, width_)));
    for (size_t o = 0; o + span - 1 + width_ <= l.size(); ++o) {
      int64_t score = 0;
      for (size_t t = 0; t < span; ++t) score += scores[o + t];
      if (score < best_score) best_score = score, best = o;
    }
    for (size_t t = 0; t < span; ++t) add_window(i, best + t);
  }
  choose_pairs(short_ones, sample);
  build_fingerprints(window_score);
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry& a, const Entry& b) { return hash(a.window) < hash(b.window); });
  start_.assign((size_t{1} << kBits) + 1, 0);
  for (const Entry& e : entries_) ++start_[hash(e.window) + 1];
  for (size_t h = 1; h < start_.size(); ++h) start_[h] += start_[h - 1];
}

// Each short literal is found by one pair of its bytes (a, b at distance d); literals that share a
// pair share its SIMD compare, which costs the same on every block whatever it finds. A greedy cover
// takes, while a literal is left, the pair with the most such literals per unit of cost: the compare
// itself plus the positions it lets through (counted in the sample; without one, guessed from the
// bytes).
void LiteralSearch::choose_pairs(const std::vector<uint32_t>& short_ones, std::string_view sample) {
  struct Key {
    char a, b;
    uint32_t dist;  // at most kMaxPairDist: the literals are shorter than kMinWindowed
    auto operator<=>(const Key&) const = default;
  };
  struct Holder {
    uint32_t literal, offset;  // the pair's first place in the literal
  };
  if (short_ones.empty()) return;  // nothing to cover (and no sample to count)
  std::map<Key, std::vector<Holder>> holders;
  for (uint32_t i : short_ones) {
    std::string_view l = lits_[i];
    for (size_t o = 0; o < l.size(); ++o)
      for (size_t d = 1; o + d < l.size(); ++d) {
        auto& v = holders[Key{l[o], l[o + d], static_cast<uint32_t>(d)}];
        if (v.empty() || v.back().literal != i) v.push_back({i, static_cast<uint32_t>(o)});
      }
  }
  const bool tuned = sample.size() >= 64;
  std::map<Key, int64_t> seen;  // positions of each pair in the sample
  if (tuned) {
    // Each pair's counter by its bytes and distance: the sample's walk touches no map.
    std::vector<std::vector<int64_t*>> counter(kMaxPairDist + 1, std::vector<int64_t*>(size_t{1} << 16, nullptr));
    for (const auto& [k, v] : holders)
      counter[k.dist][static_cast<unsigned char>(k.a) | static_cast<unsigned char>(k.b) << 8] = &seen[k];
    for (size_t d = 1; d <= kMaxPairDist; ++d)
      for (size_t i = 0; i + d < sample.size(); ++i)
        if (int64_t* n = counter[d][static_cast<unsigned char>(sample[i]) | static_cast<unsigned char>(sample[i + d]) << 8])
          ++*n;
  }
  // A compare costs about as much as verifying one position in 160 bytes of input.
  auto cost = [&](const Key& k) {
    if (tuned) return static_cast<int64_t>(sample.size() / 160) + seen.at(k);
    return int64_t{100} + commonness(static_cast<unsigned char>(k.a)) * commonness(static_cast<unsigned char>(k.b));
  };
  std::set<uint32_t> left(short_ones.begin(), short_ones.end());
  while (!left.empty()) {
    const Key* best = nullptr;
    double best_value = -1;
    for (const auto& [k, v] : holders) {
      auto n = std::count_if(v.begin(), v.end(), [&](const Holder& h) { return left.count(h.literal); });
      double value = static_cast<double>(n) / static_cast<double>(cost(k) + 1);
      if (n && value > best_value) best_value = value, best = &k;
    }
    PairTest t{best->a, best->b, best->dist, static_cast<uint32_t>(pairs_.size()), 0};
    for (const Holder& h : holders[*best])
      if (left.erase(h.literal)) {
        pairs_.push_back({h.offset, h.literal});
        max_offset_ = std::max<size_t>(max_offset_, h.offset);
      }
    t.last = static_cast<uint32_t>(pairs_.size());
    tests_.push_back(t);
    max_dist_ = std::max(max_dist_, t.dist);
  }
}

bool LiteralSearch::bucketed_for(const std::vector<std::string>& literals) {
  std::set<std::string_view> distinct;
  for (const auto& l : literals) {
    if (l.size() == 1) return false;  // a single byte has no fingerprint
    if (!l.empty()) distinct.insert(l);
  }
  return distinct.size() <= kMaxBucketed;
}

bool LiteralSearch::strided_for(const std::vector<std::string>& literals) {
  std::set<std::string_view> short_ones;
  for (const auto& l : literals) {
    if (l.size() == 1) return false;
    if (!l.empty() && l.size() < kMinWindowed) short_ones.insert(l);
  }
  return short_ones.size() <= kMaxShortLiterals;
}

void LiteralSearch::add_window(uint32_t literal, size_t offset) {
  uint32_t w = load_short(lits_[literal].data() + offset, width_);
  entries_.push_back({w, static_cast<uint32_t>(offset), literal});
  uint32_t x = filter_bit(w);
  bits_[x >> 6] |= uint64_t{1} << (x & 63);
  max_offset_ = std::max(max_offset_, offset);
}

bool LiteralSearch::occurs(const char* p, size_t n, size_t from, size_t start, uint32_t literal, size_t best) const {
  const std::string& l = lits_[literal];
  return start >= from && start < best && l.size() <= n - start && std::memcmp(p + start, l.data(), l.size()) == 0;
}

void LiteralSearch::check_window(const char* p, size_t n, size_t from, size_t i, size_t* best) const {
  uint32_t w = i + 4 <= n ? load32(p + i) & mask_ : load_short(p + i, width_);
  uint32_t h = hash(w);
  for (uint32_t k = start_[h]; k < start_[h + 1]; ++k) {
    const Entry& e = entries_[k];
    if (e.window == w && e.offset <= i && occurs(p, n, from, i - e.offset, e.literal, *best)) *best = i - e.offset;
  }
}

void LiteralSearch::check_pairs(const char* p, size_t n, size_t from, size_t j, const PairTest& t, size_t* best) const {
  if (j + t.dist >= n || p[j] != t.a || p[j + t.dist] != t.b) return;
  for (uint32_t k = t.first; k < t.last; ++k) {
    const Pair& q = pairs_[k];
    if (q.offset <= j && occurs(p, n, from, j - q.offset, q.literal, *best)) *best = j - q.offset;
  }
}

size_t LiteralSearch::find(std::string_view buf, size_t from) const {
  if (from > buf.size()) return std::string_view::npos;
  if (has_empty_) return from;
  if (lits_.empty()) return std::string_view::npos;
#if defined(ATTRIBUTION_AVX2)
  if (fingerprinted_ && avx2_allowed.load(std::memory_order_relaxed) && cpu_has_avx2()) return find_fingerprinted(buf, from);
#endif
  if (strided_) return find_strided(buf, from);
  return width_ == 4 ? find_every<true>(buf, from) : find_every<false>(buf, from);
}

// Each literal is found by its rarest three bytes (a literal of two by both). Literals of two bytes
// get buckets of their own (their third table accepts every byte); the rest are put in buckets in the
// order of their fingerprints, so that a bucket's share bytes and its nibble tables let few others
// through.
void LiteralSearch::build_fingerprints(const WindowScore& score) {
#if defined(ATTRIBUTION_AVX2)
  if (lits_.empty() || !bucketed_for(lits_)) return;
  std::vector<std::tuple<bool, std::string, uint32_t, uint32_t>> prints;  // (three bytes?, print, literal, offset)
  for (uint32_t i = 0; i < lits_.size(); ++i) {
    std::string_view l = lits_[i];
    const size_t width = std::min<size_t>(l.size(), kPrint);
    uint32_t best = 0;
    int64_t best_score = INT64_MAX;
    for (uint32_t o = 0; o + width <= l.size(); ++o)
      if (int64_t sc = score(l.substr(o, 2)) + (width > 2 ? score(l.substr(o + 1, 2)) : 0); sc < best_score)
        best_score = sc, best = o;
    prints.emplace_back(width == kPrint, std::string(l.substr(best, width)), i, best);
  }
  std::sort(prints.begin(), prints.end());  // the two-byte ones first
  const auto shorter = static_cast<size_t>(std::count_if(prints.begin(), prints.end(), [](const auto& x) { return !std::get<0>(x); }));
  // Buckets for the two-byte prints in proportion to their number (at least one when there are any).
  size_t short_buckets = shorter ? std::max<size_t>(1, (8 * shorter) / prints.size()) : 0;
  if (short_buckets == 8 && shorter < prints.size()) short_buckets = 7;
  for (size_t k = 0; k < prints.size(); ++k) {
    const auto& [three, print, literal, offset] = prints[k];
    const size_t lo = three ? short_buckets : 0, buckets = three ? 8 - short_buckets : short_buckets;
    const size_t group = three ? prints.size() - shorter : shorter, index = three ? k - shorter : k;
    const size_t bucket = lo + index * buckets / group;
    const auto bit = static_cast<uint8_t>(1u << bucket);
    for (int b = 0; b < kPrint; ++b) {
      if (b >= static_cast<int>(print.size())) {
        for (int x = 0; x < 16; ++x) nibble_[2 * b][x] |= bit, nibble_[2 * b + 1][x] |= bit;
        continue;
      }
      const auto c = static_cast<unsigned char>(print[b]);
      nibble_[2 * b][c & 15] |= bit;
      nibble_[2 * b + 1][c >> 4] |= bit;
    }
    Fingerprinted f{literal, offset, {}, static_cast<uint32_t>(print.size())};
    std::memcpy(f.print, print.data(), print.size());
    bucket_[bucket].push_back(f);
    print_max_offset_ = std::max<size_t>(print_max_offset_, offset);
  }
  fingerprinted_ = true;
#else
  (void)score;
#endif
}

// Verifies the literals of `buckets` whose fingerprint would sit at q.
void LiteralSearch::check_fingerprint(const char* p, size_t n, size_t from, size_t q, uint8_t buckets,
                                      size_t* best) const {
  for (; buckets; buckets &= static_cast<uint8_t>(buckets - 1))
    for (const Fingerprinted& f : bucket_[__builtin_ctz(buckets)])
      if (q + f.width <= n && p[q] == f.print[0] && p[q + 1] == f.print[1] && (f.width == 2 || p[q + 2] == f.print[2]) &&
          f.offset <= q && occurs(p, n, from, q - f.offset, f.literal, *best))
        *best = q - f.offset;
}

// A block of the strided loops that the filter or a pair test let through. Once a match starts at
// `best`, one starting earlier can still show up to max_offset_ positions later; past
// `best + max_offset_` the answer is final.
void LiteralSearch::check_block(const char* p, size_t n, size_t from, size_t i, uint32_t windows, uint32_t pairs,
                                size_t* best, size_t* limit) const {
  for (; windows; windows &= windows - 1) check_window(p, n, from, i + kStride * static_cast<size_t>(__builtin_ctz(windows)), best);
  for (; pairs; pairs &= pairs - 1)
    for (const PairTest& t : tests_) check_pairs(p, n, from, i + static_cast<size_t>(__builtin_ctz(pairs)), t, best);
  if (*best != std::string_view::npos) *limit = std::min(*limit, *best + max_offset_);
}

size_t LiteralSearch::find_strided(std::string_view buf, size_t from) const {
  const size_t n = buf.size();
  const char* p = buf.data();
  size_t best = std::string_view::npos, limit = n, i = from;
#if defined(__SSE2__)
#if defined(ATTRIBUTION_AVX2)
  if (!tests_.empty() && avx2_allowed.load(std::memory_order_relaxed) && cpu_has_avx2()) i = avx2_blocks(p, n, from, i, &best, &limit);
#endif
  __m128i va[kMaxShort], vb[kMaxShort];
  const size_t np = tests_.size();
  for (size_t k = 0; k < np; ++k) va[k] = _mm_set1_epi8(tests_[k].a), vb[k] = _mm_set1_epi8(tests_[k].b);
  // Blocks of 16 positions: windows at i, i+4, i+8, i+12 (positions stay congruent to `from`
  // modulo kStride), pairs at every position.
  while (i + 16 + max_dist_ <= n && i < limit) {
    // Mapped page-cache data streams from memory, and the hardware prefetcher stops at each 4 KiB
    // page: asking ahead is worth about 15% here.
    if (i + 1024 < n) __builtin_prefetch(p + i + 1024);
    uint32_t acc = maybe(load32(p + i)) | maybe(load32(p + i + 4)) | maybe(load32(p + i + 8)) | maybe(load32(p + i + 12));
    int pm = 0;
    if (np) {
      __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      __m128i any = _mm_setzero_si128();
      for (size_t k = 0; k < np; ++k) {
        __m128i vd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + tests_[k].dist));
        any = _mm_or_si128(any, _mm_and_si128(_mm_cmpeq_epi8(v0, va[k]), _mm_cmpeq_epi8(vd, vb[k])));
      }
      pm = _mm_movemask_epi8(any);
    }
    if ((acc | static_cast<uint32_t>(pm)) != 0) {
      uint32_t windows = 0;
      for (size_t k = 0; k < 16 / kStride; ++k) windows |= static_cast<uint32_t>(maybe(load32(p + i + kStride * k))) << k;
      check_block(p, n, from, i, windows, static_cast<uint32_t>(pm), &best, &limit);
    }
    i += 16;
  }
#endif
  for (; i < n && i < limit; ++i) {
    if ((i - from) % kStride == 0 && i + 4 <= n && maybe(load32(p + i))) check_window(p, n, from, i, &best);
    for (const PairTest& t : tests_) check_pairs(p, n, from, i, t, &best);
    if (best != std::string_view::npos) limit = std::min(limit, best + max_offset_);
  }
  return best;
}

#if defined(ATTRIBUTION_AVX2)
// The SSE2 loop's work on 32 positions at once, for when there are pairs to compare (without them
// the SSE2 loop is faster): the 8 windows at i, i+4, ..., i+28 are the 8 lanes of one load, hashed
// together and looked up in the filter (read as 32-bit words) by one gather; each pair's compare
// covers 32 bytes. 3.4 -> 4.3 GB/s on tier R's text with the built-in rules' 3 pair tests.
__attribute__((target("avx2"))) size_t LiteralSearch::avx2_blocks(const char* p, size_t n, size_t from, size_t i,
                                                                 size_t* best, size_t* limit) const {
  static_assert(std::endian::native == std::endian::little);
  const int* words = reinterpret_cast<const int*>(bits_.data());
  const __m256i golden = _mm256_set1_epi32(static_cast<int>(0x9E3779B1u)), low5 = _mm256_set1_epi32(31),
                one = _mm256_set1_epi32(1);
  __m256i va[kMaxShort], vb[kMaxShort];
  const size_t np = tests_.size();
  for (size_t k = 0; k < np; ++k) va[k] = _mm256_set1_epi8(tests_[k].a), vb[k] = _mm256_set1_epi8(tests_[k].b);
  while (i + 32 + max_dist_ <= n && i < *limit) {
    if (i + 1024 < n) __builtin_prefetch(p + i + 1024);
    __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i x = _mm256_srli_epi32(_mm256_mullo_epi32(v0, golden), 32 - kFilterBits);
    __m256i w = _mm256_i32gather_epi32(words, _mm256_srli_epi32(x, 5), 4);
    __m256i bit = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(x, low5)), one);
    uint32_t lanes = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bit, one))));
    __m256i any = _mm256_setzero_si256();
    for (size_t k = 0; k < np; ++k) {
      __m256i vd = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + tests_[k].dist));
      any = _mm256_or_si256(any, _mm256_and_si256(_mm256_cmpeq_epi8(v0, va[k]), _mm256_cmpeq_epi8(vd, vb[k])));
    }
    uint32_t pm = static_cast<uint32_t>(_mm256_movemask_epi8(any));
    if ((lanes | pm) != 0) check_block(p, n, from, i, lanes, pm, best, limit);
    i += 32;
  }
  return i;
}
#endif

#if defined(ATTRIBUTION_AVX2)
// 32 positions at a time: the bytes at q, q + 1 and q + 2 are looked up by their low and high nibbles
// in six 16-byte tables of bucket bits (one PSHUFB each), and a position whose lookups share a bit
// may start a fingerprint of that bucket. About half an instruction a byte whatever the number of
// literals.
__attribute__((target("avx2"))) size_t LiteralSearch::find_fingerprinted(std::string_view buf, size_t from) const {
  const size_t n = buf.size();
  const char* p = buf.data();
  size_t best = std::string_view::npos, limit = n, q = from;
  __m256i t[2 * kPrint];
  for (int k = 0; k < 2 * kPrint; ++k) t[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(nibble_[k])));
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  alignas(32) uint8_t bits[32];
  // The block reads the bytes q .. q + 33: the fingerprint at q + 31 needs two more.
  while (q + 32 + kPrint - 1 <= n && q < limit) {
    if (q + 1024 < n) __builtin_prefetch(p + q + 1024);
    __m256i m = _mm256_set1_epi8(-1);
    for (int b = 0; b < kPrint; ++b) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + q + b));
      m = _mm256_and_si256(m, _mm256_shuffle_epi8(t[2 * b], _mm256_and_si256(v, low4)));
      m = _mm256_and_si256(m, _mm256_shuffle_epi8(t[2 * b + 1], _mm256_and_si256(_mm256_srli_epi16(v, 4), low4)));
    }
    auto hits = ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256())));
    if (hits) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(bits), m);
      for (; hits; hits &= hits - 1) {
        size_t at = static_cast<size_t>(__builtin_ctz(hits));
        check_fingerprint(p, n, from, q + at, bits[at], &best);
      }
      if (best != std::string_view::npos) limit = std::min(limit, best + print_max_offset_);
    }
    q += 32;
  }
  // The last positions one at a time; past the buffer's end a byte matches every table (the
  // literal's own check then rejects what does not fit).
  for (; q + 2 <= n && q < limit; ++q) {
    uint8_t buckets = 0xFF;
    for (int b = 0; b < kPrint && q + static_cast<size_t>(b) < n; ++b) {
      auto c = static_cast<unsigned char>(p[q + static_cast<size_t>(b)]);
      buckets &= static_cast<uint8_t>(nibble_[2 * b][c & 15] & nibble_[2 * b + 1][c >> 4]);
    }
    if (buckets) {
      check_fingerprint(p, n, from, q, buckets, &best);
      if (best != std::string_view::npos) limit = std::min(limit, best + print_max_offset_);
    }
  }
  return best;
}
#endif

// Every position tested (no SSE2, or many short literals); kFullWidth: 4-byte windows, no mask.
template <bool kFullWidth>
size_t LiteralSearch::find_every(std::string_view buf, size_t from) const {
  const size_t n = buf.size();
  const char* p = buf.data();
  const uint32_t mask = kFullWidth ? 0xFFFFFFFFu : mask_;
  size_t best = std::string_view::npos, limit = n, i = from;
  auto hit = [&](size_t at) {
    check_window(p, n, from, at, &best);
    if (best != std::string_view::npos) limit = std::min(limit, best + max_offset_);
  };
  // Positions with 4 readable bytes take the fast path: 16 filter tests per branch.
  const size_t fast_end = n >= 3 ? n - 3 : 0;
  while (i < fast_end && i < limit) {
    if (i + 16 <= fast_end) {
      uint32_t acc = 0;
      for (int k = 0; k < 16; ++k) acc |= maybe(load32(p + i + k) & mask);
      if (acc == 0) {
        i += 16;
        continue;
      }
    }
    for (size_t end = std::min({i + 16, fast_end, limit}); i < end; ++i)
      if (maybe(load32(p + i) & mask)) hit(i);
  }
  for (; i + width_ <= n && i < limit; ++i)
    if (maybe(load_short(p + i, width_))) hit(i);
  return best;
}

#if defined(ATTRIBUTION_AVX2)
namespace {
// count_byte's loop 32 bytes at a time: half the instructions of the SSE2 one, on the newline counts of
// every scanned file and of the look-around's sweeps. Counts the bytes before the last partial block.
__attribute__((target("avx2"))) size_t count_byte_avx2(const char* p, size_t n, char c, size_t* done) {
  const __m256i needle = _mm256_set1_epi8(c);
  size_t i = 0, total = 0;
  while (i + 32 <= n) {
    __m256i acc = _mm256_setzero_si256();  // byte lanes: at most 255 rounds before they are summed
    for (int r = 0; r < 255 && i + 32 <= n; ++r, i += 32)
      acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)), needle));
    __m256i sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());
    total += static_cast<size_t>(_mm256_extract_epi64(sums, 0)) + static_cast<size_t>(_mm256_extract_epi64(sums, 1)) +
             static_cast<size_t>(_mm256_extract_epi64(sums, 2)) + static_cast<size_t>(_mm256_extract_epi64(sums, 3));
  }
  *done = i;
  return total;
}
}  // namespace
#endif

size_t find_byte_pair(std::string_view s, char a, char b, size_t from) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = from;
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
  for (; i + 17 <= n; i += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 1));
    if (int m = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(y, vb))))
      return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(m)));
  }
#endif
  for (; i + 1 < n; ++i)
    if (p[i] == a && p[i + 1] == b) return i;
  return std::string_view::npos;
}

size_t count_byte(std::string_view s, char c) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = 0, total = 0;
#if defined(ATTRIBUTION_AVX2)
  if (n >= 64 && avx2_allowed.load(std::memory_order_relaxed) && cpu_has_avx2()) total = count_byte_avx2(p, n, c, &i);
#endif
#if defined(__SSE2__)
  const __m128i needle = _mm_set1_epi8(c);
  while (i + 16 <= n) {
    // Byte lanes count matches (each compare is 0 or -1) for at most 255 rounds before they are
    // summed, so they cannot wrap.
    __m128i acc = _mm_setzero_si128();
    for (int r = 0; r < 255 && i + 16 <= n; ++r, i += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, needle));
    }
    __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    total += static_cast<size_t>(_mm_cvtsi128_si32(sums)) + static_cast<size_t>(_mm_extract_epi16(sums, 4));
  }
#endif
  for (; i < n; ++i) total += p[i] == c;
  return total;
}

}  // namespace attribution
