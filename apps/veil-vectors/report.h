// The outcome of running one conformance file: counts and the cases that failed.
#pragma once

#include <string>
#include <vector>

namespace veil::vectors {

struct Report {
  std::string algorithm;
  int passed = 0;
  int failed = 0;
  int skipped =
      0;  // cases of algorithms the runner does not implement, named in `failures`-free form
  std::vector<std::string> failures;  // "tcId 17: <comment>: <why>"

  void Pass() { ++passed; }
  void Fail(std::string why) {
    ++failed;
    failures.push_back(std::move(why));
  }
  void Expect(bool ok, std::string why) {
    if (ok) {
      Pass();
    } else {
      Fail(std::move(why));
    }
  }
};

}  // namespace veil::vectors
