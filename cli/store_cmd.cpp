// history, nodes and serve: the commands that read the report store.
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <pthread.h>
#include <thread>

#include "cli/commands.hpp"
#include "cli/messages.hpp"
#include "core/base/duration.hpp"
#include "core/pipeline/config.hpp"
#include "core/serve/server.hpp"
#include "core/store/store.hpp"
#include "core/store/store_render.hpp"

namespace attribution::cli {
namespace {

struct StoreOptions {
  std::string store, config, format = "text", since, family, host;
  int64_t limit = 50, min = 2;
};

Result<std::unique_ptr<Store>> open_for_reading(const StoreOptions& o) {
  std::string where;
  ATTRIBUTION_TRY(where, store_location(o.store, o.config));
  if (where.empty())
    return make_error(ErrorKind::usage, "no report store named", {}, 0, {},
                      "pass --store FILE, or set [store] path in the config");
  return open_store(where, false);
}

Result<std::optional<Micros>> since(const StoreOptions& o) {
  if (o.since.empty()) return std::optional<Micros>();
  auto d = parse_duration(o.since);
  if (!d) return make_error(ErrorKind::usage, "--since: " + d.error().message, {}, 0, {}, "e.g. --since 7d");
  return std::optional<Micros>(wall_clock_now() - *d);
}

int run_history(const StoreOptions& o) {
  auto store = open_for_reading(o);
  if (!store) return report_error(store.error());
  auto from = since(o);
  if (!from) return report_error(from.error());
  auto list = (*store)->reports(ReportQuery{o.family, o.host, *from, o.limit});
  if (!list) return report_error(list.error());
  std::string out = o.format == "json" ? render_reports_json(*list) : render_reports_text(*list);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kDiagnosed;
}

int run_nodes(const StoreOptions& o) {
  auto store = open_for_reading(o);
  if (!store) return report_error(store.error());
  auto from = since(o);
  if (!from) return report_error(from.error());
  auto nodes = (*store)->nodes(*from, o.min);
  if (!nodes) return report_error(nodes.error());
  std::string out = o.format == "json" ? render_nodes_json(*nodes) : render_nodes_text(*nodes);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kDiagnosed;
}

struct ServeCommand {
  StoreOptions store;
  std::string listen = "127.0.0.1:8080", token_file;
  std::vector<std::string> rules;
  int diagnoses = 2;
};

Status parse_listen(const std::string& text, ServeOptions& o) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return make_error(ErrorKind::usage, fmt::format("--listen {} is not HOST:PORT", text), {}, 0, {},
                      "e.g. --listen 127.0.0.1:8080");
  o.host = text.substr(0, colon);
  if (o.host.size() > 2 && o.host.front() == '[' && o.host.back() == ']') o.host = o.host.substr(1, o.host.size() - 2);
  try {
    size_t used = 0;
    o.port = std::stoi(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1 || o.port < 0 || o.port > 65535) throw std::out_of_range("port");
  } catch (const std::exception&) {
    return make_error(ErrorKind::usage, fmt::format("--listen {}: the port is not a number from 0 to 65535", text));
  }
  return Ok{};
}

int run_serve(const ServeCommand& c) {
  ServeOptions options;
  if (auto st = parse_listen(c.listen, options); !st) return report_error(st.error());
  if (!c.token_file.empty()) {
    auto token = read_token_file(c.token_file);
    if (!token) return report_error(token.error());
    options.token = *token;
  }
  if (auto st = check_listen(options); !st) return report_error(st.error());
  options.diagnoses = c.diagnoses;
  if (!c.store.config.empty()) options.config_path = c.store.config;
  std::string where;
  if (auto w = store_location(c.store.store, c.store.config); !w) return report_error(w.error());
  else where = *w;
  if (where.empty())
    return report_error(make_error(ErrorKind::usage, "serve needs a report store", {}, 0, {},
                                   "pass --store FILE (created if missing), or set [store] path in the config"));
  auto store = open_store(where, true);
  if (!store) return report_error(store.error());
  // Rules once, for every diagnosis the server makes: the config's [rules] and --rules, as a
  // --logs diagnosis would load them.
  auto config = load_config(c.store.config.empty() ? std::nullopt : std::optional<std::string>(c.store.config));
  if (!config) return report_error(config.error());
  std::vector<std::string> rule_paths = config->rule_paths;
  rule_paths.insert(rule_paths.end(), c.rules.begin(), c.rules.end());
  auto rules = prepare_rules(rule_paths);
  if (!rules) return report_error(rules.error());
  // SIGINT and SIGTERM stop the server from a thread of their own: stop() is not signal-safe.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  Server server(**store, *rules, options);
  if (auto st = server.bind(); !st) return report_error(st.error());
  std::fprintf(stderr, "attribution: serving %s on http://%s:%d/ (dashboard /, API /api/v1/, docs/serve.md)\n",
               (*store)->location().c_str(), options.host.c_str(), server.port());
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server.stop();
  });
  server.run();
  pthread_kill(waiter.native_handle(), SIGTERM);  // when run() ended otherwise, release the waiter
  waiter.join();
  std::fprintf(stderr, "attribution: stopped\n");
  return kDiagnosed;
}

void add_store_option(CLI::App* cmd, StoreOptions& o) {
  cmd->add_option("--store", o.store, "The report store: a SQLite file (default: the config's [store] path)")
      ->type_name("FILE");
  cmd->add_option("--config", o.config, "Config file whose [store] names the store")->type_name("FILE");
}

void add_list_options(CLI::App* cmd, StoreOptions& o) {
  add_store_option(cmd, o);
  cmd->add_option("--since", o.since, "Only diagnoses made in this last span (7d, 12h, 30m)")->type_name("DURATION");
  cmd->add_option("--format", o.format, "text (a table) or json (the API's answer)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("text|json");
}

}  // namespace

Result<std::string> store_location(const std::string& flag, const std::string& config_path) {
  if (!flag.empty()) return flag;
  auto config = load_config(config_path.empty() ? std::nullopt : std::optional<std::string>(config_path));
  if (!config) return config.error();
  return config->store;
}

void add_store_commands(CLI::App& app, int* exit_code) {
  auto h = std::make_shared<StoreOptions>();
  CLI::App* history = app.add_subcommand("history", "List stored diagnoses, newest first");
  add_list_options(history, *h);
  history->add_option("--family", h->family, "Only this outcome family (e.g. nvlink)")->type_name("F");
  history->add_option("--host", h->host, "Only diagnoses naming this node")->type_name("H");
  history->add_option("--limit", h->limit, "At most N rows")->default_val(50)->check(CLI::Range(1, 100000))
      ->type_name("N");
  history->footer("Example:\n  attribution history --store reports.db --family nvlink --since 7d\n");
  history->callback([h, exit_code] { *exit_code = run_history(*h); });

  auto n = std::make_shared<StoreOptions>();
  CLI::App* nodes = app.add_subcommand("nodes", "Repeat offenders: nodes at the root of several stored diagnoses");
  add_list_options(nodes, *n);
  nodes->add_option("--min", n->min, "Only nodes at the root of at least N diagnoses")->default_val(2)
      ->check(CLI::Range(1, 1000000))->type_name("N");
  nodes->footer("Example:\n  attribution nodes --store reports.db --since 7d --min 2\n");
  nodes->callback([n, exit_code] { *exit_code = run_nodes(*n); });

  auto s = std::make_shared<ServeCommand>();
  CLI::App* serve = app.add_subcommand("serve", "Serve the dashboard and the REST API over a report store");
  add_store_option(serve, s->store);
  serve->add_option("--listen", s->listen, "Address to listen on; beyond 127.0.0.1 it needs --token-file")
      ->default_val("127.0.0.1:8080")->type_name("HOST:PORT");
  serve->add_option("--token-file", s->token_file,
                    "File whose first line is the bearer token every request but /healthz must carry")
      ->type_name("FILE");
  serve->add_option("--rules", s->rules, "Extra rule file or directory for POSTed diagnoses (loaded once)")
      ->type_name("PATH");
  serve->add_option("--diagnoses", s->diagnoses, "POSTed diagnoses run at once (more wait their turn)")
      ->default_val(2)->check(CLI::Range(1, 32))->type_name("N");
  serve->footer(
      "Routes: GET / (dashboard), GET /reports/{id}, GET /api/v1/reports?family=&host=&since=&limit=,\n"
      "GET /api/v1/reports/{id}[.html|.md], GET /api/v1/nodes?since=&min=, POST /api/v1/diagnose,\n"
      "GET /healthz, GET /metrics. Details, the store schema and the security model: docs/serve.md\n\n"
      "Example:\n"
      "  attribution diagnose --config examples/xid79-gpu-fallen-off-bus/attribution.toml --store reports.db\n"
      "  attribution serve --store reports.db      (then open http://127.0.0.1:8080/)\n");
  serve->callback([s, exit_code] { *exit_code = run_serve(*s); });
}

}  // namespace attribution::cli
