// Evidence bundles (read_bundle reads a directory). The input is bundle.json, written with a
// manifest that lists it under its true digest, so the fuzzer gets past the manifest checks; an
// input holding a NUL byte is split there instead: manifest.json before, bundle.json after.
// A few fixed payloads sit next to them for the index to point at. One temp dir per process,
// rewritten each run, so a run depends on its input only.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/pipeline/bundle.hpp"
#include "core/base/digest.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;
namespace fs = std::filesystem;

static void put(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

static const std::string& bundle_dir() {
  static const std::string dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "fuzz-bundle-XXXXXX").string();
    fuzz::check(mkdtemp(tmpl.data()) != nullptr, "mkdtemp");
    fs::create_directories(fs::path(tmpl) / "files");
    fs::create_directories(fs::path(tmpl) / "rules");
    fs::create_directories(fs::path(tmpl) / "commands");
    put(fs::path(tmpl) / "files/0001.log", "[2025-03-10 14:02:11] node01:1:1 [0] NCCL INFO hello\nno time\n");
    put(fs::path(tmpl) / "rules/001-x.toml", "[[rule]]\nid = \"x\"\n");
    put(fs::path(tmpl) / "commands/001.stdout", "{}\n");
    put(fs::path(tmpl) / "config.toml", "[workload]\nscheduler = \"none\"\n");
    // Removed at exit: libFuzzer runs millions of inputs in one process, the dir stays one dir.
    static std::string cleanup = tmpl;
    std::atexit([] { std::error_code ec; fs::remove_all(cleanup, ec); });
    return tmpl;
  }();
  return dir;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  const fs::path dir = bundle_dir();
  std::string_view in = fuzz::text(data, size);
  std::string manifest, index;
  if (size_t nul = in.find('\0'); nul != std::string_view::npos) {
    manifest = std::string(in.substr(0, nul));
    index = std::string(in.substr(nul + 1));
  } else {
    index = std::string(in);
    std::string files;
    for (const char* rel : {"files/0001.log", "rules/001-x.toml", "commands/001.stdout", "config.toml"}) {
      std::ifstream f(dir / rel, std::ios::binary);
      std::string body((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      files += std::string(",{\"path\":\"") + rel + "\",\"sha256\":\"" + sha256_hex(body) + "\"}";
    }
    manifest = "{\"format\":\"attribution-bundle\",\"version\":1,\"files\":[{\"path\":\"bundle.json\",\"sha256\":\"" +
               sha256_hex(index) + "\"}" + files + "]}";
  }
  put(dir / "manifest.json", manifest);
  put(dir / "bundle.json", index);
  auto b = read_bundle(dir.string());
  if (b) {
    ReplayRunner runner;
    ReplayHttpClient http;
    ReplayKubeAccessResolver kube;
    load_replay_transports(b->contents, runner, http, kube);
  }
  return 0;
}
