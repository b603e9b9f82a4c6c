// Constant-time checks under valgrind, in the manner of secp256k1's ctime_tests.
//
// Each check marks its secret inputs undefined with Classify(); memcheck then reports any branch or
// memory index that depends on them ("conditional jump depends on uninitialised value", "use of
// uninitialised value of size 8"). Declassify() marks a value public on the line where the protocol
// makes it public. Run: valgrind --error-exitcode=1 build/release/tests/ctime/veil_ctime_check.
// Outside valgrind the macros do nothing, so the binary also runs as a plain smoke test.
#pragma once

#include <valgrind/memcheck.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace veil::ctime {

inline void Classify(const void* p, std::size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
inline void Declassify(const void* p, std::size_t n) { VALGRIND_MAKE_MEM_DEFINED(p, n); }

struct Check {
  std::string name;
  std::function<void()> run;
};
std::vector<Check>& Registry();

struct Registrar {
  Registrar(std::string name, std::function<void()> run) {
    Registry().push_back({std::move(name), std::move(run)});
  }
};

}  // namespace veil::ctime

#define VEIL_CTIME_CONCAT2_(a, b) a##b
#define VEIL_CTIME_CONCAT_(a, b) VEIL_CTIME_CONCAT2_(a, b)
// VEIL_CTIME_CHECK(ShamirSplit) { ...body... }
#define VEIL_CTIME_CHECK(name)                                                \
  static void VEIL_CTIME_CONCAT_(CtimeCheck_, name)();                        \
  static ::veil::ctime::Registrar VEIL_CTIME_CONCAT_(ctime_registrar_, name)( \
      #name, &VEIL_CTIME_CONCAT_(CtimeCheck_, name));                         \
  static void VEIL_CTIME_CONCAT_(CtimeCheck_, name)()
