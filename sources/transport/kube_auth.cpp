#include "sources/transport/kube_auth.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>

#include "core/base/text.hpp"
#include "core/base/duration.hpp"
#include "core/base/toml_util.hpp"
#include <tuple>
#include "sources/transport/http_auth.hpp"
#include "sources/transport/kube_yaml.hpp"

namespace attribution {
namespace fs = std::filesystem;

KubeTempFiles::~KubeTempFiles() {
  for (const auto& p : paths_) {
    std::error_code ec;
    fs::remove(p, ec);
  }
}

Result<std::string> KubeTempFiles::write(const std::string& content, const std::string& what) {
  std::string templ = (fs::temp_directory_path() / "attribution-kube-XXXXXX").string();
  int fd = mkstemp(templ.data());  // mode 0600: only this user reads the key
  if (fd < 0) return make_error(ErrorKind::config, fmt::format("cannot create a private temporary file for {}", what));
  paths_.push_back(templ);
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (done != content.size()) return make_error(ErrorKind::config, fmt::format("cannot write a temporary file for {}", what));
  return templ;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == ' ') continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad) return std::nullopt;  // data after padding
    int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
          : c == '+' ? 62 : c == '/' ? 63 : -1;
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  if (pad > 2 || bits >= 6) return std::nullopt;
  return out;
}

namespace {

std::optional<std::string> env_of(const KubeAuthOptions& o, const std::string& name) {
  if (o.env) return o.env(name);
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

std::string expand_home(const std::string& path, const KubeAuthOptions& o) {
  if (path == "~" || path.rfind("~/", 0) == 0) {
    auto home = env_of(o, "HOME");
    if (home && !home->empty()) return *home + path.substr(1);
  }
  return path;
}

Error config_error(const KubeAuthOptions& o, std::string message, std::string file = {}, long line = 0,
                   std::string hint = {}) {
  return make_error(ErrorKind::config, std::move(message), std::move(file), line, o.config_key + ".kubeconfig",
                    std::move(hint));
}

Result<KubeAccess> in_cluster(const KubeAuthOptions& o) {
  auto host = env_of(o, "KUBERNETES_SERVICE_HOST");
  if (!host || host->empty())
    return make_error(ErrorKind::config, "in_cluster = true, but KUBERNETES_SERVICE_HOST is not set (not running in a pod?)",
                      {}, 0, o.config_key + ".in_cluster", "run inside the cluster, or set kubeconfig");
  std::string port = env_of(o, "KUBERNETES_SERVICE_PORT").value_or("443");
  if (port.empty()) port = "443";
  KubeAccess a;
  bool v6 = host->find(':') != std::string::npos;
  a.server = v6 ? fmt::format("https://[{}]:{}", *host, port) : fmt::format("https://{}:{}", *host, port);
  fs::path dir = o.service_account_dir;
  auto token = read_secret_file((dir / "token").string());
  if (!token)
    return make_error(ErrorKind::config, "cannot read the service account token", (dir / "token").string(), 0,
                      o.config_key + ".in_cluster", "mount a service account token into the pod (automountServiceAccountToken)");
  a.headers.push_back("Authorization: Bearer " + *token);
  std::error_code ec;
  if (fs::exists(dir / "ca.crt", ec)) a.options.ca_file = (dir / "ca.crt").string();
  if (auto ns = read_text_file((dir / "namespace").string())) a.ns = std::string(trim_right(*ns));
  a.origin = "in-cluster service account";
  return a;
}

const YamlNode* named(const YamlNode& root, const char* list, const std::string& name, const char* field) {
  const YamlNode* l = root.get(list);
  if (!l || l->kind != YamlNode::Kind::seq) return nullptr;
  for (const auto& item : l->seq)
    if (item.str("name") == name) return item.get(field);
  return nullptr;
}

// A file path in a kubeconfig is relative to the kubeconfig's directory.
std::string relative_to(const std::string& path, const fs::path& dir) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (dir / path).string();
}

// A PEM given inline (*-data, base64) or as a file: the file curl reads.
Result<std::string> pem_file(const YamlNode& node, const std::string& key, const fs::path& dir, KubeAccess& a,
                             const KubeAuthOptions& o, const std::string& file) {
  std::string data = node.str(key + "-data");
  if (!data.empty()) {
    auto pem = base64_decode(data);
    if (!pem)
      return config_error(o, fmt::format("{}-data is not base64", key), file, node.get(key + "-data")->line,
                          "paste the value kubectl writes (base64 of the PEM file)");
    if (!a.temp) a.temp = std::make_shared<KubeTempFiles>();
    return a.temp->write(*pem, key);
  }
  return relative_to(node.str(key), dir);
}

Result<KubeAccess> from_kubeconfig(const std::string& file, const KubeAuthOptions& o) {
  auto text = read_text_file(file);
  if (!text) return config_error(o, "cannot read the kubeconfig", file);
  auto doc = parse_kube_yaml(*text, file);
  if (!doc) return doc.error();
  const YamlNode& root = *doc;
  if (root.kind != YamlNode::Kind::map) return config_error(o, "a kubeconfig is a mapping (apiVersion, clusters, ...)", file, 1);
  fs::path dir = fs::path(file).parent_path();
  std::string ctx_name = o.context.empty() ? root.str("current-context") : o.context;
  if (ctx_name.empty())
    return config_error(o, "the kubeconfig has no current-context", file, 0,
                        "set context in the config, or run `kubectl config use-context NAME`");
  const YamlNode* ctx = named(root, "contexts", ctx_name, "context");
  if (!ctx || ctx->kind != YamlNode::Kind::map)
    return make_error(ErrorKind::config, fmt::format("the kubeconfig has no context '{}'", ctx_name), file, 0,
                      o.config_key + ".context", "list them with `kubectl config get-contexts`");
  std::string cluster_name = ctx->str("cluster"), user_name = ctx->str("user");
  const YamlNode* cluster = named(root, "clusters", cluster_name, "cluster");
  if (!cluster || cluster->kind != YamlNode::Kind::map)
    return config_error(o, fmt::format("context '{}' names cluster '{}', which the kubeconfig does not define", ctx_name, cluster_name),
                        file, ctx->line);
  KubeAccess a;
  a.server = cluster->str("server");
  while (!a.server.empty() && a.server.back() == '/') a.server.pop_back();
  if (a.server.empty()) return config_error(o, fmt::format("cluster '{}' has no server", cluster_name), file, cluster->line);
  a.ns = ctx->str("namespace");
  a.origin = fmt::format("kubeconfig {} context {}", file, ctx_name);
  std::string ca;
  ATTRIBUTION_TRY(ca, pem_file(*cluster, "certificate-authority", dir, a, o, file));
  a.options.ca_file = ca;
  std::string insecure = cluster->str("insecure-skip-tls-verify");
  a.options.insecure_skip_verify = insecure == "true" || insecure == "True" || insecure == "TRUE";
  const YamlNode* user = user_name.empty() ? nullptr : named(root, "users", user_name, "user");
  if (!user_name.empty() && !user)
    return config_error(o, fmt::format("context '{}' names user '{}', which the kubeconfig does not define", ctx_name, user_name),
                        file, ctx->line);
  if (user && user->kind == YamlNode::Kind::map) {
    if (user->get("exec") || user->get("auth-provider"))
      return config_error(o, fmt::format("user '{}' gets its credentials from an exec or auth-provider plugin, which attribution does not run", user_name),
                          file, user->line, "use a kubeconfig with a token (e.g. a service account token) or client certificate");
    std::string cert, key;
    ATTRIBUTION_TRY(cert, pem_file(*user, "client-certificate", dir, a, o, file));
    ATTRIBUTION_TRY(key, pem_file(*user, "client-key", dir, a, o, file));
    a.options.client_cert = cert;
    a.options.client_key = key;
    if (std::string tf = relative_to(user->str("tokenFile"), dir); !tf.empty()) {
      // client-go: a token file, re-read as it rotates, wins over an inline token.
      auto t = read_secret_file(tf);
      if (!t) return config_error(o, fmt::format("cannot read the tokenFile of user '{}'", user_name), tf);
      a.headers.push_back("Authorization: Bearer " + *t);
    } else if (std::string t = user->str("token"); !t.empty()) {
      a.headers.push_back("Authorization: Bearer " + t);
    } else if (std::string u = user->str("username"); !u.empty()) {
      a.headers.push_back("Authorization: Basic " + base64(u + ":" + user->str("password")));
    }
  }
  return a;
}

}  // namespace

Result<KubeAccess> kube_access(const KubeAuthOptions& o) {
  Result<KubeAccess> a = Error{};
  std::error_code ec;
  if (o.in_cluster) {
    a = in_cluster(o);
  } else if (!o.kubeconfig.empty()) {
    a = from_kubeconfig(expand_home(o.kubeconfig, o), o);
  } else if (auto list = env_of(o, "KUBECONFIG"); list && !list->empty()) {
    std::string found;
    for (size_t b = 0; b <= list->size() && found.empty();) {
      size_t e = list->find(':', b);
      if (e == std::string::npos) e = list->size();
      std::string p = list->substr(b, e - b);
      if (!p.empty() && fs::is_regular_file(p, ec)) found = p;
      b = e + 1;
    }
    if (found.empty())
      return config_error(o, "no file named in $KUBECONFIG exists", {}, 0, "check $KUBECONFIG, or set kubeconfig in the config");
    a = from_kubeconfig(found, o);
  } else if (std::string home = expand_home("~/.kube/config", o); home[0] != '~' && fs::is_regular_file(home, ec)) {
    a = from_kubeconfig(home, o);
  } else if (auto host = env_of(o, "KUBERNETES_SERVICE_HOST"); host && !host->empty()) {
    a = in_cluster(o);
  } else {
    return config_error(o, "no Kubernetes credentials: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not running in a pod",
                        {}, 0, "set kubeconfig = \"PATH\" in the config, or in_cluster = true inside the cluster");
  }
  if (!a) return a;
  if (!o.ca_file.empty()) a->options.ca_file = o.ca_file;
  a->options.timeout = o.timeout;
  a->options.connect_timeout = std::min(a->options.connect_timeout, o.timeout);
  a->headers.insert(a->headers.begin(), "Accept: application/json, */*");
  return a;
}

Result<HttpResponse> kube_get(HttpClient& http, const KubeAccess& a, const std::string& path) {
  return http.get(HttpRequest{a.server + path, a.headers, a.options});
}

Status parse_kube_keys(const TomlReader& r, KubeKeys& out, const std::string& base_dir) {
  auto path = [&](std::string p) {
    if (!p.empty() && p[0] != '~' && std::filesystem::path(p).is_relative())
      p = (std::filesystem::path(base_dir) / p).string();
    return p;
  };
  for (auto [key, field, is_path] : {std::tuple{"namespace", &out.ns, false}, std::tuple{"kubeconfig", &out.auth.kubeconfig, true},
                                     std::tuple{"context", &out.auth.context, false}, std::tuple{"ca_file", &out.auth.ca_file, true}}) {
    std::optional<std::string> v;
    ATTRIBUTION_TRY(v, r.str(key));
    if (v) *field = is_path ? path(*v) : *v;
  }
  std::optional<bool> in_cluster;
  ATTRIBUTION_TRY(in_cluster, r.boolean("in_cluster"));
  if (in_cluster) out.auth.in_cluster = *in_cluster;
  return r.positive_duration("timeout", out.auth.timeout);
}

std::optional<KubeStatus> parse_kube_status(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json.data(), json.size()).get(doc) != simdjson::SUCCESS) return std::nullopt;
  if (doc.type() != simdjson::dom::element_type::OBJECT) return std::nullopt;
  auto str = [](simdjson::dom::element e, std::string_view key) {
    std::string_view v;
    return e[key].get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
  };
  if (str(doc, "kind") != "Status") return std::nullopt;
  KubeStatus s;
  int64_t code = 0;
  if (doc["code"].get(code) == simdjson::SUCCESS) s.code = code;
  s.reason = str(doc, "reason");
  s.message = str(doc, "message");
  simdjson::dom::element details;
  if (doc["details"].get(details) == simdjson::SUCCESS) {
    s.details_kind = str(details, "kind");
    s.details_name = str(details, "name");
  }
  return s;
}

Error kube_refused(const HttpResponse& r, const std::string& url, const KubeAccess& a, const std::string& key) {
  std::string said;
  if (auto st = parse_kube_status(r.body); st && !st->message.empty()) said = ": " + st->message.substr(0, 300);
  std::string hint = r.status == 401
                         ? fmt::format("the token or certificate from {} is not accepted (expired, revoked, or for another cluster)", a.origin)
                         : fmt::format("the identity from {} lacks RBAC permission: it needs get/list on workloads.kueue.x-k8s.io, pods, pods/log and events", a.origin);
  return make_error(ErrorKind::config, fmt::format("the Kubernetes API server refused the request (HTTP {}){}", r.status, said),
                    url, 0, key + ".kubeconfig", hint);
}

Result<KubeAccess> ReplayKubeAccessResolver::resolve(const KubeAuthOptions& options) {
  for (const auto& r : recorded_) {
    if (r.config_key != options.config_key) continue;
    if (r.error) return *r.error;
    KubeAccess a;
    a.server = r.server;
    a.ns = r.ns;
    a.origin = r.origin;
    a.options.timeout = options.timeout;
    a.headers = {"Accept: application/json"};
    return a;
  }
  return make_error(ErrorKind::input, "the bundle has no record of how the Kubernetes API was reached", {}, 0,
                    options.config_key);
}

}  // namespace attribution
