#include <catch2/catch.hpp>

#include "sources/transport/kube_yaml.hpp"
#include "tests/test_util.hpp"

using namespace attribution;


TEST_CASE("kubeconfig YAML: kubectl config view --raw shape") {
  auto doc = parse_kube_yaml(test::fixture("kueue/kubeconfig-kubectl.yaml"), "kc.yaml");
  REQUIRE(doc);
  CHECK(doc->str("current-context") == "gpu-prod-sre");
  const YamlNode* clusters = doc->get("clusters");
  REQUIRE(clusters);
  REQUIRE(clusters->kind == YamlNode::Kind::seq);  // unindented under its key, as kubectl writes it
  REQUIRE(clusters->seq.size() == 2);
  CHECK(clusters->seq[0].str("name") == "gpu-prod");
  CHECK(clusters->seq[0].get("cluster")->str("server") == "https://10.20.0.1:6443");
  CHECK(clusters->seq[1].get("cluster")->str("insecure-skip-tls-verify") == "true");
  CHECK(doc->get("preferences")->kind == YamlNode::Kind::map);
  const YamlNode* users = doc->get("users");
  CHECK(users->seq[1].get("user")->str("password") == "s3cr3t-pa:ss");
}

TEST_CASE("kubeconfig YAML: indented sequences / quotes / comments / flow mappings") {
  auto doc = parse_kube_yaml(test::fixture("kueue/kubeconfig-token.yaml"), "kc.yaml");
  REQUIRE(doc);
  CHECK(doc->str("current-context") == "diag");
  const YamlNode* contexts = doc->get("contexts");
  REQUIRE(contexts->seq.size() == 2);
  const YamlNode* ctx = contexts->seq[0].get("context");
  REQUIRE(ctx->kind == YamlNode::Kind::map);
  CHECK(ctx->str("namespace") == "training");
  CHECK(doc->get("clusters")->seq[0].str("name") == "gpu-prod");
  CHECK(doc->get("users")->seq[0].get("user")->str("token") == "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2Vu.sig");
}

TEST_CASE("kubeconfig YAML: scalars and escapes") {
  auto doc = parse_kube_yaml("a: 'it''s'\nb: \"x\\ty\\u00e9\"\nc: ~\nd: plain # comment\ne: [1, \"two\", {k: v}]\nf: a#b\n", "f");
  REQUIRE(doc);
  CHECK(doc->str("a") == "it's");
  CHECK(doc->str("b") == "x\ty\xc3\xa9");
  CHECK(doc->get("c")->kind == YamlNode::Kind::null);
  CHECK(doc->str("d") == "plain");
  CHECK(doc->get("e")->seq.size() == 3);
  CHECK(doc->get("e")->seq[2].str("k") == "v");
  CHECK(doc->str("f") == "a#b");
}

TEST_CASE("kubeconfig YAML: JSON form through simdjson") {
  auto doc = parse_kube_yaml(test::fixture("kueue/kubeconfig.json"), "kc.json");
  REQUIRE(doc);
  CHECK(doc->str("current-context") == "ctx");
  CHECK(doc->get("users")->seq[0].get("user")->str("token") == "json-token-value");
}

TEST_CASE("kubeconfig YAML: anything outside the subset is an error with file and line and no value") {
  struct Bad {
    const char* text;
    long line;
    const char* says;
  };
  for (const Bad& b : {Bad{"a: 1\nb: &anchor secret-value\n", 2, "anchors"},
                       Bad{"a: 1\nb: *alias\n", 2, "anchors"},
                       Bad{"a: 1\nkey: |\n  secret-value\n", 2, "block scalars"},
                       Bad{"a:\n\tb: secret-value\n", 2, "tab"},
                       Bad{"a: 1\nb: secret-value\n  continued\n", 3, "continue"},
                       Bad{"a: 1\na: secret-value\n", 2, "twice"},
                       Bad{"a: \"secret-value\n", 1, "does not end"},
                       Bad{"a: 1\n---\nb: 2\n", 2, "several"},
                       Bad{"a: 1\njust-secret-value\n", 2, "key: value"},
                       Bad{"a: !!str secret-value\n", 1, "tags"}}) {
    auto doc = parse_kube_yaml(b.text, "bad.yaml");
    INFO(b.text);
    REQUIRE_FALSE(doc);
    CHECK(doc.error().file == "bad.yaml");
    CHECK(doc.error().line == b.line);
    CHECK(doc.error().message.find(b.says) != std::string::npos);
    CHECK(doc.error().message.find("secret-value") == std::string::npos);
  }
}
