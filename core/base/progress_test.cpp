#include "core/base/progress.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("the progress line says files, bytes and rate") {
  CHECK(format_progress(12, 340, 3LL * 1024 * 1024 * 1024 / 2, 2.0) == "scanning 12/340 files, 1.5 GiB, 768.0 MiB/s");
  CHECK(format_progress(0, 5, 0, 0) == "scanning 0/5 files, 0 B, -");
  CHECK(format_progress(1, 1, 2048, 1.0) == "scanning 1/1 files, 2.0 KiB, 2.0 KiB/s");
}
