#include "core/scan/json_record.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("json record: a string field as written, or nothing") {
  const std::string_view r = R"({"log": "gpu-7:1:2 [0] NCCL WARN x\n", "stream" :"stderr", "n": 12, "e": "a\"b"})";
  CHECK(json_field(r, "log") == std::optional<std::string_view>(R"(gpu-7:1:2 [0] NCCL WARN x\n)"));
  CHECK(json_field(r, "stream") == std::optional<std::string_view>("stderr"));
  CHECK_FALSE(json_field(r, "n"));         // not a string
  CHECK_FALSE(json_field(r, "missing"));
  CHECK(json_field(r, "e") == std::optional<std::string_view>(R"(a\"b)"));  // escapes kept
  CHECK_FALSE(json_field(R"({"log": "cut)", "nope"));
  CHECK(json_field(R"({"log": "cut)", "log") == std::optional<std::string_view>("cut"));  // an unclosed value: what there is
}

TEST_CASE("json record: journald fields first, else host and time fields, else the message's own prefix") {
  auto j = json_record_prefix(R"({"__REALTIME_TIMESTAMP":"1700000000000000","_HOSTNAME":"n1","MESSAGE":"x"})", parse_line_prefix);
  CHECK(j.epoch == std::optional<Micros>(1700000000000000));
  CHECK(j.host == "n1");
  auto f = json_record_prefix(R"({"hostname": "gpu-node-93", "timestamp": "2025-03-14T09:41:07Z", "message": "x"})", parse_line_prefix);
  CHECK(f.host == "gpu-node-93");
  REQUIRE(f.civil);
  CHECK(f.civil->year == 2025);
  // The message is read by the caller's prefix reader.
  static int calls = 0;
  auto counting = [](std::string_view m) {
    ++calls;
    return parse_line_prefix(m);
  };
  auto d = json_record_prefix(R"({"log": "gpu-7:1:2 [0] NCCL WARN x", "stream": "stderr"})", +counting);
  CHECK(calls == 1);
  CHECK(d.host == "gpu-7");
  CHECK(d.pid == 1);
}

TEST_CASE("logfmt records (logrus, Vector): time and host fields, else the message's prefix") {
  const std::string_view r =
      R"(time="2026-05-28T08:32:40Z" level=info msg="gpuid[0] is set to unhealthy" host=gpu-node-3 func="x.go:191")";
  CHECK(logfmt_record(r));
  CHECK(logfmt_field(r, "level") == std::optional<std::string_view>("info"));
  CHECK(logfmt_field(r, "msg") == std::optional<std::string_view>("gpuid[0] is set to unhealthy"));
  CHECK_FALSE(logfmt_field(r, "missing"));
  LinePrefix p = parse_line_prefix(r);
  CHECK(p.host == "gpu-node-3");
  REQUIRE(p.civil);
  CHECK(p.civil->year == 2026);
  CHECK(p.civil->hour == 8);
  // No host field: the message's NCCL prefix names the machine.
  LinePrefix q = parse_line_prefix(R"(ts=2024-03-14T09:41:07.5Z level=error msg="gpu-7:12:34 [0] NCCL WARN x")");
  CHECK(q.host == "gpu-7");
  CHECK_FALSE(logfmt_record("timeout=30 level=info"));
  CHECK_FALSE(logfmt_record("the time=now"));
}

TEST_CASE("a Loki label set after the stamp names the stream's machine") {
  LinePrefix p = parse_line_prefix("2024-03-14 09:41:07.123\t{host=\"gpu-node-3\", job=\"varlogs\"}\tkernel: NVRM: Xid 79");
  CHECK(p.host == "gpu-node-3");
  REQUIRE(p.civil);
  CHECK(p.civil->minute == 41);
  CHECK(parse_line_prefix("2024-03-14T09:41:07Z {instance=\"10.0.3.17:9100\"} x").host == "10.0.3.17");
  CHECK(parse_line_prefix("2024-03-14T09:41:07Z {job=\"varlogs\"} x").host.empty());
  CHECK(parse_line_prefix("2024-03-14T09:41:07Z {node_name=\"gpu-node-4\"} x").host == "gpu-node-4");  // the records' keys
  std::string_view none;
  CHECK(label_set("{not a label set}", 0, &none) == 0);
  CHECK(label_set("{a=\"b\"", 0, &none) == 0);  // never closed
}
