#pragma once
// How to reach a Kubernetes API server: a kubeconfig file (the configured path, else $KUBECONFIG,
// else ~/.kube/config; the configured context, else current-context) or the in-cluster service
// account. The result is a base URL, transport options and auth headers. Tokens, passwords and
// keys never appear in an error message, an origin string or a log.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"
#include "core/base/toml_util.hpp"
#include "sources/transport/http.hpp"

namespace attribution {

struct KubeAuthOptions {
  std::string kubeconfig;   // empty: $KUBECONFIG (first existing file of the list), else ~/.kube/config
  std::string context;      // empty: the kubeconfig's current-context
  bool in_cluster = false;  // use the pod's service account even when a kubeconfig exists
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  std::string ca_file;      // overrides the cluster's CA
  Micros timeout = 30 * kMicrosPerSecond;
  std::string config_key = "kueue";  // names the config section in errors
  // Environment lookup (tests pass their own); default std::getenv.
  std::function<std::optional<std::string>(const std::string&)> env;
};

// The keys [kueue] and a kubernetes source share (docs/kubernetes.md): namespace, kubeconfig,
// context, in_cluster, ca_file, timeout. Values absent from the table are left as they are, so
// one table can fill in another's defaults; relative paths resolve against `base_dir` ("~/..."
// is left for the home directory).
struct KubeKeys {
  std::string ns;
  KubeAuthOptions auth;
};
Status parse_kube_keys(const TomlReader& r, KubeKeys& out, const std::string& base_dir);

// Private copies of *-data certificates and keys (mode 0600), for curl, which reads files.
// Removed when the last KubeAccess holding them goes.
class KubeTempFiles {
 public:
  KubeTempFiles() = default;
  KubeTempFiles(const KubeTempFiles&) = delete;
  KubeTempFiles& operator=(const KubeTempFiles&) = delete;
  ~KubeTempFiles();
  Result<std::string> write(const std::string& content, const std::string& what);

 private:
  std::vector<std::string> paths_;
};

struct KubeAccess {
  std::string server;                // "https://10.0.0.1:6443", no trailing slash
  HttpOptions options;               // CA, client certificate, insecure flag, timeout
  std::vector<std::string> headers;  // Accept, and Authorization when the user has a token or password
  std::string ns;                    // the context's (or service account's) namespace; may be empty
  std::string origin;                // "kubeconfig FILE context NAME" or "in-cluster service account"
  std::shared_ptr<KubeTempFiles> temp;
};

Result<KubeAccess> kube_access(const KubeAuthOptions& options);

// Finding the access is a transport step too: kubeconfig and service-account files are read on
// this machine, so a bundle keeps only what they led to (the server, namespace and origin; never a
// credential) and a replay answers from that.
class KubeAccessResolver {
 public:
  virtual ~KubeAccessResolver() = default;
  virtual Result<KubeAccess> resolve(const KubeAuthOptions& options) = 0;
};

class LocalKubeAccessResolver : public KubeAccessResolver {
 public:
  Result<KubeAccess> resolve(const KubeAuthOptions& options) override { return kube_access(options); }
};

// What one resolution gave, by the config section that asked (options.config_key).
struct RecordedKubeAccess {
  std::string config_key, server, ns, origin;
  std::optional<Error> error;
};

class ReplayKubeAccessResolver : public KubeAccessResolver {
 public:
  void add(RecordedKubeAccess r) { recorded_.push_back(std::move(r)); }
  Result<KubeAccess> resolve(const KubeAuthOptions& options) override;

 private:
  std::vector<RecordedKubeAccess> recorded_;
};

// GET server + path (path and query already encoded) with the access's headers and options.
// metav1.Status as API servers answer errors: {"kind":"Status","code":404,"reason":"NotFound",...}.
struct KubeStatus {
  int64_t code = 0;
  std::string reason, message, details_kind, details_name;
};

// nullopt when the body is not a Status object.
std::optional<KubeStatus> parse_kube_status(std::string_view json);

Result<HttpResponse> kube_get(HttpClient& http, const KubeAccess& access, const std::string& path);

// 401/403: the credentials were refused; a config error naming the request and where the
// credentials came from (the API server's Status message, never a credential).
Error kube_refused(const HttpResponse& response, const std::string& url, const KubeAccess& access,
                   const std::string& config_key);

// Standard base64 (RFC 4648) with or without padding; nullopt for anything else.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace attribution
