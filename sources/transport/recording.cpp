#include "sources/transport/recording.hpp"

namespace attribution {

Result<CommandOutput> RecordingRunner::run(const std::vector<std::string>& argv) {
  auto r = inner_.run(argv);
  std::lock_guard lock(mu_);
  RecordedCommand c{argv, std::nullopt, {}};
  if (r) c.output = *r;
  else c.error = r.error().message;
  commands_.push_back(std::move(c));
  return r;
}

bool RecordingRunner::available(const std::string& program) {
  bool a = inner_.available(program);
  std::lock_guard lock(mu_);
  probes_.push_back(RecordedProbe{program, a});
  return a;
}

std::vector<RecordedCommand> RecordingRunner::commands() const {
  std::lock_guard lock(mu_);
  return commands_;
}

std::vector<RecordedProbe> RecordingRunner::probes() const {
  std::lock_guard lock(mu_);
  return probes_;
}

void RecordingHttpClient::record(const HttpRequest& request, const Result<HttpResponse>& r) {
  std::lock_guard lock(mu_);
  RecordedExchange e;
  e.url = url_without_userinfo(request.url);
  if (r) e.response = *r;
  else e.error = r.error().message;
  exchanges_.push_back(std::move(e));
}

Result<HttpResponse> RecordingHttpClient::get(const HttpRequest& request) {
  auto r = inner_.get(request);
  record(request, r);
  return r;
}

std::vector<Result<HttpResponse>> RecordingHttpClient::get_all(const std::vector<HttpRequest>& requests, int parallel) {
  auto out = inner_.get_all(requests, parallel);
  for (size_t i = 0; i < requests.size(); ++i) record(requests[i], out[i]);
  return out;
}

std::vector<RecordedExchange> RecordingHttpClient::exchanges() const {
  std::lock_guard lock(mu_);
  return exchanges_;
}

Result<KubeAccess> RecordingKubeAccessResolver::resolve(const KubeAuthOptions& options) {
  auto a = inner_.resolve(options);
  std::lock_guard lock(mu_);
  RecordedKubeAccess r{options.config_key, {}, {}, {}, std::nullopt};
  if (a) {
    r.server = url_without_userinfo(a->server);
    r.ns = a->ns;
    r.origin = a->origin;
  } else {
    r.error = a.error();
  }
  resolved_.push_back(std::move(r));
  return a;
}

std::vector<RecordedKubeAccess> RecordingKubeAccessResolver::resolved() const {
  std::lock_guard lock(mu_);
  return resolved_;
}

}  // namespace attribution
