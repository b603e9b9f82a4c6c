// veil-vectors: runs published conformance vectors against Veil and prints "N passed, N failed".
//
//   veil-vectors wycheproof FILE [-v]   Project Wycheproof JSON of a supported algorithm
//   veil-vectors hpke FILE [-v]         RFC 9180 test-vectors.json (entries of supported suites)
//   veil-vectors acvp FILE [-v]         NIST ACVP internalProjection.json, ML-KEM or ML-DSA
//   veil-vectors cctv-mlkem-modulus FILE        C2SP/CCTV invalid ML-KEM-768 keys (all rejected)
//   veil-vectors cctv-mldsa-accumulated FILE    C2SP/CCTV accumulated ML-DSA-65 hash
//   veil-vectors frost FILE [-v]        RFC 9591 FROST vectors (or ZF FROST's variant)
//
// Exit status: 0 when every case passed, 1 when any failed, 2 for an unsupported or unreadable
// file.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>

#include "frost_vectors.h"
#include "hpke_vectors.h"
#include "mldsa_vectors.h"
#include "mlkem_vectors.h"
#include "wycheproof.h"

namespace {

using veil::Result;
using veil::vectors::Report;

int Print(const Result<Report>& report, bool verbose) {
  if (!report.ok()) {
    std::fprintf(stderr, "veil-vectors: %s\n", report.status().ToString().c_str());
    return 2;
  }
  const std::size_t shown =
      verbose ? report->failures.size() : std::min<std::size_t>(report->failures.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) std::printf("FAIL %s\n", report->failures[i].c_str());
  if (report->skipped > 0) {
    std::printf("%s: %d passed, %d failed, %d skipped\n", report->algorithm.c_str(), report->passed,
                report->failed, report->skipped);
  } else {
    std::printf("%s: %d passed, %d failed\n", report->algorithm.c_str(), report->passed,
                report->failed);
  }
  return report->failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Run published conformance vectors against Veil"};
  app.require_subcommand(1);
  bool verbose = false;
  std::string file;
  std::function<Result<Report>()> run;

  auto add = [&](const char* name, const char* what,
                 std::function<Result<Report>(const nlohmann::json&)> runner) {
    CLI::App* sub = app.add_subcommand(name, what);
    sub->add_option("file", file, "vector file")->required();
    sub->add_flag("-v,--verbose", verbose, "list every failed case");
    sub->callback([&run, &file, runner] {
      run = [&file, runner]() -> Result<Report> {
        VEIL_ASSIGN_OR_RETURN(nlohmann::json j, veil::vectors::LoadJsonFile(file));
        return runner(j);
      };
    });
  };
  add("wycheproof", "run a Project Wycheproof JSON file", veil::vectors::RunWycheproof);
  add("hpke", "run an RFC 9180 test-vectors.json file", veil::vectors::RunHpkeVectors);
  add("frost", "run an RFC 9591 FROST vector file (ristretto255 or Ed25519, SHA-512)",
      veil::vectors::RunFrostVectors);
  add("acvp", "run a NIST ACVP internalProjection.json (ML-KEM or ML-DSA)",
      [](const nlohmann::json& j) -> Result<Report> {
        const std::string alg = j.value("algorithm", "");
        if (alg == "ML-KEM") return veil::vectors::RunAcvpMlKem(j);
        if (alg == "ML-DSA") return veil::vectors::RunAcvpMlDsa(j);
        return veil::InvalidArgument("unsupported ACVP algorithm: " + alg);
      });
  auto add_path = [&](const char* name, const char* what,
                      std::function<Result<Report>(const std::string&)> runner) {
    CLI::App* sub = app.add_subcommand(name, what);
    sub->add_option("file", file, "vector file")->required();
    sub->add_flag("-v,--verbose", verbose, "list every failed case");
    sub->callback([&run, &file, runner] { run = [&file, runner] { return runner(file); }; });
  };
  add_path("cctv-mlkem-modulus", "check that every C2SP/CCTV invalid-modulus key is rejected",
           veil::vectors::RunCctvMlKemModulus);
  add_path("cctv-mldsa-accumulated", "reproduce the C2SP/CCTV accumulated ML-DSA-65 hash",
           [](const std::string& p) { return veil::vectors::RunCctvMlDsaAccumulated(p); });
  CLI11_PARSE(app, argc, argv);
  return Print(run(), verbose);
}
