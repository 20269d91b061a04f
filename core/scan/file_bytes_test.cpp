#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <zlib.h>

#include <cstdlib>

#include "core/scan/file_bytes.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {

std::string lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += fmt::format("Mar 14 09:30:00 node1 app: line {:08}\n", i);
  return text;
}

std::string gzip_file(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.path() + "/" + name;
  gzFile g = gzopen(path.c_str(), "wb");
  gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
  gzclose(g);
  return path;
}

}  // namespace

TEST_CASE("a .gz larger than the in-memory share is inflated into a temporary file and mapped") {
  test::TempDir dir;
  const std::string text = lines(60000);  // about 2.3 MB
  const std::string gz = gzip_file(dir, "big.log.gz", text);
  auto small = FileBytes::open(gz, size_t(1) << 20);
  REQUIRE(small);
  CHECK(small.value().gzip());
  CHECK(small.value().spilled());
  CHECK(small.value().view() == text);
  auto roomy = FileBytes::open(gz);
  REQUIRE(roomy);
  CHECK_FALSE(roomy.value().spilled());
  CHECK(roomy.value().view() == text);
  // Moving keeps the mapping and its view.
  FileBytes moved(std::move(small.value()));
  CHECK(moved.view() == text);
}

TEST_CASE("a truncated .gz past the in-memory share still gives its readable prefix, and says so") {
  test::TempDir dir;
  const std::string text = lines(60000);
  std::string whole = test::read_file(gzip_file(dir, "whole.log.gz", text));
  const std::string cut = dir.file("cut.log.gz", whole.substr(0, whole.size() * 3 / 4));
  auto fb = FileBytes::open(cut, size_t(64) << 10);
  REQUIRE(fb);
  CHECK(fb.value().spilled());
  CHECK_FALSE(fb.value().damage().empty());
  CHECK(fb.value().view().size() > (size_t(64) << 10));
  CHECK(text.compare(0, fb.value().view().size(), fb.value().view()) == 0);
}

TEST_CASE("no room for a temporary file is an error that says where to make room") {
  test::TempDir dir;
  const std::string gz = gzip_file(dir, "big.log.gz", lines(60000));
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  setenv("TMPDIR", (dir.path() + "/no-such-dir").c_str(), 1);
  auto fb = FileBytes::open(gz, size_t(1) << 20);
  if (old) setenv("TMPDIR", saved.c_str(), 1);
  else unsetenv("TMPDIR");
  REQUIRE_FALSE(fb);
  CHECK(fb.error().message.find("temporary file") != std::string::npos);
  CHECK(fb.error().hint.find("TMPDIR") != std::string::npos);
}

TEST_CASE("released pages of a mapped file read the same bytes again") {
  test::TempDir dir;
  const std::string text = lines(200000);  // about 7.6 MB
  const std::string path = dir.file("plain.log", text);
  auto fb = FileBytes::open(path);
  REQUIRE(fb);
  FileBytes& b = fb.value();
  CHECK(b.view() == text);
  b.release(text.size() / 2);
  CHECK(b.view() == text);
  b.release(text.size());
  CHECK(b.view() == text);
}

TEST_CASE("binary detection: random bytes yes / logs with stray NULs or Latin-1 no") {
  std::string random(8192, '\0');
  uint32_t x = 2463534242u;
  for (auto& c : random) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    c = static_cast<char>(x);
  }
  CHECK(looks_binary(random));
  std::string log;
  while (log.size() < 8192) log += "Mar 14 09:41:07 node03 kernel: [86412.418316] NVRM: Xid (PCI:0000:b9:00): 74, caf\xe9\n";
  log.replace(100, 50, std::string(50, '\0'));
  CHECK_FALSE(looks_binary(log));
  CHECK_FALSE(looks_binary(""));
}
