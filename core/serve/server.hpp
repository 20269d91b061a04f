#pragma once
// attribution serve (docs/serve.md): the dashboard, the REST API over the report store, and the
// service mode (POST a workload's evidence, get the diagnosis). cpp-httplib does the HTTP; this
// layer decides routes, limits, authentication and the bounded pool diagnoses run on.
#include <memory>
#include <optional>
#include <string>

#include "core/base/result.hpp"
#include "core/pipeline/diagnose.hpp"
#include "core/serve/push.hpp"
#include "core/store/store.hpp"

namespace attribution {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;    // 0: any free port (tests)
  std::string token;  // bearer token every request but /healthz must carry; empty: none
  int diagnoses = 2;  // diagnoses running at once; more POSTs wait their turn, then get 503
  int connections = 64;  // requests handled at once (a slow client holds one)
  int queue_seconds = 60;  // how long a POST waits for a diagnosis slot before 503
  PushLimits limits;
  std::optional<std::string> config_path;  // the config POSTed diagnoses read, as --logs would
};

// Listening beyond this machine needs a token: a refused combination, with what to do.
Status check_listen(const ServeOptions& options);

// Where a --token-file's token comes from: its first line, which must not be empty.
Result<std::string> read_token_file(const std::string& path);

class Server {
 public:
  Server(Store& store, std::shared_ptr<const PreparedRules> rules, ServeOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  Status bind();   // the address taken, or why not (in use, not an address of this machine)
  int port() const;
  void run();      // serves until stop()
  void stop();     // from any thread, also before run() has started

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attribution
