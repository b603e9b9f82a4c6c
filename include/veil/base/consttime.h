// Marking the point where a secret-derived value becomes public, in the manner of BoringSSL's
// CONSTTIME_DECLASSIFY.
//
// The valgrind constant-time check (tests/ctime/) marks secrets undefined; memcheck then reports
// every branch or memory index that depends on them. Some such values are public by design (a
// verification verdict, a ciphertext); VEIL_DECLASSIFY(p, n) marks them defined on the line where
// that happens, with a comment saying why. Built with VEIL_CTIME_VALGRIND it is a valgrind client
// request (a few no-op instructions outside valgrind); otherwise it compiles to nothing.
#pragma once

#if defined(VEIL_CTIME_VALGRIND)
#include <valgrind/memcheck.h>
#define VEIL_DECLASSIFY(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#else
#define VEIL_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif
