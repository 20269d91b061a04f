#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/scan/scan_inputs.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("scan inputs: a file's head and tail, the bytes to come, a sample") {
  test::TempDir d;
  const std::string text = "first line\nsecond line\nthird line\n", inline_text = "abc\n";
  std::string path = d.file("a.log", text);
  CHECK(file_part(path, 5) == "first");
  CHECK(file_part(path, 16, true) == "third line\n");  // from the next line start
  CHECK(file_part(d.path() + "/none.log", 5).empty());
  Collection c;
  c.sources.push_back(SourceRuntime{"s", "files", Stream::applog, TimeZone::utc(), std::nullopt});
  c.files.push_back(InputFile{path, 0, "", -1, nullptr});
  c.files.push_back(InputFile{"inline", 0, "", -1, std::make_shared<const std::string>(inline_text)});
  CHECK(input_bytes(c) == text.size() + inline_text.size());
  CHECK(input_sample(c) == text + inline_text);
  // Many large files: some of each part of the input, not only of its first files.
  Collection many;
  many.sources = c.sources;
  const std::string filler(200 << 10, 'x');
  for (int i = 0; i < 300; ++i)
    many.files.push_back(InputFile{"inline", 0, "", -1, std::make_shared<const std::string>(fmt::format("file {:03}\n", i) + filler)});
  const std::string sample = input_sample(many);
  CHECK(sample.find("file 000") != std::string::npos);
  CHECK(sample.find("file 15") != std::string::npos);
  CHECK(sample.find("file 29") != std::string::npos);
}

TEST_CASE("scan inputs: the job's year from its window, else from the logs' own full stamps") {
  Workload w;
  Collection c;
  c.sources.push_back(SourceRuntime{"s", "files", Stream::applog, TimeZone::utc(), std::nullopt});
  c.files.push_back(InputFile{"inline", 0, "", -1,
                              std::make_shared<const std::string>("Mar 14 09:41:07 node1 kernel: x\n"
                                                                  "[2024-03-14 09:41:08,101] [INFO] y\n")});
  JobYear from_logs = job_year(c, w);
  REQUIRE(from_logs.anchor);
  CHECK(micros_to_civil_utc(*from_logs.anchor).year == 2024);
  w.start = test::utc("2025-03-14T09:00:00Z");
  w.end = test::utc("2025-03-14T10:00:00Z");
  JobYear from_window = job_year(c, w);
  REQUIRE(from_window.anchor);
  CHECK(*from_window.anchor == test::utc("2025-03-14T09:30:00Z"));
}
