// ML-DSA-65 conformance runners: ACVP, Wycheproof, CCTV accumulated; see mldsa_vectors.h.
#include "mldsa_vectors.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <sstream>

#include "case_util.h"

// The CCTV field-operation vector checks internal arithmetic (Power2Round, Decompose, UseHint)
// that has no public surface; rounding.h is header-only constexpr code, so this needs no
// internal symbol of the library.
#include "../../src/crypto/mldsa/rounding.h"
#include "veil/base/encoding.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/mldsa65.h"
#include "veil/crypto/testing/mldsa65.h"
#include "wycheproof.h"

namespace veil::vectors {
namespace {

using crypto::MlDsa65KeyPair;
using crypto::MlDsa65PublicKey;
using crypto::MlDsa65SecretKey;
using crypto::MlDsa65Signature;
using nlohmann::json;

// Fields absent from a case are absent, not empty: msg-less Wycheproof cases sign mu.
Result<std::optional<Bytes>> OptionalHex(const json& j, const char* field) {
  if (!j.contains(field) || j[field].is_null()) return std::optional<Bytes>();
  if (!j[field].is_string()) return InvalidArgument(std::string("field is not a string: ") + field);
  VEIL_ASSIGN_OR_RETURN(Bytes b, HexDecode(j[field].get<std::string>()));
  return std::optional<Bytes>(std::move(b));
}

Result<Bytes> Hex(const json& j, const char* field) {
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> b, OptionalHex(j, field));
  if (!b) return InvalidArgument(std::string("missing hex field ") + field);
  return *std::move(b);
}

std::string CaseName(const json& t) {
  std::ostringstream s;
  s << "tcId " << (t.contains("tcId") ? t["tcId"].dump() : "?");
  if (t.contains("comment")) s << " " << t["comment"].get<std::string>();
  return s.str();
}

crypto::Secret<32> Rnd(const std::optional<Bytes>& rnd) {
  crypto::Secret<32> r;  // zero: the deterministic variant
  if (rnd && rnd->size() == 32) r = crypto::Secret<32>::CopyFrom(ByteView(*rnd).first<32>());
  return r;
}

// M' of pure ML-DSA: 0 || |ctx| || ctx || M (FIPS 204 Algorithm 2, line 10).
Bytes PureMessage(ByteView ctx, ByteView msg) {
  const std::array<std::uint8_t, 2> prefix = {0, static_cast<std::uint8_t>(ctx.size())};
  return Concat({prefix, ctx, msg});
}

// ---------------------------------------------------------------------------------------------
// ACVP

Status CheckParameterSet(const json& g) {
  const std::string ps = g.value("parameterSet", "");
  if (ps != "ML-DSA-65") return InvalidArgument("unsupported ML-DSA parameter set: " + ps);
  return Status::Ok();
}

Status AcvpKeyGen(Report& r, const json& g) {
  for (const json& t : g["tests"]) {
    VEIL_ASSIGN_OR_RETURN(Bytes seed, Hex(t, "seed"));
    VEIL_ASSIGN_OR_RETURN(Bytes pk, Hex(t, "pk"));
    VEIL_ASSIGN_OR_RETURN(Bytes sk, Hex(t, "sk"));
    if (seed.size() != 32) return InvalidArgument(CaseName(t) + ": seed is not 32 bytes");
    const auto kp =
        crypto::MlDsa65KeyGenFromSeed(crypto::Secret<32>::CopyFrom(ByteView(seed).first<32>()));
    const bool pk_ok = SameBytes(kp.pk.bytes(), pk);
    const bool sk_ok = SameBytes(kp.sk.Encode().Expose(), sk);
    r.Expect(pk_ok && sk_ok,
             CaseName(t) + ": " + (pk_ok ? "" : "pk mismatch ") + (sk_ok ? "" : "sk mismatch"));
  }
  return Status::Ok();
}

// How a sigGen / sigVer group forms the signed message.
struct AcvpInterface {
  bool internal = true;  // message is M'
  bool external_mu = false;
};

Result<AcvpInterface> Interface(const json& g) {
  AcvpInterface i;
  const std::string si = g.value("signatureInterface", "internal");
  if (si == "internal") {
    i.external_mu = g.value("externalMu", false);
    return i;
  }
  if (si != "external") return InvalidArgument("unsupported signatureInterface " + si);
  if (g.value("preHash", "pure") != "pure") return InvalidArgument("HashML-DSA is not supported");
  i.internal = false;
  i.external_mu = g.value("externalMu", false);
  return i;
}

Status AcvpSigGen(Report& r, const json& g) {
  VEIL_ASSIGN_OR_RETURN(AcvpInterface iface, Interface(g));
  const bool deterministic = g.value("deterministic", false);
  for (const json& t : g["tests"]) {
    VEIL_ASSIGN_OR_RETURN(Bytes sk_bytes, Hex(t, "sk"));
    VEIL_ASSIGN_OR_RETURN(Bytes want, Hex(t, "signature"));
    VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> rnd, OptionalHex(t, "rnd"));
    if (!deterministic && (!rnd || rnd->size() != 32)) {
      return InvalidArgument(CaseName(t) + ": hedged case without a 32-byte rnd");
    }
    auto sk = MlDsa65SecretKey::Decode(sk_bytes);
    if (!sk.ok()) {
      r.Fail(CaseName(t) + ": secret key rejected: " + sk.status().ToString());
      continue;
    }
    const crypto::Secret<32> seed = Rnd(deterministic ? std::nullopt : rnd);
    MlDsa65Signature got;
    if (iface.external_mu) {
      VEIL_ASSIGN_OR_RETURN(Bytes mu, Hex(t, "mu"));
      if (mu.size() != 64) return InvalidArgument(CaseName(t) + ": mu is not 64 bytes");
      got = crypto::for_testing::MlDsa65SignExternalMu(*sk, ByteView(mu).first<64>(), seed);
    } else {
      VEIL_ASSIGN_OR_RETURN(Bytes msg, Hex(t, "message"));
      Bytes m_prime = msg;
      if (!iface.internal) {
        VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> ctx, OptionalHex(t, "context"));
        const Bytes c = ctx.value_or(Bytes{});
        if (c.size() > 255) return InvalidArgument(CaseName(t) + ": context over 255 bytes");
        m_prime = PureMessage(c, msg);
      }
      got = crypto::for_testing::MlDsa65SignInternal(*sk, m_prime, seed);
    }
    r.Expect(SameBytes(got, want), CaseName(t) + ": signature mismatch");
  }
  return Status::Ok();
}

Status AcvpSigVer(Report& r, const json& g) {
  VEIL_ASSIGN_OR_RETURN(AcvpInterface iface, Interface(g));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> group_pk, OptionalHex(g, "pk"));
  for (const json& t : g["tests"]) {
    VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> case_pk, OptionalHex(t, "pk"));
    const std::optional<Bytes>& pk_bytes = case_pk ? case_pk : group_pk;
    if (!pk_bytes) return InvalidArgument(CaseName(t) + ": no public key");
    VEIL_ASSIGN_OR_RETURN(Bytes sig, Hex(t, "signature"));
    if (!t.contains("testPassed") || !t["testPassed"].is_boolean()) {
      return InvalidArgument(CaseName(t) + ": missing testPassed");
    }
    const bool expected = t["testPassed"].get<bool>();
    auto pk = MlDsa65PublicKey::Decode(*pk_bytes);
    Status s = pk.status();
    if (pk.ok()) {
      if (iface.external_mu) {
        VEIL_ASSIGN_OR_RETURN(Bytes mu, Hex(t, "mu"));
        if (mu.size() != 64) return InvalidArgument(CaseName(t) + ": mu is not 64 bytes");
        s = crypto::for_testing::MlDsa65VerifyExternalMu(*pk, ByteView(mu).first<64>(), sig);
      } else {
        VEIL_ASSIGN_OR_RETURN(Bytes msg, Hex(t, "message"));
        if (iface.internal) {
          s = crypto::for_testing::MlDsa65VerifyInternal(*pk, msg, sig);
        } else {
          VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> ctx, OptionalHex(t, "context"));
          s = crypto::MlDsa65Verify(*pk, msg, ctx.value_or(Bytes{}), sig);
        }
      }
    }
    r.Expect(s.ok() == expected, CaseName(t) + ": expected " + (expected ? "valid" : "invalid") +
                                     " (" + t.value("reason", "") + "), got " + s.ToString());
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Wycheproof

// A signing case: the key is decoded (or derived from a seed), the signature made from msg and
// ctx (or from mu when the case has no msg) must equal sig, mu must match when both are given, and
// the signature must verify under the group's public key.
Result<Outcome> WycheproofSignCase(const json& g, const json& t) {
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> msg, OptionalHex(t, "msg"));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> ctx, OptionalHex(t, "ctx"));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> mu, OptionalHex(t, "mu"));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> rnd, OptionalHex(t, "rnd"));
  VEIL_ASSIGN_OR_RETURN(Bytes want, Hex(t, "sig"));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> pk_bytes, OptionalHex(g, "publicKey"));
  if (rnd && rnd->size() != 32) return InvalidArgument(CaseName(t) + ": rnd is not 32 bytes");

  std::optional<MlDsa65SecretKey> sk;
  std::optional<MlDsa65PublicKey> pk;
  if (g.contains("privateSeed")) {
    VEIL_ASSIGN_OR_RETURN(Bytes seed, Hex(g, "privateSeed"));
    if (seed.size() != crypto::kMlDsa65SeedSize) {
      return Rejected(InvalidArgument("seed must be 32 bytes"));
    }
    auto kp =
        crypto::MlDsa65KeyGenFromSeed(crypto::Secret<32>::CopyFrom(ByteView(seed).first<32>()));
    if (pk_bytes && !SameBytes(kp.pk.bytes(), *pk_bytes)) {
      return Outcome{false, "public key derived from the seed differs"};
    }
    sk.emplace(std::move(kp.sk));
    pk.emplace(std::move(kp.pk));
  } else {
    VEIL_ASSIGN_OR_RETURN(Bytes sk_bytes, Hex(g, "privateKey"));
    auto decoded = MlDsa65SecretKey::Decode(sk_bytes);
    if (!decoded.ok()) return Rejected(decoded.status());
    sk.emplace(std::move(decoded).value());
    if (pk_bytes) {
      auto p = MlDsa65PublicKey::Decode(*pk_bytes);
      if (!p.ok()) return InvalidArgument(CaseName(t) + ": bad publicKey in group");
      pk.emplace(std::move(p).value());
    }
  }

  const crypto::Secret<32> seed = Rnd(rnd);
  MlDsa65Signature got;
  const Bytes context = ctx.value_or(Bytes{});
  if (msg) {
    if (context.size() > crypto::kMlDsaMaxContextSize) {
      return Rejected(InvalidArgument("context longer than 255 bytes"));
    }
    got = crypto::for_testing::MlDsa65SignInternal(*sk, PureMessage(context, *msg), seed);
    if (mu && pk) {
      auto mine = crypto::for_testing::MlDsa65ComputeMu(*pk, *msg, context);
      if (!mine.ok() || !SameBytes(*mine, *mu)) return Outcome{false, "mu mismatch"};
    }
  } else if (mu) {
    if (mu->size() != crypto::kMlDsa65MuSize) return InvalidArgument("mu is not 64 bytes");
    got = crypto::for_testing::MlDsa65SignExternalMu(*sk, ByteView(*mu).first<64>(), seed);
  } else {
    return InvalidArgument(CaseName(t) + ": neither msg nor mu");
  }
  if (!SameBytes(got, want)) return Outcome{false, "signature mismatch: got " + HexEncode(got)};
  if (pk) {
    const Status v =
        msg ? crypto::MlDsa65Verify(*pk, *msg, context, got)
            : crypto::for_testing::MlDsa65VerifyExternalMu(*pk, ByteView(*mu).first<64>(), got);
    if (!v.ok()) return Outcome{false, "own signature does not verify: " + v.ToString()};
  }
  return Outcome{true, ""};
}

Result<Outcome> WycheproofVerifyCase(const json& g, const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes pk_bytes, Hex(g, "publicKey"));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> msg, OptionalHex(t, "msg"));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> ctx, OptionalHex(t, "ctx"));
  VEIL_ASSIGN_OR_RETURN(std::optional<Bytes> mu, OptionalHex(t, "mu"));
  VEIL_ASSIGN_OR_RETURN(Bytes sig, Hex(t, "sig"));
  auto pk = MlDsa65PublicKey::Decode(pk_bytes);
  if (!pk.ok()) return Rejected(pk.status());
  Status s;
  if (msg) {
    s = crypto::MlDsa65Verify(*pk, *msg, ctx.value_or(Bytes{}), sig);
  } else if (mu) {
    if (mu->size() != crypto::kMlDsa65MuSize) return Rejected(InvalidArgument("mu size"));
    s = crypto::for_testing::MlDsa65VerifyExternalMu(*pk, ByteView(*mu).first<64>(), sig);
  } else {
    return InvalidArgument(CaseName(t) + ": neither msg nor mu");
  }
  if (!s.ok()) return Rejected(s);
  return Outcome{true, ""};
}

}  // namespace

Result<Report> RunAcvpMlDsa(const json& file) {
  if (!file.is_object() || !file.contains("testGroups") || !file.contains("mode")) {
    return InvalidArgument("not an ACVP ML-DSA file (no mode or testGroups)");
  }
  if (file.value("algorithm", "") != "ML-DSA") {
    return InvalidArgument("not an ACVP ML-DSA file: algorithm " + file.value("algorithm", ""));
  }
  const std::string mode = file["mode"].get<std::string>();
  Report r;
  r.algorithm = "ACVP ML-DSA " + mode;
  for (const json& g : file["testGroups"]) {
    VEIL_RETURN_IF_ERROR(CheckParameterSet(g));
    if (mode == "keyGen") {
      VEIL_RETURN_IF_ERROR(AcvpKeyGen(r, g));
    } else if (mode == "sigGen") {
      VEIL_RETURN_IF_ERROR(AcvpSigGen(r, g));
    } else if (mode == "sigVer") {
      VEIL_RETURN_IF_ERROR(AcvpSigVer(r, g));
    } else {
      return InvalidArgument("unsupported ACVP ML-DSA mode " + mode);
    }
  }
  return r;
}

Result<Report> RunWycheproofMlDsa(const json& file) {
  if (!file.is_object() || !file.contains("algorithm") || !file.contains("testGroups")) {
    return InvalidArgument("not a Wycheproof test file (no algorithm or testGroups)");
  }
  const std::string alg = file["algorithm"].get<std::string>();
  if (alg != "ML-DSA-65") return InvalidArgument("unsupported Wycheproof algorithm: " + alg);
  Report r;
  r.algorithm = alg + " (" + file.value("schema", "") + ")";
  for (const json& g : file["testGroups"]) {
    const std::string type = g.value("type", "");
    if (type != "MlDsaSign" && type != "MlDsaVerify") {
      return InvalidArgument("unsupported Wycheproof ML-DSA group type: " + type);
    }
    for (const json& t : g["tests"]) {
      Result<Outcome> o =
          type == "MlDsaSign" ? WycheproofSignCase(g, t) : WycheproofVerifyCase(g, t);
      if (!o.ok()) return InvalidArgument(CaseName(t) + ": " + o.status().message());
      JudgeWycheproof(r, t, *o);
    }
  }
  return r;
}

namespace {

// ---------------------------------------------------------------------------------------------
// CCTV (C2SP/CCTV ML-DSA/accumulated/README.md)

void AppendLine(std::string& out, std::int32_t v) {
  char buf[16];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
  out.push_back('\n');
}

// The README's 12 lines for one r in [0, q): r mod+- q, its absolute value, Power2Round's r1 and
// r0 mod q, then HighBits, UseHint(1, r), LowBits and |LowBits| for gamma_2 = (q - 1) / 88 and for
// gamma_2 = (q - 1) / 32.
void FieldLines(std::string& out, std::int32_t r) {
  namespace m = crypto::mldsa;
  const std::int32_t centred = m::Centered(r);
  AppendLine(out, centred);
  AppendLine(out, m::Abs(centred));
  const m::Split p = m::Power2Round(r);
  AppendLine(out, p.hi);
  AppendLine(out, m::Freeze(p.lo));
  constexpr std::int32_t kG88 = (m::kQ - 1) / 88;
  const m::Split d88 = m::Decompose<kG88>(r);
  AppendLine(out, d88.hi);
  AppendLine(out, m::UseHint<kG88>(1, r));
  AppendLine(out, d88.lo);
  AppendLine(out, m::Abs(d88.lo));
  constexpr std::int32_t kG32 = (m::kQ - 1) / 32;
  const m::Split d32 = m::Decompose<kG32>(r);
  AppendLine(out, d32.hi);
  AppendLine(out, m::UseHint<kG32>(1, r));
  AppendLine(out, d32.lo);
  AppendLine(out, m::Abs(d32.lo));
}

std::string FieldOperationsHash() {
  crypto::Shake128 h;
  std::string buf;
  buf.reserve(1 << 17);
  for (std::int32_t r = 0; r < crypto::mldsa::kQ; ++r) {
    FieldLines(buf, r);
    if (buf.size() >= (1 << 16)) {
      h.Absorb(AsBytes(buf));
      buf.clear();
    }
  }
  h.Absorb(AsBytes(buf));
  std::array<std::uint8_t, 32> out;
  h.Squeeze(out);
  return HexEncode(out);
}

}  // namespace

Result<Report> RunCctvMlDsaAccumulated(const std::string& path, std::uint64_t max_iterations) {
  VEIL_ASSIGN_OR_RETURN(json file, LoadJsonFile(path));
  if (!file.is_object() || file.value("parameterSet", "") != "ML-DSA-65" ||
      !file.contains("keygen_and_sign") || !file["keygen_and_sign"].is_object()) {
    return InvalidArgument(path + ": not the CCTV accumulated ML-DSA-65 file");
  }
  // Iteration counts in increasing order, with their expected hashes.
  std::map<std::uint64_t, std::string> expected;
  for (const auto& [count, hash] : file["keygen_and_sign"].items()) {
    std::uint64_t n = 0;
    const auto res = std::from_chars(count.data(), count.data() + count.size(), n);
    if (res.ec != std::errc() || res.ptr != count.data() + count.size() || !hash.is_string()) {
      return InvalidArgument(path + ": bad keygen_and_sign entry " + count);
    }
    expected[n] = hash.get<std::string>();
  }
  Report r;
  r.algorithm = "CCTV accumulated ML-DSA-65";
  std::string not_run;

  // s = SHAKE128(), a = SHAKE128(); per iteration: seed = read(s, 32), write(a, pk),
  // write(a, sign_deterministic(seed, "", "")), verify; result = read(a, 32) after N iterations.
  // One run serves every N: the accumulator is copied (a fork of the sponge) at each N.
  crypto::Shake128 s;
  crypto::Shake128 a;
  std::uint64_t done = 0;
  bool verified = true;
  for (const auto& [n, want] : expected) {
    if (n > max_iterations) {
      not_run += (not_run.empty() ? "" : ", ") + std::to_string(n);
      continue;
    }
    for (; done < n; ++done) {
      crypto::Secret<32> seed;
      s.Squeeze(seed.ExposeMutable());
      const MlDsa65KeyPair kp = crypto::MlDsa65KeyGenFromSeed(seed);
      a.Absorb(kp.pk.bytes());
      auto sig = crypto::MlDsa65Sign(kp.sk, {}, {}, crypto::MlDsaSigning::kDeterministic);
      if (!sig.ok()) return sig.status();
      a.Absorb(*sig);
      verified = verified && crypto::MlDsa65Verify(kp.pk, {}, {}, *sig).ok();
    }
    crypto::Shake128 fork = a;
    std::array<std::uint8_t, 32> got;
    fork.Squeeze(got);
    r.Expect(verified && HexEncode(got) == want,
             std::to_string(n) + " iterations: " +
                 (verified ? "" : "a signature did not verify; ") + "got " + HexEncode(got));
  }
  if (!not_run.empty()) r.algorithm += " (not run: " + not_run + " iterations)";

  if (file.contains("field_operations")) {
    const std::string want = file["field_operations"].value("hash", "");
    const std::string got = FieldOperationsHash();
    r.Expect(got == want, "field operations: got " + got);
  }
  return r;
}

}  // namespace veil::vectors
