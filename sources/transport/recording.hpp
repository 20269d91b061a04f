#pragma once
// The recording twins of the transports: they pass every call through to the real transport and
// keep what came back, as received, for an evidence bundle. Request headers are never kept (they
// carry credentials), and user:password@ is cut out of every URL.
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sources/transport/command.hpp"
#include "sources/transport/http.hpp"
#include "sources/transport/kube_auth.hpp"

namespace attribution {

struct RecordedCommand {
  std::vector<std::string> argv;
  std::optional<CommandOutput> output;  // unset: the program could not be started
  std::string error;
};

struct RecordedProbe {
  std::string program;
  bool available = false;
};

struct RecordedExchange {
  std::string method = "GET", url;
  std::optional<HttpResponse> response;  // unset: no response (refused, timed out, TLS)
  std::string error;
};

class RecordingRunner : public CommandRunner {
 public:
  explicit RecordingRunner(CommandRunner& inner) : inner_(inner) {}
  Result<CommandOutput> run(const std::vector<std::string>& argv) override;
  bool available(const std::string& program) override;
  std::vector<RecordedCommand> commands() const;
  std::vector<RecordedProbe> probes() const;

 private:
  CommandRunner& inner_;
  mutable std::mutex mu_;
  std::vector<RecordedCommand> commands_;
  std::vector<RecordedProbe> probes_;
};

class RecordingHttpClient : public HttpClient {
 public:
  using HttpClient::get;
  explicit RecordingHttpClient(HttpClient& inner) : inner_(inner) {}
  Result<HttpResponse> get(const HttpRequest& request) override;
  // The inner client's parallel fetch, recorded in request order: a bundle is the same bytes at
  // any `parallel`.
  std::vector<Result<HttpResponse>> get_all(const std::vector<HttpRequest>& requests, int parallel) override;
  std::vector<RecordedExchange> exchanges() const;

 private:
  void record(const HttpRequest& request, const Result<HttpResponse>& r);
  HttpClient& inner_;
  mutable std::mutex mu_;
  std::vector<RecordedExchange> exchanges_;
};

class RecordingKubeAccessResolver : public KubeAccessResolver {
 public:
  explicit RecordingKubeAccessResolver(KubeAccessResolver& inner) : inner_(inner) {}
  Result<KubeAccess> resolve(const KubeAuthOptions& options) override;
  std::vector<RecordedKubeAccess> resolved() const;

 private:
  KubeAccessResolver& inner_;
  mutable std::mutex mu_;
  std::vector<RecordedKubeAccess> resolved_;
};

}  // namespace attribution
