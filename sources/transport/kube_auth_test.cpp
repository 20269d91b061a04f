#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sys/stat.h>

#include "sources/transport/kube_auth.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {
std::string fixture_path(const char* name) { return std::string(ATTRIBUTION_SOURCE_DIR) + "/tests/fixtures/kueue/" + name; }

// Options that see only the given environment, never the developer's own.
KubeAuthOptions isolated(std::map<std::string, std::string> env = {}) {
  KubeAuthOptions o;
  o.env = [env](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  return o;
}

bool has_header(const KubeAccess& a, const std::string& h) {
  return std::find(a.headers.begin(), a.headers.end(), h) != a.headers.end();
}
}  // namespace

TEST_CASE("base64 decoding") {
  CHECK(base64_decode("aGVsbG8=") == std::optional<std::string>("hello"));
  CHECK(base64_decode("aGVsbG8") == std::optional<std::string>("hello"));
  CHECK(base64_decode("aGVs\nbG8=") == std::optional<std::string>("hello"));
  CHECK_FALSE(base64_decode("aGV*bG8="));
  CHECK_FALSE(base64_decode("aG=Vs"));
}

TEST_CASE("kubeconfig: current context / -data certificates written to private files") {
  auto o = isolated();
  o.kubeconfig = fixture_path("kubeconfig-kubectl.yaml");
  std::string ca_path;
  {
    auto a = kube_access(o);
    REQUIRE(a);
    CHECK(a->server == "https://10.20.0.1:6443");
    CHECK(a->ns == "training");
    CHECK_FALSE(a->options.insecure_skip_verify);
    ca_path = a->options.ca_file;
    REQUIRE_FALSE(ca_path.empty());
    CHECK(test::read_file(ca_path).find("MIIBfakeCAforTestsOnly") != std::string::npos);
    struct stat st {};
    REQUIRE(stat(ca_path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(test::read_file(a->options.client_cert).find("MIIBfakeClientCert") != std::string::npos);
    CHECK(test::read_file(a->options.client_key).find("MHcfakeClientKey") != std::string::npos);
    CHECK(a->headers.size() == 1);  // Accept only: a certificate user sends no Authorization
    CHECK(a->origin.find("context gpu-prod-sre") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(ca_path));  // removed with the last copy
}

TEST_CASE("kubeconfig: a configured context / insecure only when true / basic auth") {
  auto o = isolated();
  o.kubeconfig = fixture_path("kubeconfig-kubectl.yaml");
  o.context = "kind";
  auto a = kube_access(o);
  REQUIRE(a);
  CHECK(a->server == "https://kind-control-plane:6443");
  CHECK(a->options.insecure_skip_verify);
  CHECK(a->ns.empty());
  CHECK(has_header(*a, "Authorization: Basic YWRtaW46czNjcjN0LXBhOnNz"));  // admin:s3cr3t-pa:ss
  o.context = "nope";
  auto missing = kube_access(o);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("no context 'nope'") != std::string::npos);
}

TEST_CASE("kubeconfig: token / relative certificate-authority / tokenFile wins / from $KUBECONFIG") {
  test::TempDir d;
  std::string kc = d.file("kube/config", test::read_file(fixture_path("kubeconfig-token.yaml")));
  d.file("kube/token.txt", "file-token-value\n");
  auto o = isolated({{"KUBECONFIG", d.path() + "/missing:" + kc}});
  auto a = kube_access(o);
  REQUIRE(a);
  CHECK(a->server == "https://api.gpu-prod.example:6443");
  CHECK(a->options.ca_file == d.path() + "/kube/certs/ca.pem");
  CHECK_FALSE(a->options.insecure_skip_verify);  // "false" is not true
  CHECK(has_header(*a, "Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2Vu.sig"));
  o.context = "with-file";
  o.ca_file = "/etc/override-ca.pem";
  o.timeout = 3 * kMicrosPerSecond;
  auto f = kube_access(o);
  REQUIRE(f);
  CHECK(has_header(*f, "Authorization: Bearer file-token-value"));
  CHECK(f->options.ca_file == "/etc/override-ca.pem");
  CHECK(f->options.timeout == 3 * kMicrosPerSecond);
  CHECK(f->options.connect_timeout == 3 * kMicrosPerSecond);
}

TEST_CASE("kubeconfig: JSON form and ~/.kube/config as the default") {
  test::TempDir d;
  d.file(".kube/config", test::read_file(fixture_path("kubeconfig.json")));
  auto a = kube_access(isolated({{"HOME", d.path()}}));
  REQUIRE(a);
  CHECK(a->server == "https://127.0.0.1:6443");
  CHECK(a->ns == "ml");
  CHECK(has_header(*a, "Authorization: Bearer json-token-value"));
}

TEST_CASE("in-cluster service account / explicitly or when no kubeconfig exists") {
  test::TempDir d;
  d.file("sa/token", "sa-token-value\n");
  d.file("sa/ca.crt", "PEM");
  d.file("sa/namespace", "training\n");
  auto o = isolated({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}, {"HOME", d.path()}});
  o.service_account_dir = d.path() + "/sa";
  auto a = kube_access(o);  // no kubeconfig anywhere: the pod's own identity
  REQUIRE(a);
  CHECK(a->server == "https://10.96.0.1:443");
  CHECK(a->ns == "training");
  CHECK(a->options.ca_file == d.path() + "/sa/ca.crt");
  CHECK(has_header(*a, "Authorization: Bearer sa-token-value"));
  CHECK(a->origin == "in-cluster service account");
  auto v6 = isolated({{"KUBERNETES_SERVICE_HOST", "fd00::1"}});
  v6.in_cluster = true;
  v6.service_account_dir = d.path() + "/sa";
  CHECK(kube_access(v6)->server == "https://[fd00::1]:443");
  auto outside = isolated();
  outside.in_cluster = true;
  auto e = kube_access(outside);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("KUBERNETES_SERVICE_HOST") != std::string::npos);
}

TEST_CASE("kube credential errors name the file and never a secret") {
  auto none = kube_access(isolated({{"HOME", "/nonexistent-home"}}));
  REQUIRE_FALSE(none);
  CHECK(none.error().kind == ErrorKind::config);
  CHECK(none.error().message.find("no Kubernetes credentials") != std::string::npos);

  auto o = isolated();
  o.kubeconfig = fixture_path("kubeconfig-exec.yaml");
  auto exec = kube_access(o);
  REQUIRE_FALSE(exec);
  CHECK(exec.error().message.find("exec") != std::string::npos);
  CHECK(exec.error().line > 0);

  test::TempDir d;
  o.kubeconfig = d.file("kc", "apiVersion: v1\nclusters:\n- name: c\n  cluster:\n    server: https://x\n    certificate-authority-data: not*base64*secret\n"
                              "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\nusers:\n- name: u\n  user:\n    token: tok-secret\n");
  auto bad = kube_access(o);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().line == 6);
  CHECK(bad.error().message.find("secret") == std::string::npos);
  CHECK(bad.error().hint.find("secret") == std::string::npos);

  HttpResponse refused{401, R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"};
  KubeAccess a;
  a.origin = "kubeconfig kc context x";
  a.headers = {"Authorization: Bearer tok-secret"};
  Error e = kube_refused(refused, "https://x/apis", a, "kueue");
  CHECK(e.kind == ErrorKind::config);
  CHECK(e.message == "the Kubernetes API server refused the request (HTTP 401): Unauthorized");
  CHECK(e.message.find("tok-secret") == std::string::npos);
  CHECK(e.hint.find("tok-secret") == std::string::npos);
}
