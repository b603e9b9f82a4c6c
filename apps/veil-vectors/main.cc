// veil-vectors: runs published conformance vectors against Veil and prints "N passed, N failed".
//
//   veil-vectors wycheproof FILE [--verbose]
//
// Exit status: 0 when every case passed, 1 when any failed, 2 for an unsupported or unreadable
// file.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "wycheproof.h"

int main(int argc, char** argv) {
  CLI::App app{"Run published conformance vectors against Veil"};
  app.require_subcommand(1);
  bool verbose = false;
  std::string file;
  CLI::App* wp = app.add_subcommand("wycheproof", "run a Project Wycheproof JSON file");
  wp->add_option("file", file, "Wycheproof test file")->required();
  wp->add_flag("-v,--verbose", verbose, "list every failed case");
  CLI11_PARSE(app, argc, argv);

  auto report = veil::vectors::RunWycheproofFile(file);
  if (!report.ok()) {
    std::fprintf(stderr, "veil-vectors: %s\n", report.status().ToString().c_str());
    return 2;
  }
  const std::size_t shown =
      verbose ? report->failures.size() : std::min<std::size_t>(report->failures.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) std::printf("FAIL %s\n", report->failures[i].c_str());
  std::printf("%s: %d passed, %d failed\n", report->algorithm.c_str(), report->passed,
              report->failed);
  return report->failed == 0 ? 0 : 1;
}
