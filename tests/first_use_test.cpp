// Trust on first use: what a new user meets following the README, with the tests that keep each
// answer honest (dates, node lists, confidence, the CLI's conventions, rules tooling).
#include <catch2/catch.hpp>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "tests/cli_support.hpp"
#include "tests/test_json.hpp"
#include "tests/test_util.hpp"

using namespace attribution;
using test::run_cli;

namespace {

// A static workload (nodes, a 09:00-10:00 window, `extra` keys) and a files source over `paths`.
std::string static_job(const test::TempDir& d, const std::string& nodes, const std::string& extra, const std::string& paths) {
  d.file("job.toml", "id = \"9\"\nnodes = \"" + nodes + "\"\nstart = \"2025-03-14T09:00:00Z\"\n"
                     "end = \"2025-03-14T10:00:00Z\"\n" + extra);
  return d.file("a.toml", "[workload]\nscheduler = \"static\"\nstatic = \"job.toml\"\n\n[[source]]\nname = \"l\"\n"
                          "kind = \"files\"\npaths = [\"" + paths + "\"]\n");
}

}  // namespace

TEST_CASE("first use: the README's ad-hoc example dates the Xid in 2025 and finds one root cause", "[golden]") {
  auto r = run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --nodes 'node[01-04]' --format json", false);
  REQUIRE(r.exit_code == 0);
  simdjson::dom::parser p;
  auto doc = test::parse_json(p, r.out);
  CHECK(doc["root_causes"].get_array().size() == 1);
  CHECK(test::json_text(doc["root_causes"].at(0)["first_seen"]) == "2025-03-14T09:41:07.000000Z");
  CHECK(r.out.find("\"2027-") == std::string::npos);
  CHECK(r.out.find("\"2026-") == std::string::npos);
}

TEST_CASE("first use: --start or --end alone takes the other end from the logs", "[golden]") {
  simdjson::dom::parser p;
  auto a = run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --start 2025-03-14T09:00:00Z --format json", false);
  REQUIRE(a.exit_code == 0);
  auto doc = test::parse_json(p, a.out);
  CHECK(test::json_text(doc["workload"]["window"]["start"]) == "2025-03-14T08:45:00.000000Z");
  CHECK(test::json_text(doc["workload"]["window"]["end"]).rfind("2025-03-14T09:5", 0) == 0);  // the logs' last time
  auto b = run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --end 2025-03-14T10:00:00Z --format json", false);
  REQUIRE(b.exit_code == 0);
  auto doc2 = test::parse_json(p, b.out);
  CHECK(test::json_text(doc2["workload"]["window"]["start"]).rfind("2025-03-14T09:", 0) == 0);
  CHECK(test::json_text(doc2["workload"]["window"]["end"]) == "2025-03-14T10:05:00.000000Z");
}

TEST_CASE("first use: a line with no time in a file with none is dated unknown, not the copy time", "[golden]") {
  test::TempDir d;
  d.file("logs/pasted.log", "Traceback (most recent call last):\nValueError: invalid literal for int() with base 10: 'x'\n");
  simdjson::dom::parser p;
  auto r = run_cli("diagnose --logs " + d.path() + "/logs --format json", false);
  REQUIRE(r.exit_code == 0);
  auto doc = test::parse_json(p, r.out);
  CHECK(doc["evidence"].at(0)["time"].is_null());
  CHECK(doc["root_causes"].at(0)["first_seen"].is_null());
  CHECK(test::json_text(doc["root_causes"].at(0)["message"]) == "ValueError: invalid literal for int() with base 10: 'x'");
  auto text = run_cli("diagnose --logs " + d.path() + "/logs", false);
  CHECK(text.out.find("says: ValueError: invalid literal for int()") != std::string::npos);
  CHECK(text.out.find("(time unknown)") != std::string::npos);
}

TEST_CASE("first use: --nodes that names none of the logs' hosts is a loud warning naming both", "[golden]") {
  auto r = run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --nodes 'gpu[1-4]' --format json");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("attribution: warning: the job's node list (gpu1, gpu2, gpu3, gpu4) names none of the hosts the "
                   "logs name (node01, node02, node03, node04)") != std::string::npos);
  CHECK(r.out.find("\"host\": \"node03\"") != std::string::npos);  // the fault is still found, not dropped
  CHECK(r.out.find("\"confidence\": \"low\"") != std::string::npos);
}

TEST_CASE("first use: short and fully qualified names are one node / a fault off the list is kept and flagged", "[golden]") {
  simdjson::dom::parser p;
  auto fq = run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --nodes "
                    "'node01.cluster.local,node02.cluster.local,node03.cluster.local,node04.cluster.local' --format json",
                    false);
  REQUIRE(fq.exit_code == 0);
  auto doc = test::parse_json(p, fq.out);
  CHECK(test::json_text(doc["root_causes"].at(0)["host"]) == "node03");
  CHECK(test::json_text(doc["workload"]["nodes"].at(2)) == "node03");
  auto off = run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --nodes 'node[01-02]' --format json", false);
  REQUIRE(off.exit_code == 0);
  auto doc2 = test::parse_json(p, off.out);
  CHECK(test::json_text(doc2["root_causes"].at(0)["host"]) == "node03");
  CHECK(test::json_text(doc2["root_causes"].at(0)["detail"]).find("not one of the job's nodes") != std::string::npos);
}

TEST_CASE("first use: a source that produced nothing warns and lowers confidence / unreadable and empty alike", "[golden]") {
  test::TempDir d;
  d.file("empty/.keep", "");
  std::filesystem::remove(d.path() + "/empty/.keep");
  d.file("binary/a.log", std::string("\x00\x01\x02\x03garbage\x00\x00", 13));
  auto empty = run_cli("diagnose --logs " + d.path() + "/empty --format json");
  auto binary = run_cli("diagnose --logs " + d.path() + "/binary --format json");
  CHECK(empty.exit_code == 4);
  CHECK(binary.exit_code == 4);
  // Both are no usable data (exit 4) with a warning; the sources[] entry says which: nothing there,
  // or files skipped (binary, unreadable).
  CHECK(empty.out.find("\"status\": \"empty\"") != std::string::npos);
  CHECK(binary.out.find("skipped, binary content") != std::string::npos);
  CHECK(empty.out.find("attribution: warning: no source produced any data") != std::string::npos);
  CHECK(binary.out.find("attribution: warning: no source produced any data") != std::string::npos);
  auto typo = run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --logs " + d.path() + "/typo --format json");
  CHECK(typo.exit_code == 0);
  CHECK(typo.out.find("attribution: warning:") != std::string::npos);
  CHECK(typo.out.find("\"confidence\": \"medium\"") != std::string::npos);
  CHECK(typo.out.find("gave less than asked") != std::string::npos);
}

TEST_CASE("first use: an OOM kill names the killed process and its rank, and no GPU", "[golden]") {
  simdjson::dom::parser p;
  auto r = run_cli("diagnose --config examples/host-oom-kill/attribution.toml --format json", false);
  REQUIRE(r.exit_code == 0);
  auto root = test::parse_json(p, r.out)["root_causes"].at(0);
  CHECK(test::json_text(root["process"]) == "python3");
  CHECK(int64_t(root["pid"]) == 23793);
  CHECK(int64_t(root["rank"]) == 27);
  CHECK(root["gpu"].is_null());
  CHECK(root["pci"].is_null());
}

TEST_CASE("first use: srun --label task ids are ranks and nodes only through the job's layout", "[golden]") {
  test::TempDir d;
  auto line = "3: RuntimeError: CUDA error: an illegal memory access was encountered\n";
  d.file("logs/job.out", line);
  auto cfg = static_job(d, "n[1-2]", "tasks_per_node = 2\n", "logs/*.out");
  simdjson::dom::parser p;
  auto with = run_cli("diagnose --config " + cfg + " --format json", false);
  REQUIRE(with.exit_code == 0);
  auto root = test::parse_json(p, with.out)["root_causes"].at(0);
  CHECK(test::json_text(root["host"]) == "n2");
  CHECK(int64_t(root["rank"]) == 3);
  auto without = run_cli("diagnose --logs " + d.path() + "/logs --format json", false);
  REQUIRE(without.exit_code == 0);
  auto root2 = test::parse_json(p, without.out)["root_causes"].at(0);
  CHECK(root2["rank"].is_null());
  CHECK(root2["host"].is_null());
}

TEST_CASE("first use: a static exit_code may be Slurm's code:signal / the report keeps both", "[golden]") {
  test::TempDir d;
  d.file("logs/n1/a.log", "2025-03-14T09:10:00Z n1 kernel: Out of memory: Killed process 42 (python3)\n");
  auto cfg = static_job(d, "n1", "exit_code = \"0:9\"\n", "logs/{host}/*.log");
  simdjson::dom::parser p;
  auto r = run_cli("diagnose --config " + cfg + " --format json", false);
  REQUIRE(r.exit_code == 0);
  auto w = test::parse_json(p, r.out)["workload"];
  CHECK(int64_t(w["exit_code"]) == 0);
  CHECK(int64_t(w["exit_signal"]) == 9);
  d.file("job.toml", "id = \"9\"\nnodes = \"n1\"\nstart = \"2025-03-14T09:00:00Z\"\nexit_code = \"one\"\n");
  auto bad = run_cli("diagnose --config " + d.path() + "/a.toml");
  CHECK(bad.exit_code == 3);
  CHECK(bad.out.find("code:signal") != std::string::npos);
}

TEST_CASE("first use: the CLI follows conventions", "[golden]") {
  CHECK(run_cli("--version").out == std::string("attribution ") + ATTRIBUTION_VERSION + "\n");
  auto bogus = run_cli("diagnose --bogus");
  CHECK(bogus.exit_code == 2);
  CHECK(bogus.out.rfind("attribution: error: ", 0) == 0);
  auto help = run_cli("diagnose --help");
  for (const char* placeholder : {"--config FILE", "--before DURATION", "--nodes HOSTLIST", "--start TIME", "--record DIR",
                                  "-o,--output FILE", "--threads N"})
    CHECK(help.out.find(placeholder) != std::string::npos);
  test::TempDir d;
  auto json = run_cli("diagnose --logs examples/host-oom-kill/logs -o " + d.path() + "/r.json");
  CHECK(json.exit_code == 0);
  CHECK(test::read_file(d.path() + "/r.json").rfind("{\n", 0) == 0);
  CHECK(run_cli("diagnose --logs examples/host-oom-kill/logs -o " + d.path() + "/r.md").exit_code == 0);
  CHECK(test::read_file(d.path() + "/r.md").rfind("# Diagnosis", 0) == 0);
  CHECK(run_cli("diagnose --logs examples/host-oom-kill/logs --format md", false).out.rfind("# Diagnosis", 0) == 0);
  auto clash = run_cli("diagnose --logs examples/host-oom-kill/logs --format json -o " + d.path() + "/r.md");
  CHECK(clash.exit_code == 2);
  CHECK(clash.out.find("contradicts") != std::string::npos);
  auto dir = run_cli("diagnose --logs examples/host-oom-kill/logs -o " + d.path());
  CHECK(dir.exit_code == 5);
  CHECK(dir.out.find("is a directory") != std::string::npos);
  CHECK(run_cli("diagnose --logs examples/host-oom-kill/logs --threads -2").exit_code == 2);
  auto margins = run_cli("diagnose --logs examples/host-oom-kill/logs --before 10m");
  CHECK(margins.out.find("they do nothing") != std::string::npos);
  auto both = run_cli("diagnose --logs examples/host-oom-kill/logs --config examples/host-oom-kill/attribution.toml");
  CHECK(both.out.find("the config's [workload]") != std::string::npos);
}

TEST_CASE("first use: rules tooling takes --rules anywhere, the config's paths, and says what failed", "[golden]") {
  test::TempDir d;
  auto mine = d.file("mine.toml", "[[rule]]\nid = \"site.disk\"\ntitle = \"Site disk alarm\"\nliterals = [\"DISKALARM\"]\n"
                                  "pattern = 'DISKALARM (?P<volume>\\S+) at (?P<pct>\\d+)%'\nrole = \"cause\"\n"
                                  "category = \"disk_alarm\"\nfamily = \"storage\"\nblame = \"infrastructure\"\n"
                                  "action = \"Free the volume.\"\nmatch = [{ line = \"DISKALARM /scratch at 99%\", "
                                  "captures = { volume = \"/scratch\", pct = \"99\" } }]\n");
  CHECK(run_cli("rules show site.disk --rules " + mine).exit_code == 0);
  CHECK(run_cli("rules --rules " + mine + " show site.disk").exit_code == 0);
  CHECK(run_cli("rules list --rules " + mine).out.find("site.disk") != std::string::npos);
  auto cfg = d.file("site.toml", "[rules]\npaths = [\"" + mine + "\"]\n");
  CHECK(run_cli("rules show site.disk --config " + cfg).exit_code == 0);
  CHECK(run_cli("rules test --config " + cfg).out.find("ok   site.disk") != std::string::npos);
  // A failing sample shows the sample and the pattern; an unloadable file is said as such.
  auto bad = d.file("bad.toml", "[[rule]]\nid = \"x.y\"\ntitle = \"t\"\nliterals = [\"FOO\"]\npattern = 'FOO (\\d+)'\n"
                                "role = \"context\"\nmatch = [{ line = \"FOO x\" }]\n");
  auto fail = run_cli("rules test --rules " + bad);
  CHECK(fail.exit_code == 1);
  CHECK(fail.out.find("sample:   FOO x") != std::string::npos);
  CHECK(fail.out.find("pattern:  FOO (\\d+)") != std::string::npos);
  auto broken = d.file("broken.toml", "rules = [\n");
  auto load = run_cli("rules test " + broken);
  CHECK(load.exit_code == 1);
  CHECK(load.out.find("the rule file does not load") != std::string::npos);
  CHECK(load.out.find("-1 passed") == std::string::npos);
  CHECK(load.out.find("1 rule file(s) could not be loaded") != std::string::npos);
  // rules match reads .gz; the report's evidence carries a user rule's captures.
  auto log = d.file("logs/n1/app.log", "2025-03-14T09:10:00Z n1 app: DISKALARM /scratch at 99%\n");
  REQUIRE(std::system(("gzip -k " + log).c_str()) == 0);
  CHECK(run_cli("rules match --rules " + mine + " " + log + ".gz").out.find("site.disk (cause) pct=99 volume=/scratch") !=
        std::string::npos);
  auto rep = run_cli("diagnose --logs " + d.path() + "/logs/n1/app.log --rules " + mine + " --format json", false);
  CHECK(rep.out.find("\"volume\": \"/scratch\"") != std::string::npos);
}

TEST_CASE("first use: machine checks and EDAC: an uncorrectable error is a cause on its host, corrected ones are not", "[golden]") {
  test::TempDir d;
  d.file("logs/n7/kern.log",
         "Mar 14 09:10:00 n7 kernel: [ 100.1] mce: [Hardware Error]: Machine check events logged\n"
         "Mar 14 09:10:00 n7 kernel: [ 100.2] EDAC MC0: 4 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (x)\n"
         "Mar 14 09:20:00 n7 kernel: [ 700.2] mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 6: ba00000011000402\n");
  d.file("logs/n8/kern.log",
         "Mar 14 09:10:00 n8 kernel: [ 100.2] EDAC MC0: 4 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (x)\n");
  simdjson::dom::parser p;
  auto r = run_cli("diagnose --logs " + d.path() + "/logs --start 2025-03-14T09:00:00Z --end 2025-03-14T10:00:00Z "
                   "--format json", false);
  REQUIRE(r.exit_code == 0);
  auto doc = test::parse_json(p, r.out);
  CHECK(test::json_text(doc["outcome"]["family"]) == "host");
  CHECK(test::json_text(doc["root_causes"].at(0)["host"]) == "n7");
  CHECK(doc["root_causes"].get_array().size() == 1);  // n8's corrected errors are context
}

TEST_CASE("first use: one exit-status table: --help, README and docs/reliability.md agree", "[golden]") {
  auto help = run_cli("--help").out;
  std::string readme = test::read_file(std::string(ATTRIBUTION_SOURCE_DIR) + "/README.md");
  std::string reliability = test::read_file(std::string(ATTRIBUTION_SOURCE_DIR) + "/docs/reliability.md");
  size_t from = help.find("Exit status:");
  REQUIRE(from != std::string::npos);
  for (size_t a = help.find('\n', from) + 1, b; a < help.size() && help.compare(a, 2, "  ") == 0; a = b + 1) {
    b = help.find('\n', a);
    std::string row = help.substr(a, b - a);
    INFO(row);
    CHECK(readme.find(row) != std::string::npos);
    std::string code = row.substr(2, 1), what = row.substr(5);
    CHECK(reliability.find("| " + code + " | " + what + " |") != std::string::npos);
  }
}

// Each paste shape puts its fault on the machine it names, through the whole diagnosis: one fault
// per case (an Xid 79, or an IB port error in a pod's log file), alone in its directory, and the root
// cause's host is checked.
TEST_CASE("first use: pasted shapes name the machine the fault happened on", "[golden]") {
  const std::string xid = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.";
  struct Case {
    const char* file;
    std::string text;
    const char* host;
  };
  const Case cases[] = {
      {"pasted.log", "[me@login1 ~]$ ssh gpu-2-5 sudo dmesg\n[12345.678] " + xid + "\n", "gpu-2-5"},
      {"pasted.log", "root@HGX-H100-14:~# dmesg | grep Xid\n[12345.678] " + xid + "\n", "HGX-H100-14"},
      {"pasted.log", "==> logs/gpu-node-44/kern.log <==\n[12345.678] " + xid + "\n", "gpu-node-44"},
      {"pasted.log", "gpu-049: [Tue Mar  3 10:00:01 2026] " + xid + "\n", "gpu-049"},
      {"0.log", "2024-01-01T10:00:00.123456789Z stderr F gpu-node-91:1234:1290 [3] NCCL WARN NET/IB : Got async event : port error\n",
       "gpu-node-91"},
      {"pasted.log", "{\"hostname\": \"gpu-node-93\", \"message\": \"" + xid + "\"}\n", "gpu-node-93"},
      {"dmesg-gpu-node-5.txt", "[12345.678] " + xid + "\n", "gpu-node-5"},
      {"10.0.0.5.log", "[12345.678] " + xid + "\n", "10.0.0.5"},
      // A libibverbs warning printed without a prefix, in a paste whose other finding names one machine.
      {"pasted.log",
       "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0\n"
       "ip-0AB85F07: Test NCCL failure common.cu:775 'internal error'\n",
       "ip-0AB85F07"},
      // A plain srun typed at a login node's prompt: its output is not the login node's.
      {"pasted.log",
       "[me@login3 ~]$ time srun ./train.sh\nslurmstepd: error: *** STEP 608.0 ON gpub003 CANCELLED AT 2023-09-15T12:22:07 ***\n"
       "srun: error: gpub003: task 0: Killed\n",
       "gpub003"},
      // A job sent to one machine with sbatch -w: what is pasted under it is that machine's.
      {"pasted.log",
       "$ sbatch --exclusive -N1 -w gpu-node-66 --gres=gpu:8 --wrap 'sleep 20'\n"
       "JobId=77 JobState=PENDING Reason=launch_failed_requeued_held Dependency=(null)\n",
       "gpu-node-66"},
      // An ssh typed from a Windows terminal: the target's output.
      {"pasted.log", "PS C:\\Users\\me> ssh admin@gpu-node-49 dmesg\n[12345.678] " + xid + "\n", "gpu-node-49"},
      // A syslog record with its date cut off, a logfmt record, a Grafana export's label set.
      {"pasted.log", "rig-6600 kernel: " + xid + "\n", "rig-6600"},
      {"pasted.log", "time=\"2024-03-14T09:41:07Z\" host=gpu-node-61 level=error msg=\"" + xid + "\"\n", "gpu-node-61"},
      {"pasted.log", "2024-03-14 09:41:07.123\t{host=\"gpu-node-62\", job=\"varlogs\"}\tkernel: " + xid + "\n", "gpu-node-62"},
      // A machine's name right after the stamp, before a colon or a level word.
      {"pasted.log", "[2025-03-14 09:41:07] gpu-node-67: " + xid + "\n", "gpu-node-67"},
      {"pasted.log", "2025-03-14 09:41:07,123 gpu-node-68 ERROR " + xid + "\n", "gpu-node-68"},
      // A loop's banner before each host's output; an older kubectl event row's source column.
      {"pasted.log", "=== gpu-node-69 ===\n[12345.678] " + xid + "\n", "gpu-node-69"},
      {"pasted.log", "  Warning  KernelOops  3m  kernel-monitor, gpu-node-70  " + xid + "\n", "gpu-node-70"},
      // Per-host headers: a host alone with a colon, Ansible's, pssh's.
      {"pasted.log", "gpu-node-63:\n[12345.678] " + xid + "\n", "gpu-node-63"},
      {"pasted.log", "gpu-node-64 | FAILED | rc=1 >>\n[12345.678] " + xid + "\n", "gpu-node-64"},
      {"pasted.log", "[1] 10:41:07 [FAILURE] gpu-node-65 Exited with error code 1\n[12345.678] " + xid + "\n", "gpu-node-65"},
      {"pasted.log", "gpu-operator:\n[12345.678] " + xid + "\n", ""},  // a YAML key, not a machine
      // Names that are not machines: a program's output file, a template's placeholder.
      {"e3sm.log", "[12345.678] " + xid + "\n", ""},
      {"overlap.30.out-30", "[12345.678] " + xid + "\n", ""},
      {"pasted.log", "submitit WARNING (2022-08-12 02:06:11,453) - Caught signal SIGUSR2 on SERVER_NAME: this job is preempted.\n", ""},
  };
  simdjson::dom::parser p;
  for (const Case& c : cases) {
    test::TempDir d;
    d.file(std::string("logs/") + c.file, c.text);
    auto r = run_cli("diagnose --logs " + d.path() + "/logs --format json", false);
    REQUIRE(r.exit_code == 0);
    auto doc = test::parse_json(p, r.out);
    INFO(c.text);
    REQUIRE(doc["root_causes"].get_array().size() == 1);
    CHECK(test::json_text(doc["root_causes"].at(0)["host"]) == c.host);
  }
}
