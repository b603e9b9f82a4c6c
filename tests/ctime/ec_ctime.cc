// Constant-time checks for the group floor (ec/): scalar arithmetic and every constant-time
// scalar multiplication with the scalar marked secret, and point encoding of a secret point.
#include <sodium.h>

#include <array>
#include <vector>

#include "ctime.h"
#include "veil/ec/ristretto.h"

namespace veil::ec {
namespace {

using ctime::Classify;
using ctime::Declassify;

VEIL_CTIME_CHECK(ScalarArithmeticOnSecrets) {
  Scalar a = Scalar::Random(), b = Scalar::Random();
  Classify(&a, sizeof a);
  Classify(&b, sizeof b);
  Scalar c = (a * b + a - b).Invert() * -a;
  std::array<Scalar, 3> batch = {a, b, Scalar()};
  Scalar::BatchInvert(batch);
  c = c + batch[0] + batch[1] + batch[2];
  c = Scalar::Select(c, a, static_cast<std::uint64_t>(a == b));
  Scalar::Bytes out = c.ToBytes();
  auto digits = a.ToRadix16();
  Declassify(out.data(), out.size());
  Declassify(digits.data(), digits.size());
  std::array<std::uint8_t, 64> wide{};
  Classify(wide.data(), wide.size());
  Scalar w = Scalar::FromBytesModOrderWide(wide);
  Declassify(&w, sizeof w);
  Scalar::Bytes bytes = b.ToBytes();
  auto decoded = Scalar::FromCanonical(bytes);  // the verdict is declassified by design
  Declassify(&decoded, sizeof decoded);
}

VEIL_CTIME_CHECK(ScalarMultiplicationsOnSecretScalars) {
  const RistrettoPoint p = BasepointMul(Scalar::Random());
  const FixedBaseTable table(p);
  Scalar s = Scalar::Random();
  Classify(&s, sizeof s);
  RistrettoPoint r1 = s * p;
  RistrettoPoint r2 = BasepointMul(s);
  RistrettoPoint r3 = table.Mul(s);
  std::array<std::uint8_t, 32> short_bytes{};
  randombytes_buf(short_bytes.data(), 16);
  Scalar short_s = Scalar::FromBytesModOrder(short_bytes);
  Classify(&short_s, sizeof short_s);
  CompressedRistretto es = MulShort(short_s, p).Encode();
  Declassify(&es, sizeof es);
  RistrettoPoint sum = r1 + r2 - r3;
  CompressedRistretto e = sum.Encode();  // encoding a secret point
  Declassify(&e, sizeof e);
  bool eq = r1 == r3;
  Declassify(&eq, sizeof eq);
}

VEIL_CTIME_CHECK(ConstantTimeMultiScalarMulOnSecretScalars) {
  std::vector<Scalar> s;
  std::vector<RistrettoPoint> p;
  for (int i = 0; i < 5; ++i) {
    s.push_back(Scalar::Random());
    p.push_back(BasepointMul(Scalar::Random()));
  }
  s[1] = Scalar();  // a zero digit string must not show either
  Classify(s.data(), s.size() * sizeof(Scalar));
  CompressedRistretto e = MultiScalarMul(s, p).Encode();
  Declassify(&e, sizeof e);
}

VEIL_CTIME_CHECK(HashToGroupOnSecretInput) {
  std::array<std::uint8_t, 64> in{};
  Classify(in.data(), in.size());
  CompressedRistretto e = RistrettoPoint::FromUniformBytes(in).Encode();
  Declassify(&e, sizeof e);
}

}  // namespace
}  // namespace veil::ec
