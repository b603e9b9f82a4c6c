// ML-KEM-768 vector runners (see mlkem_vectors.h).
#include "mlkem_vectors.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "case_util.h"
#include "veil/base/encoding.h"
#include "veil/crypto/mlkem768.h"
#include "veil/crypto/testing/mlkem768.h"

namespace veil::vectors {
namespace {

using crypto::MlKem768DecapsulationKey;
using crypto::MlKem768EncapsulationKey;
using crypto::Secret;
using nlohmann::json;

constexpr const char* kParameterSet = "ML-KEM-768";

template <std::size_t N>
Result<Secret<N>> SecretFromHex(const json& obj, const char* field) {
  VEIL_ASSIGN_OR_RETURN(Bytes b, HexField(obj, field));
  if (b.size() != N) {
    return InvalidArgument(std::string(field) + " must be " + std::to_string(N) + " bytes");
  }
  return Secret<N>::CopyFrom(std::span<const std::uint8_t, N>(b.data(), N));
}

Outcome Mismatch(const char* what, ByteView got) {
  return {false, std::string(what) + " mismatch: got " + HexEncode(got)};
}
const Outcome kOk{true, ""};

// ---- ACVP -------------------------------------------------------------------------------------

Result<Outcome> AcvpKeyGen(const json& t) {
  VEIL_ASSIGN_OR_RETURN(auto d, SecretFromHex<32>(t, "d"));
  VEIL_ASSIGN_OR_RETURN(auto z, SecretFromHex<32>(t, "z"));
  VEIL_ASSIGN_OR_RETURN(Bytes ek, HexField(t, "ek"));
  VEIL_ASSIGN_OR_RETURN(Bytes dk, HexField(t, "dk"));
  auto kp = crypto::for_testing::MlKem768KeyGenInternal(d, z);
  if (!SameBytes(kp.ek.bytes(), ek)) return Mismatch("ek", kp.ek.bytes());
  const crypto::SecretBytes got_dk = kp.dk.Encode();
  if (!SameBytes(got_dk.Expose(), dk)) return Outcome{false, "dk mismatch"};
  return kOk;
}

Result<Outcome> AcvpEncapsulation(const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes ek_bytes, HexField(t, "ek"));
  VEIL_ASSIGN_OR_RETURN(auto m, SecretFromHex<32>(t, "m"));
  VEIL_ASSIGN_OR_RETURN(Bytes c, HexField(t, "c"));
  VEIL_ASSIGN_OR_RETURN(Bytes k, HexField(t, "k"));
  auto ek = MlKem768EncapsulationKey::Decode(ek_bytes);
  if (!ek.ok()) return Rejected(ek.status());
  auto enc = crypto::for_testing::MlKem768EncapsInternal(*ek, m);
  if (!SameBytes(enc.ciphertext, c)) return Mismatch("c", enc.ciphertext);
  if (!SameBytes(enc.shared_secret.Expose(), k)) return Mismatch("k", enc.shared_secret.Expose());
  return kOk;
}

// Decaps(dk, c) == k; dk comes from the group (ACVP decapsulation) or the test.
Result<Outcome> DecapsCase(ByteView dk_bytes, ByteView c, ByteView k) {
  auto dk = MlKem768DecapsulationKey::Decode(dk_bytes);
  if (!dk.ok()) return Rejected(dk.status());
  auto got = crypto::MlKem768Decaps(*dk, c);
  if (!got.ok()) return Rejected(got.status());
  if (!SameBytes(got->Expose(), k)) return Mismatch("k", got->Expose());
  return kOk;
}

Result<bool> TestPassed(const json& t) {
  if (!t.contains("testPassed") || !t["testPassed"].is_boolean()) {
    return InvalidArgument("missing boolean testPassed");
  }
  return t["testPassed"].get<bool>();
}

}  // namespace

Result<Report> RunAcvpMlKem(const json& file) {
  if (!file.is_object() || file.value("algorithm", "") != "ML-KEM") {
    return InvalidArgument("unsupported: not an ACVP ML-KEM file");
  }
  const std::string mode = file.value("mode", "");
  if (mode != "keyGen" && mode != "encapDecap") {
    return InvalidArgument("unsupported: ACVP ML-KEM mode '" + mode + "'");
  }
  if (!file.contains("testGroups") || !file["testGroups"].is_array()) {
    return InvalidArgument("ACVP file without testGroups");
  }
  Report r;
  r.algorithm = std::string(kParameterSet) + " (ACVP " + mode + ")";
  int groups_run = 0;
  for (const json& g : file["testGroups"]) {
    if (g.value("parameterSet", "") != kParameterSet) continue;  // another parameter set
    if (!g.contains("tests") || !g["tests"].is_array()) {
      return InvalidArgument("ACVP group without tests");
    }
    ++groups_run;
    const std::string function = mode == "keyGen" ? "keyGen" : g.value("function", "");
    Bytes group_dk;
    if (function == "decapsulation") {
      if (g.contains("dk")) {
        VEIL_ASSIGN_OR_RETURN(group_dk, HexField(g, "dk"));
      }
    } else if (function != "keyGen" && function != "encapsulation" &&
               function != "encapsulationKeyCheck" && function != "decapsulationKeyCheck") {
      return InvalidArgument("unsupported: ACVP ML-KEM function '" + function + "'");
    }
    for (const json& t : g["tests"]) {
      Outcome o = kOk;
      if (function == "keyGen") {
        VEIL_ASSIGN_OR_RETURN(o, AcvpKeyGen(t));
      } else if (function == "encapsulation") {
        VEIL_ASSIGN_OR_RETURN(o, AcvpEncapsulation(t));
      } else if (function == "decapsulation") {
        VEIL_ASSIGN_OR_RETURN(Bytes c, HexField(t, "c"));
        VEIL_ASSIGN_OR_RETURN(Bytes k, HexField(t, "k"));
        Bytes dk = group_dk;  // the release of Aug 2024 gives dk per group; allow it per test
        if (t.contains("dk")) {
          VEIL_ASSIGN_OR_RETURN(dk, HexField(t, "dk"));
        }
        VEIL_ASSIGN_OR_RETURN(o, DecapsCase(dk, c, k));
      } else {
        // The input checks: the verdict must equal testPassed.
        VEIL_ASSIGN_OR_RETURN(bool want, TestPassed(t));
        bool got = false;
        if (function == "encapsulationKeyCheck") {
          VEIL_ASSIGN_OR_RETURN(Bytes ek, HexField(t, "ek"));
          got = MlKem768EncapsulationKey::Decode(ek).ok();
        } else {
          VEIL_ASSIGN_OR_RETURN(Bytes dk, HexField(t, "dk"));
          got = MlKem768DecapsulationKey::Decode(dk).ok();
        }
        o = got == want ? kOk
                        : Outcome{false, got ? "accepted an invalid key" : "rejected a valid key"};
      }
      r.Expect(o.ok, "tcId " + CaseId(t) + " (" + function + ", " + t.value("reason", "") +
                         "): " + o.why);
    }
  }
  if (groups_run == 0) return InvalidArgument("ACVP file has no ML-KEM-768 test group");
  return r;
}

namespace {

// ---- Wycheproof --------------------------------------------------------------------------------

enum class WycheproofSchema { kKeyGenSeed, kDecapsSeed, kEncaps, kDecapsExpanded };

Result<WycheproofSchema> SchemaOf(const json& file) {
  const std::string schema = file.value("schema", "");
  if (schema == "mlkem_keygen_seed_test_schema.json") return WycheproofSchema::kKeyGenSeed;
  if (schema == "mlkem_test_schema.json") return WycheproofSchema::kDecapsSeed;
  if (schema == "mlkem_encaps_test_schema.json") return WycheproofSchema::kEncaps;
  if (schema == "mlkem_semi_expanded_decaps_test_schema.json" ||
      schema == "mlkem_decaps_test_schema.json") {
    return WycheproofSchema::kDecapsExpanded;
  }
  return InvalidArgument("unsupported: Wycheproof ML-KEM schema '" + schema + "'");
}

// A field Wycheproof may leave out or leave empty when a case is invalid.
bool Has(const json& t, const char* field) {
  return t.contains(field) && t[field].is_string() && !t[field].get<std::string>().empty();
}

Result<Outcome> WycheproofKeyGenSeed(const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes seed, HexField(t, "seed"));
  if (seed.size() != crypto::kMlKem768SeedSize) return Outcome{false, "rejected: seed length"};
  auto dk = MlKem768DecapsulationKey::FromSeed(
      Secret<64>::CopyFrom(std::span<const std::uint8_t, 64>(seed.data(), 64)));
  VEIL_ASSIGN_OR_RETURN(Bytes ek, HexField(t, "ek"));
  VEIL_ASSIGN_OR_RETURN(Bytes dk_want, HexField(t, "dk"));
  if (!SameBytes(dk.encapsulation_key().bytes(), ek)) {
    return Mismatch("ek", dk.encapsulation_key().bytes());
  }
  if (!SameBytes(dk.Encode().Expose(), dk_want)) return Outcome{false, "dk mismatch"};
  return kOk;
}

Result<Outcome> WycheproofDecapsSeed(const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes seed, HexField(t, "seed"));
  VEIL_ASSIGN_OR_RETURN(Bytes c, HexField(t, "c"));
  if (seed.size() != crypto::kMlKem768SeedSize) return Outcome{false, "rejected: seed length"};
  auto dk = MlKem768DecapsulationKey::FromSeed(
      Secret<64>::CopyFrom(std::span<const std::uint8_t, 64>(seed.data(), 64)));
  if (Has(t, "ek")) {
    VEIL_ASSIGN_OR_RETURN(Bytes ek, HexField(t, "ek"));
    if (!SameBytes(dk.encapsulation_key().bytes(), ek)) {
      return Mismatch("ek", dk.encapsulation_key().bytes());
    }
  }
  auto k = crypto::MlKem768Decaps(dk, c);
  if (!k.ok()) return Rejected(k.status());
  VEIL_ASSIGN_OR_RETURN(Bytes k_want, HexField(t, "K"));
  if (!SameBytes(k->Expose(), k_want)) return Mismatch("K", k->Expose());
  return kOk;
}

Result<Outcome> WycheproofEncaps(const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes ek_bytes, HexField(t, "ek"));
  VEIL_ASSIGN_OR_RETURN(Bytes m, HexField(t, "m"));
  auto ek = MlKem768EncapsulationKey::Decode(ek_bytes);
  if (!ek.ok()) return Rejected(ek.status());
  if (m.size() != 32) return Outcome{false, "rejected: m must be 32 bytes"};
  auto enc = crypto::for_testing::MlKem768EncapsInternal(
      *ek, Secret<32>::CopyFrom(std::span<const std::uint8_t, 32>(m.data(), 32)));
  VEIL_ASSIGN_OR_RETURN(Bytes c, HexField(t, "c"));
  VEIL_ASSIGN_OR_RETURN(Bytes k, HexField(t, "K"));
  if (!SameBytes(enc.ciphertext, c)) return Mismatch("c", enc.ciphertext);
  if (!SameBytes(enc.shared_secret.Expose(), k)) return Mismatch("K", enc.shared_secret.Expose());
  return kOk;
}

Result<Outcome> WycheproofDecapsExpanded(const json& t) {
  VEIL_ASSIGN_OR_RETURN(Bytes dk_bytes, HexField(t, "dk"));
  VEIL_ASSIGN_OR_RETURN(Bytes c, HexField(t, "c"));
  auto dk = MlKem768DecapsulationKey::Decode(dk_bytes);
  if (!dk.ok()) return Rejected(dk.status());
  if (Has(t, "ek")) {
    VEIL_ASSIGN_OR_RETURN(Bytes ek, HexField(t, "ek"));
    if (!SameBytes(dk->encapsulation_key().bytes(), ek)) {
      return Mismatch("ek", dk->encapsulation_key().bytes());
    }
  }
  auto k = crypto::MlKem768Decaps(*dk, c);
  if (!k.ok()) return Rejected(k.status());
  if (Has(t, "K")) {  // the validation-only schema gives no key for its valid case
    VEIL_ASSIGN_OR_RETURN(Bytes k_want, HexField(t, "K"));
    if (!SameBytes(k->Expose(), k_want)) return Mismatch("K", k->Expose());
  }
  return kOk;
}

}  // namespace

Result<Report> RunWycheproofMlKem(const json& file) {
  if (!file.is_object() || file.value("algorithm", "") != "ML-KEM") {
    return InvalidArgument("unsupported: not a Wycheproof ML-KEM file");
  }
  VEIL_ASSIGN_OR_RETURN(WycheproofSchema schema, SchemaOf(file));
  if (!file.contains("testGroups") || !file["testGroups"].is_array()) {
    return InvalidArgument("Wycheproof file without testGroups");
  }
  Report r;
  r.algorithm = std::string(kParameterSet) + " (Wycheproof " + file.value("schema", "") + ")";
  for (const json& g : file["testGroups"]) {
    const std::string set = g.value("parameterSet", "");
    if (set != kParameterSet) return InvalidArgument("unsupported: parameter set '" + set + "'");
    if (!g.contains("tests") || !g["tests"].is_array()) {
      return InvalidArgument("Wycheproof group without tests");
    }
    for (const json& t : g["tests"]) {
      Outcome o = kOk;
      switch (schema) {
        case WycheproofSchema::kKeyGenSeed: {
          VEIL_ASSIGN_OR_RETURN(o, WycheproofKeyGenSeed(t));
          break;
        }
        case WycheproofSchema::kDecapsSeed: {
          VEIL_ASSIGN_OR_RETURN(o, WycheproofDecapsSeed(t));
          break;
        }
        case WycheproofSchema::kEncaps: {
          VEIL_ASSIGN_OR_RETURN(o, WycheproofEncaps(t));
          break;
        }
        case WycheproofSchema::kDecapsExpanded: {
          VEIL_ASSIGN_OR_RETURN(o, WycheproofDecapsExpanded(t));
          break;
        }
      }
      JudgeWycheproof(r, t, o);
    }
  }
  return r;
}

Result<Report> RunCctvMlKemModulus(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open " + path);
  Report r;
  r.algorithm = std::string(kParameterSet) + " (CCTV modulus: invalid encapsulation keys)";
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    VEIL_ASSIGN_OR_RETURN(Bytes ek, HexDecode(line));
    if (ek.size() != crypto::kMlKem768EncapsulationKeySize) {
      return InvalidArgument(path + ":" + std::to_string(line_no) + ": not a 1184-byte key");
    }
    // The length is right, so only the modulus check can reject the key.
    const auto decoded = MlKem768EncapsulationKey::Decode(ek);
    r.Expect(!decoded.ok() && decoded.status().code() == Code::kInvalidArgument,
             "line " + std::to_string(line_no) + ": key with a coefficient >= q was accepted");
  }
  if (r.passed + r.failed == 0) return InvalidArgument(path + ": no keys");
  return r;
}

}  // namespace veil::vectors
