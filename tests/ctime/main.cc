// Runs every registered constant-time check; see ctime.h.
#include <cstdio>
#include <string>

#include "ctime.h"

namespace veil::ctime {
std::vector<Check>& Registry() {
  static std::vector<Check> checks;
  return checks;
}
}  // namespace veil::ctime

// A deliberately leaky function: valgrind must flag it, or the check itself is broken. scripts/test
// runs `veil_ctime_check --canary` under valgrind and requires it to fail.
__attribute__((noinline)) int LeakyLookup(const unsigned char* secret) {
  static const int kTable[256] = {1};
  return secret[0] > 127 ? kTable[secret[0]] : 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--canary") {
    unsigned char secret[1] = {200};
    veil::ctime::Classify(secret, 1);
    const int r = LeakyLookup(secret);
    veil::ctime::Declassify(&r, sizeof r);
    std::printf("ctime canary ran (valgrind must report it)\n");
    return 0;
  }
  int n = 0;
  for (const auto& check : veil::ctime::Registry()) {
    std::printf("ctime: %s\n", check.name.c_str());
    check.run();
    ++n;
  }
  std::printf("ctime: %d checks ran (valgrind decides whether any secret was branched on)\n", n);
  return n > 0 ? 0 : 1;
}
