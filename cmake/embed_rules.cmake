# Reads DIR/*.toml and writes OUT: a C++ file holding every ruleset file as (name, text) so the binary needs no files.
set(content "// Generated from rulesets/*.toml; do not edit.\n#include \"core/rules/rules.hpp\"\nnamespace attribution {\nconst std::vector<EmbeddedRuleset>& builtin_rulesets() {\n  static const std::vector<EmbeddedRuleset> sets = {\n")
file(GLOB FILES ${DIR}/*.toml)
list(SORT FILES)
# The digest a load of exactly these texts gives (load_rule_sources hashes "name\ntext\n" per source):
# computed here, so a diagnosis with only the built-ins does not hash 4 MB of TOML at every start.
set(all "")
foreach(f ${FILES})
  file(READ ${f} text)
  get_filename_component(name ${f} NAME)
  string(APPEND content "    {\"rulesets/${name}\", R\"__attr__(${text})__attr__\"},\n")
  string(APPEND all "rulesets/${name}\n${text}\n")
endforeach()
string(SHA256 digest "${all}")
string(APPEND content "  };\n  return sets;\n}\nconst char* builtin_rulesets_digest() { return \"${digest}\"; }\n}  // namespace attribution\n")
file(WRITE ${OUT} "${content}")
