#include "sources/slurm/slurm_parse.hpp"

#include <charconv>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/base/hostlist.hpp"

namespace attribution {
namespace {

constexpr int kNewestDataParser = 45;  // v0.0.45, Slurm 26.05 (formats.md §11)

using simdjson::dom::element;

// A number as any parser version writes it: plain, or {"set": true, "infinite": false, "number": N}.
std::optional<int64_t> num(element e) {
  int64_t i;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return i;
  uint64_t u;
  if (e.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
  simdjson::dom::object o;
  if (e.get_object().get(o) == simdjson::SUCCESS) {
    bool set = false, infinite = false;
    if (o["set"].get_bool().get(set) != simdjson::SUCCESS) set = false;
    if (o["infinite"].get_bool().get(infinite) != simdjson::SUCCESS) infinite = false;
    element n;
    if (set && !infinite && o["number"].get(n) == simdjson::SUCCESS) return num(n);
  }
  return std::nullopt;
}

std::optional<int64_t> num_at(element e, std::string_view key) {
  element v;
  if (e[key].get(v) != simdjson::SUCCESS) return std::nullopt;
  return num(v);
}

// A string, or the first string of an array (states became arrays in v0.0.40).
std::string str(element e) {
  std::string_view s;
  if (e.get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  simdjson::dom::array a;
  if (e.get_array().get(a) == simdjson::SUCCESS && a.size() > 0 && a.at(0).get_string().get(s) == simdjson::SUCCESS)
    return std::string(s);
  return {};
}

std::string str_at(element e, std::string_view key) {
  element v;
  return e[key].get(v) == simdjson::SUCCESS ? str(v) : std::string();
}

std::optional<Micros> epoch(std::optional<int64_t> secs) {
  if (!secs || *secs <= 0) return std::nullopt;
  return *secs * kMicrosPerSecond;
}

// exit_code: a raw wait status (openapi v0.0.38) or {status, return_code, signal} (dbv0.0.38, v0.0.39+).
void exit_fields(element e, std::optional<int>& code, std::optional<int>& signal) {
  if (auto raw = num(e)) {
    if (*raw & 0x7f) signal = static_cast<int>(*raw & 0x7f);
    code = static_cast<int>((*raw >> 8) & 0xff);
    return;
  }
  std::string status = str_at(e, "status");
  if (auto rc = num_at(e, "return_code")) code = static_cast<int>(*rc);
  element sig;
  if (e["signal"].get(sig) == simdjson::SUCCESS) {
    auto id = num_at(sig, "signal_id");
    if (!id) id = num_at(sig, "id");
    if (id && *id > 0) signal = static_cast<int>(*id);
  }
  if (status == "SIGNALED" && !code) code = 0;
}

SlurmStep parse_step(element s) {
  SlurmStep st;
  element step;
  if (s["step"].get(step) == simdjson::SUCCESS) {
    element id;
    if (step["id"].get(id) == simdjson::SUCCESS) {
      if (auto n = num(id)) st.id = std::to_string(*n);
      else st.id = str(id);
    }
    st.name = str_at(step, "name");
    auto job = num_at(step, "job_id");
    if (job && st.id.find('.') == std::string::npos) st.id = fmt::format("{}.{}", *job, st.id);
  }
  st.state = str_at(s, "state");
  element v;
  if (s["exit_code"].get(v) == simdjson::SUCCESS) exit_fields(v, st.exit_code, st.signal);
  if (s["nodes"].get(v) == simdjson::SUCCESS) st.nodes = v.is_string() ? str(v) : str_at(v, "range");
  if (s["time"].get(v) == simdjson::SUCCESS) {
    st.start = epoch(num_at(v, "start"));
    st.end = epoch(num_at(v, "end"));
  }
  return st;
}

SlurmJob parse_job(element j, const std::string& from) {
  SlurmJob job;
  job.from = from;
  job.job_id = num_at(j, "job_id").value_or(0);
  job.name = str_at(j, "name");
  job.user = str_at(j, "user_name");
  if (job.user.empty()) job.user = str_at(j, "user");
  element v;
  // State: sacct {"current", "reason"}; squeue/scontrol/restd "job_state" + "state_reason".
  if (j["state"].get(v) == simdjson::SUCCESS && v.is_object()) {
    job.state = str_at(v, "current");
    job.reason = str_at(v, "reason");
  }
  if (job.state.empty()) job.state = str_at(j, "job_state");
  if (job.reason.empty()) job.reason = str_at(j, "state_reason");
  job.nodes = str_at(j, "nodes");
  if (job.nodes.empty() && j["job_resources"].get(v) == simdjson::SUCCESS) {
    element n;
    if (v["nodes"].get(n) == simdjson::SUCCESS) job.nodes = n.is_string() ? str(n) : str_at(n, "list");
  }
  job.failed_node = str_at(j, "failed_node");
  job.batch_host = str_at(j, "batch_host");
  job.std_out = str_at(j, "standard_output");
  if (job.std_out.empty()) job.std_out = str_at(j, "stdout_expanded");
  if (job.std_out.empty()) job.std_out = str_at(j, "stdout");
  job.std_err = str_at(j, "standard_error");
  if (job.std_err.empty()) job.std_err = str_at(j, "stderr_expanded");
  if (job.std_err.empty()) job.std_err = str_at(j, "stderr");
  job.work_dir = str_at(j, "current_working_directory");
  if (job.work_dir.empty()) job.work_dir = str_at(j, "working_directory");
  job.restarts = num_at(j, "restart_cnt").value_or(0);
  if (j["exit_code"].get(v) == simdjson::SUCCESS) exit_fields(v, job.exit_code, job.signal);
  if (j["derived_exit_code"].get(v) == simdjson::SUCCESS) {
    std::optional<int> sig;
    exit_fields(v, job.derived_exit_code, sig);
  }
  if (j["time"].get(v) == simdjson::SUCCESS) {  // sacct
    job.submit = epoch(num_at(v, "submission"));
    job.start = epoch(num_at(v, "start"));
    job.end = epoch(num_at(v, "end"));
  } else {
    job.submit = epoch(num_at(j, "submit_time"));
    job.start = epoch(num_at(j, "start_time"));
    job.end = epoch(num_at(j, "end_time"));
  }
  // Arrays and heterogeneous jobs: sacct nests them ({job_id, task_id}), the others flatten them.
  auto id_pair = [&](const char* nested, const char* sub, const char* flat_job, const char* flat_sub,
                     std::optional<int64_t>& parent, std::optional<int64_t>& index) {
    element n;
    bool is_nested = j[nested].get(n) == simdjson::SUCCESS;
    auto p = is_nested ? num_at(n, "job_id") : num_at(j, flat_job);
    auto i = is_nested ? num_at(n, sub) : num_at(j, flat_sub);
    if (p && *p > 0 && i) parent = p, index = i;
  };
  id_pair("array", "task_id", "array_job_id", "array_task_id", job.array_job_id, job.array_task_id);
  id_pair("het", "job_offset", "het_job_id", "het_job_offset", job.het_job_id, job.het_offset);
  if (job.array_job_id) job.id = fmt::format("{}_{}", *job.array_job_id, *job.array_task_id);
  else if (job.het_job_id) job.id = fmt::format("{}+{}", *job.het_job_id, *job.het_offset);
  else job.id = std::to_string(job.job_id);
  simdjson::dom::array steps;
  if (j["steps"].get_array().get(steps) == simdjson::SUCCESS)
    for (element s : steps) job.steps.push_back(parse_step(s));
  return job;
}

}  // namespace

Result<std::vector<SlurmJob>> parse_slurm_json(std::string_view text, const std::string& from) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  element doc;
  if (auto err = parser.parse(padded).get(doc); err)
    return make_error(ErrorKind::input, fmt::format("not JSON: {}", simdjson::error_message(err)), from);
  simdjson::dom::array errors;
  if (doc["errors"].get_array().get(errors) == simdjson::SUCCESS && errors.size() > 0) {
    std::string msg = str_at(errors.at(0).value_unsafe(), "error");
    if (msg.empty()) msg = str_at(errors.at(0).value_unsafe(), "description");
    return make_error(ErrorKind::input, "Slurm reported an error: " + (msg.empty() ? std::string("(no text)") : msg), from);
  }
  simdjson::dom::array jobs;
  if (doc["jobs"].get_array().get(jobs) != simdjson::SUCCESS)
    return make_error(ErrorKind::input, "no \"jobs\" array in the output", from);
  // formats.md lists data_parser v0.0.38 to v0.0.45 (Slurm 22.05 to 26.05); a newer one is read
  // where its fields are found, and said.
  std::string data_parser;
  if (element meta; doc["meta"].get(meta) == simdjson::SUCCESS)
    if (element plugin; meta["plugin"].get(plugin) == simdjson::SUCCESS) data_parser = str_at(plugin, "data_parser");
  std::string problem;
  if (size_t v = data_parser.rfind("v0.0."); v != std::string::npos) {
    int minor = 0;
    auto [p, ec] = std::from_chars(data_parser.data() + v + 5, data_parser.data() + data_parser.size(), minor);
    if (ec == std::errc() && minor > kNewestDataParser)
      problem = fmt::format("{}: {} is newer than the newest data parser this version knows (v0.0.{}); fields "
                            "were read where they were found",
                            from, data_parser.substr(v), kNewestDataParser);
  }
  std::vector<SlurmJob> out;
  for (element j : jobs) {
    out.push_back(parse_job(j, from));
    if (!problem.empty()) out.back().problems.push_back(problem);
  }
  return out;
}

namespace {

// Splits "Key=Value Key=Value ..." where values may contain spaces (Command=, WorkDir=, Comment=):
// a new key starts at a space followed by a known key and '='.
std::vector<std::pair<std::string, std::string>> split_keys(std::string_view line) {
  static const char* const kKeys[] = {
      "JobId", "ArrayJobId", "ArrayTaskId", "ArrayTaskThrottle", "HetJobId", "HetJobOffset", "HetJobIdSet", "JobName",
      "UserId", "GroupId", "MCS_label", "Priority", "Nice", "Account", "QOS", "JobState", "Reason", "FailedNode",
      "Dependency", "Requeue", "Restarts", "BatchFlag", "Reboot", "ExitCode", "DerivedExitCode", "RunTime", "TimeLimit",
      "TimeMin", "SubmitTime", "EligibleTime", "AccrueTime", "StartTime", "EndTime", "Deadline", "SuspendTime",
      "SecsPreSuspend", "LastSchedEval", "Scheduler", "Partition", "AllocNode:Sid", "ReqNodeList", "ExcNodeList",
      "NodeList", "BatchHost", "NumNodes", "NumCPUs", "NumTasks", "CPUs/Task", "ReqB:S:C:T", "TRES", "ReqTRES",
      "AllocTRES", "Socks/Node", "NtasksPerN:B:S:C", "CoreSpec", "MinCPUsNode", "MinMemoryNode", "MinMemoryCPU",
      "MinTmpDiskNode", "Features", "DelayBoot", "OverSubscribe", "Contiguous", "Licenses", "Network", "Command",
      "WorkDir", "StdErr", "StdIn", "StdOut", "Power", "TresPerNode", "TresPerJob", "Comment", "MailUser", "MailType",
      "CpusPerTres", "MemPerTres", "TresBind", "TresFreq", "Reservation", "NtasksPerTRES", "Container", "ContainerID"};
  std::vector<std::pair<std::string, std::string>> out;
  auto key_at = [&](size_t pos) -> size_t {  // length of a known key + '=' at pos, or 0
    for (const char* k : kKeys) {
      size_t n = std::strlen(k);
      if (line.compare(pos, n, k) == 0 && pos + n < line.size() && line[pos + n] == '=') return n;
    }
    return 0;
  };
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\n')) ++i;
  while (i < line.size()) {
    size_t klen = key_at(i);
    if (!klen) {  // an unknown key: take up to '='
      size_t eq = line.find('=', i);
      if (eq == std::string_view::npos) break;
      klen = eq - i;
    }
    std::string key(line.substr(i, klen));
    size_t v = i + klen + 1, e = v;
    while (e < line.size()) {
      if ((line[e] == ' ' || line[e] == '\n') && e + 1 < line.size()) {
        size_t n = e;
        while (n < line.size() && (line[n] == ' ' || line[n] == '\n')) ++n;
        if (n >= line.size() || key_at(n)) break;
      }
      ++e;
    }
    std::string value(line.substr(v, e - v));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\n')) value.pop_back();
    out.emplace_back(std::move(key), std::move(value));
    i = e;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\n')) ++i;
  }
  return out;
}

std::optional<Micros> text_time(const std::string& v, const TimeZone& tz) {
  if (v.empty() || v == "Unknown" || v == "None" || v == "N/A") return std::nullopt;
  auto t = parse_time_value(v, tz);
  return t ? std::optional<Micros>(*t) : std::nullopt;
}

std::optional<int64_t> text_int(const std::string& v) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || v[0] == '-') return std::nullopt;  // too big: unknown
  return n;
}

}  // namespace

Result<std::vector<SlurmJob>> parse_scontrol_text(std::string_view text, const TimeZone& tz) {
  // Records start at "JobId="; the multi-line form continues on indented lines.
  std::vector<std::string_view> records;
  for (size_t pos = text.find("JobId="); pos != std::string_view::npos;) {
    size_t next = text.find("\nJobId=", pos);
    records.push_back(text.substr(pos, next == std::string_view::npos ? text.npos : next - pos));
    pos = next == std::string_view::npos ? next : next + 1;
  }
  if (records.empty()) return make_error(ErrorKind::input, "no JobId= record in scontrol output");
  std::vector<SlurmJob> out;
  for (auto rec : records) {
    SlurmJob job;
    job.from = "scontrol show job";
    for (const auto& [k, v] : split_keys(rec)) {
      if (k == "JobId") job.job_id = text_int(v).value_or(0);
      else if (k == "ArrayJobId") job.array_job_id = text_int(v);
      else if (k == "ArrayTaskId") job.array_task_id = text_int(v);
      else if (k == "HetJobId") job.het_job_id = text_int(v);
      else if (k == "HetJobOffset") job.het_offset = text_int(v);
      else if (k == "JobName") job.name = v;
      else if (k == "UserId") job.user = v.substr(0, v.find('('));
      else if (k == "JobState") job.state = v;
      else if (k == "Reason") job.reason = v;
      else if (k == "FailedNode") job.failed_node = v;
      else if (k == "Restarts") job.restarts = text_int(v).value_or(0);
      else if (k == "NumTasks") job.num_tasks = text_int(v);
      else if (k == "NumNodes") job.num_nodes = text_int(v.substr(0, v.find('-')));
      else if (k == "ExitCode" || k == "DerivedExitCode") {
        size_t colon = v.find(':');
        auto code = text_int(v.substr(0, colon));
        std::optional<int64_t> sig;
        if (colon != std::string::npos) sig = text_int(v.substr(colon + 1));
        if (k == "ExitCode") {
          job.exit_code = code ? std::optional<int>(static_cast<int>(*code)) : std::nullopt;
          if (sig && *sig) job.signal = static_cast<int>(*sig);
        } else if (code) {
          job.derived_exit_code = static_cast<int>(*code);
        }
      } else if (k == "SubmitTime") job.submit = text_time(v, tz);
      else if (k == "StartTime") job.start = text_time(v, tz);
      else if (k == "EndTime") job.end = text_time(v, tz);
      else if (k == "NodeList") job.nodes = v == "(null)" ? "" : v;
      else if (k == "BatchHost") job.batch_host = v;
      else if (k == "StdOut") job.std_out = v;
      else if (k == "StdErr") job.std_err = v;
      else if (k == "WorkDir") job.work_dir = v;
    }
    if (job.array_job_id && job.array_task_id) job.id = fmt::format("{}_{}", *job.array_job_id, *job.array_task_id);
    else if (job.het_job_id && job.het_offset) job.id = fmt::format("{}+{}", *job.het_job_id, *job.het_offset);
    else job.id = std::to_string(job.job_id);
    out.push_back(std::move(job));
  }
  return out;
}

namespace {

// The '|'-separated fields of each line of parsable (-P / -o '%a|%b') output.
std::vector<std::vector<std::string_view>> pipe_rows(std::string_view text) {
  std::vector<std::vector<std::string_view>> rows;
  for (size_t a = 0; a < text.size();) {
    size_t b = text.find('\n', a);
    if (b == std::string_view::npos) b = text.size();
    std::string_view line = text.substr(a, b - a);
    a = b + 1;
    std::vector<std::string_view> f;
    for (size_t p = 0; p <= line.size();) {
      size_t q = line.find('|', p);
      if (q == std::string_view::npos) q = line.size();
      f.push_back(line.substr(p, q - p));
      p = q + 1;
    }
    rows.push_back(std::move(f));
  }
  return rows;
}

}  // namespace

std::vector<NodeReason> parse_sinfo_reasons(std::string_view text, const TimeZone& tz) {
  std::vector<NodeReason> out;
  for (const auto& f : pipe_rows(text)) {
    if (f.size() < 3 || f[0].empty()) continue;
    // The reason itself may contain '|': it is everything after the second field.
    std::string reason(f[2]);
    for (size_t i = 3; i < f.size(); ++i) {
      reason += '|';
      reason += f[i];
    }
    out.push_back(NodeReason{std::string(f[0]), reason, text_time(std::string(f[1]), tz)});
  }
  return out;
}

std::vector<NodeReason> parse_slurm_nodes_json(std::string_view text) {
  std::vector<NodeReason> out;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  element doc;
  simdjson::dom::array nodes;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS || doc["nodes"].get_array().get(nodes) != simdjson::SUCCESS)
    return out;
  for (element n : nodes) {
    NodeReason r{str_at(n, "name"), str_at(n, "reason"), epoch(num_at(n, "reason_changed_at"))};
    if (!r.node.empty() && !r.reason.empty()) out.push_back(std::move(r));
  }
  return out;
}

std::vector<NodeReason> parse_node_events(std::string_view text, const TimeZone& tz) {
  std::vector<NodeReason> out;
  for (const auto& f : pipe_rows(text)) {
    // Cluster-wide events have no node; only DOWN/DRAIN/FAIL states say a node was taken out.
    if (f.size() < 4 || f[0].empty() || f[2].find_first_of("DF") != 0) continue;
    out.push_back(NodeReason{std::string(f[0]), std::string(f[3]), text_time(std::string(f[1]), tz)});
  }
  return out;
}

std::string expand_slurm_path(std::string_view p, const SlurmJob& job) {
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != '%' || i + 1 >= p.size()) {
      out += p[i];
      continue;
    }
    // An optional zero-padding width: %5j. Slurm pads to at most 10 ("a value greater than
    // 10 is used the result is padding up to 10 characters", sbatch(1)); saturating keeps
    // a long digit run from overflowing.
    size_t j = i + 1;
    int width = 0;
    while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) width = std::min(10, width * 10 + (p[j++] - '0'));
    if (j >= p.size()) break;
    auto num = [&](int64_t v) { return fmt::format("{:0{}}", v, width); };
    switch (p[j]) {
      case '%': out += '%'; break;
      case 'j': out += num(job.job_id); break;
      case 'J': out += num(job.job_id); break;
      case 'A': out += num(job.array_job_id.value_or(job.job_id)); break;
      case 'a': out += job.array_task_id ? num(*job.array_task_id) : "4294967294"; break;
      case 'u': out += job.user; break;
      case 'x': out += job.name; break;
      case 'N': {
        auto hosts = expand_hostlist(job.batch_host.empty() ? job.nodes : job.batch_host);
        out += hosts && !hosts->empty() ? hosts->front() : std::string("%N");
        break;
      }
      case 'n': out += num(0); break;  // node index of the batch step
      case 't': out += num(0); break;  // task id of the batch step
      case 's': out += "batch"; break;
      default: out += p.substr(i, j - i + 1);
    }
    i = j;
  }
  return out;
}

}  // namespace attribution
