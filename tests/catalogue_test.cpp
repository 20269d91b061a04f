// docs/rules-catalogue.md is the output of `attribution rules catalogue`; `rules lint` passes on
// the built-in rules and names file:line and rule id for each cross-rule problem.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "tests/cli_support.hpp"
#include "tests/test_util.hpp"

using attribution::test::run_cli;

TEST_CASE("docs/rules-catalogue.md is the output of rules catalogue", "[golden]") {
  auto r = run_cli("rules catalogue", false);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(std::string(ATTRIBUTION_SOURCE_DIR) + "/docs/rules-catalogue.md", std::ios::binary);
  std::stringstream doc;
  doc << in.rdbuf();
  INFO("docs/rules-catalogue.md is stale; regenerate it with: "
       "./build/attribution rules catalogue > docs/rules-catalogue.md");
  CHECK(doc.str() == r.out);
  CHECK(r.out.find("## rulesets/xid.toml") != std::string::npos);
  CHECK(r.out == run_cli("rules catalogue", false).out);
}

TEST_CASE("rules lint passes on the built-ins / reports cross-rule errors with file:line and id", "[golden]") {
  auto ok = run_cli("rules lint", false);
  INFO(ok.out.substr(ok.out.size() > 4000 ? ok.out.size() - 4000 : 0));
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find(" 0 lint error(s)") != std::string::npos);
  attribution::test::TempDir d;
  auto bad = d.file("bad.toml",
                    "[[rule]]\nid = \"my.rule\"\ntitle = \"t\"\nliterals = [\"boom\", \"bam\"]\npattern = 'boom'\n"
                    "role = \"cause\"\ncategory = \"c\"\nfamily = \"host\"\nblame = \"unknown\"\n"
                    "explains = [\"no.such.*\"]\nmatch = [{ line = \"boom\" }]\n");
  auto r = run_cli("rules lint " + bad, false);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("error: " + bad + ":1: rule my.rule: literal 'bam' is in no match sample") != std::string::npos);
  CHECK(r.out.find("error: " + bad + ":1: rule my.rule: explains 'no.such.*' selects no rule") != std::string::npos);
}
