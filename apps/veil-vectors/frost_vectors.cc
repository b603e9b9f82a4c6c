// The RFC 9591 FROST vector runner (see frost_vectors.h).
#include "frost_vectors.h"

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "case_util.h"
#include "veil/base/encoding.h"
#include "veil/crypto/ed25519.h"
#include "veil/zk/frost.h"

namespace veil::vectors {
namespace {

using nlohmann::json;
namespace frost = zk::frost;

// The config values are strings in the RFC files ("3") and may be numbers elsewhere.
Result<int> IntField(const json& obj, const char* field) {
  if (!obj.contains(field)) return InvalidArgument(std::string("missing field ") + field);
  const json& v = obj[field];
  if (v.is_number_integer()) return v.get<int>();
  if (v.is_string()) {
    try {
      return std::stoi(v.get<std::string>());
    } catch (const std::exception&) {
    }
  }
  return InvalidArgument(std::string("field ") + field + " is not an integer");
}

// The identifier's integer value (the dealer's x) and the Identifier.
Result<std::pair<std::uint64_t, frost::Identifier>> IdField(const json& obj) {
  if (!obj.contains("identifier") || !obj["identifier"].is_number_unsigned()) {
    return InvalidArgument("missing numeric identifier");
  }
  const auto x = obj["identifier"].get<std::uint64_t>();
  VEIL_ASSIGN_OR_RETURN(frost::Identifier id, frost::Identifier::FromInteger(x));
  return std::make_pair(x, id);
}

Result<ec::Scalar> ScalarField(const json& obj, const char* field) {
  VEIL_ASSIGN_OR_RETURN(Bytes b, HexField(obj, field));
  return ec::Scalar::FromCanonical(b);
}

Result<std::array<std::uint8_t, 32>> Bytes32Field(const json& obj, const char* field) {
  VEIL_ASSIGN_OR_RETURN(Bytes b, HexField(obj, field));
  if (b.size() != 32) return InvalidArgument(std::string(field) + " is not 32 bytes");
  std::array<std::uint8_t, 32> out{};
  std::copy(b.begin(), b.end(), out.begin());
  return out;
}

// One round-one entry, parsed.
struct Signer {
  frost::Identifier id;
  const json* entry;
};

template <class S>
Status RunSuite(const json& file, Report& r) {
  const json& config = file["config"];
  const json& inputs = file["inputs"];
  VEIL_ASSIGN_OR_RETURN(const int t, IntField(config, "MIN_PARTICIPANTS"));
  VEIL_ASSIGN_OR_RETURN(const int n, IntField(config, "MAX_PARTICIPANTS"));
  if (t < 2 || n < t || n > 65535) return InvalidArgument("bad MIN/MAX_PARTICIPANTS");
  const char* key_field =
      inputs.contains("group_public_key") ? "group_public_key" : "verifying_key_key";
  VEIL_ASSIGN_OR_RETURN(const Bytes group_key_want, HexField(inputs, key_field));
  VEIL_ASSIGN_OR_RETURN(const Bytes message, HexField(inputs, "message"));

  // Dealer: f(x) = secret + a_1 x + ... (Appendix C), shares for 1..n.
  std::vector<ec::Scalar> coefficients;
  VEIL_ASSIGN_OR_RETURN(ec::Scalar secret, ScalarField(inputs, "group_secret_key"));
  coefficients.push_back(secret);
  for (const json& c : inputs.value("share_polynomial_coefficients", json::array())) {
    if (!c.is_string()) return InvalidArgument("share_polynomial_coefficients: not hex");
    VEIL_ASSIGN_OR_RETURN(Bytes b, HexDecode(c.get<std::string>()));
    VEIL_ASSIGN_OR_RETURN(ec::Scalar a, ec::Scalar::FromCanonical(b));
    coefficients.push_back(a);
  }
  if (coefficients.size() != static_cast<std::size_t>(t)) {
    return InvalidArgument("the polynomial does not have MIN_PARTICIPANTS coefficients");
  }
  auto dealer =
      frost::TrustedDealerKeygenFromCoefficients<S>(coefficients, static_cast<std::uint16_t>(n));
  if (!dealer.ok()) {
    r.Fail("dealer: " + dealer.status().ToString());
    return Status::Ok();
  }
  const frost::PublicKeyPackage<S>& group = dealer->public_key_package;
  r.Expect(SameBytes(group.verifying_key().Encode(), group_key_want), "group public key differs");
  for (const json& ps : inputs.value("participant_shares", json::array())) {
    VEIL_ASSIGN_OR_RETURN(const auto x_id, IdField(ps));
    VEIL_ASSIGN_OR_RETURN(Bytes want, HexField(ps, "participant_share"));
    const std::string tag = "participant " + x_id.second.ToString();
    const std::uint64_t index = x_id.first;
    if (index > dealer->shares.size()) {
      r.Fail(tag + ": beyond MAX_PARTICIPANTS");
      continue;
    }
    const frost::SecretShare<S>& share = dealer->shares[index - 1];
    r.Expect(SameBytes(share.signing_share().Encode().Expose(), want), tag + ": share differs");
    r.Expect(share.Verify().ok(), tag + ": vss_verify rejects the share");
  }

  // Round one: nonces from the given randomness, and their commitments.
  const json& round_one = file["round_one_outputs"]["outputs"];
  std::vector<Signer> signers;
  std::vector<frost::KeyPackage<S>> keys;
  std::vector<frost::SigningNonces<S>> nonces;
  std::vector<frost::SigningCommitments<S>> commitments;
  for (const json& o : round_one) {
    VEIL_ASSIGN_OR_RETURN(const auto x_id, IdField(o));
    const frost::Identifier& id = x_id.second;
    const std::uint64_t index = x_id.first;
    if (index == 0 || index > dealer->shares.size()) return InvalidArgument("signer out of range");
    VEIL_ASSIGN_OR_RETURN(frost::KeyPackage<S> key, dealer->shares[index - 1].Verify());
    VEIL_ASSIGN_OR_RETURN(auto hiding_rand, Bytes32Field(o, "hiding_nonce_randomness"));
    VEIL_ASSIGN_OR_RETURN(auto binding_rand, Bytes32Field(o, "binding_nonce_randomness"));
    frost::SigningNonces<S> nc = frost::CommitWithRandomness(key, hiding_rand, binding_rand);
    const std::string tag = "signer " + id.ToString();
    const ec::Scalar::Bytes hiding_nonce = nc.ExposeHidingNonce().ToBytes();
    const ec::Scalar::Bytes binding_nonce = nc.ExposeBindingNonce().ToBytes();
    const std::pair<const char*, ByteView> checks[] = {
        {"hiding_nonce", hiding_nonce},
        {"binding_nonce", binding_nonce},
        {"hiding_nonce_commitment", nc.commitments().hiding().Encode()},
        {"binding_nonce_commitment", nc.commitments().binding().Encode()},
    };
    for (const auto& [field, got] : checks) {
      VEIL_ASSIGN_OR_RETURN(Bytes want, HexField(o, field));
      r.Expect(SameBytes(got, want), tag + ": " + field + " differs");
    }
    signers.push_back({id, &o});
    commitments.push_back(nc.commitments());
    keys.push_back(std::move(key));
    nonces.push_back(std::move(nc));
  }
  VEIL_ASSIGN_OR_RETURN(frost::SigningPackage<S> package,
                        frost::SigningPackage<S>::Create(commitments, message));

  // Binding factors (sec. 4.4) and the group commitment (sec. 4.5).
  const std::vector<ec::Scalar> factors =
      frost::spec::BindingFactors(group.verifying_key(), package);
  for (const Signer& s : signers) {
    const std::string tag = "signer " + s.id.ToString();
    const auto& list = package.commitments();
    std::size_t i = 0;
    while (i < list.size() && !(list[i].identifier() == s.id)) ++i;
    if (s.entry->contains("binding_factor_input")) {
      VEIL_ASSIGN_OR_RETURN(Bytes want, HexField(*s.entry, "binding_factor_input"));
      r.Expect(
          SameBytes(frost::spec::BindingFactorInput(group.verifying_key(), package, s.id), want),
          tag + ": binding_factor_input differs");
    }
    VEIL_ASSIGN_OR_RETURN(Bytes want, HexField(*s.entry, "binding_factor"));
    r.Expect(SameBytes(factors[i].ToBytes(), want), tag + ": binding_factor differs");
  }
  VEIL_ASSIGN_OR_RETURN(Bytes sig_want, HexField(file["final_output"], "sig"));
  if (sig_want.size() != frost::kSignatureSize) return InvalidArgument("sig is not 64 bytes");
  const auto group_commitment = frost::GroupElement<S>::FromPoint(
      frost::spec::GroupCommitment(package, std::span<const ec::Scalar>(factors)));
  r.Expect(
      group_commitment.ok() && SameBytes(group_commitment->Encode(), ByteView(sig_want).first(32)),
      "group commitment differs from the signature's R");

  // Round two: the signature shares, each also checked by verify_signature_share.
  std::vector<frost::SignatureShare<S>> shares;
  const json& round_two = file["round_two_outputs"]["outputs"];
  for (std::size_t k = 0; k < signers.size(); ++k) {
    const std::string tag = "signer " + signers[k].id.ToString();
    auto share = frost::Sign(package, std::move(nonces[k]), keys[k]);
    if (!share.ok()) {
      r.Fail(tag + ": sign: " + share.status().ToString());
      continue;
    }
    std::optional<Bytes> want;
    for (const json& o : round_two) {
      VEIL_ASSIGN_OR_RETURN(const auto x_id, IdField(o));
      if (x_id.second == signers[k].id) {
        VEIL_ASSIGN_OR_RETURN(Bytes b, HexField(o, "sig_share"));
        want = b;
      }
    }
    r.Expect(want && SameBytes(share->z().ToBytes(), *want), tag + ": sig_share differs");
    r.Expect(frost::VerifySignatureShare(package, *share, group).ok(),
             tag + ": verify_signature_share rejects the share");
    shares.push_back(*share);
  }

  // Aggregation and verification.
  auto sig = frost::Aggregate<S>(package, shares, group);
  if (!sig.ok()) {
    r.Fail("aggregate: " + sig.status().ToString() +
           (sig.culprit() ? " (" + sig.culprit()->ToString() + ")" : ""));
    return Status::Ok();
  }
  const auto sig_bytes = sig->Encode();
  r.Expect(SameBytes(sig_bytes, sig_want), "final signature differs");
  r.Expect(frost::Verify<S>(group_key_want, message, sig_want).ok(),
           "the final signature does not verify");
  if constexpr (std::is_same_v<S, frost::Ed25519Sha512>) {
    r.Expect(crypto::Ed25519Verify(group_key_want, message, sig_want).ok(),
             "libsodium's Ed25519 rejects the final signature");
  }
  return Status::Ok();
}

}  // namespace

Result<Report> RunFrostVectors(const json& file) {
  if (!file.is_object() || !file.contains("config") || !file.contains("inputs") ||
      !file.contains("round_one_outputs") || !file.contains("round_two_outputs") ||
      !file.contains("final_output")) {
    return InvalidArgument("not a FROST vector file (RFC 9591 Appendix E layout)");
  }
  const std::string group = file["config"].value("group", "");
  const std::string hash = file["config"].value("hash", "");
  Report r;
  if (group == "ristretto255" && hash == "SHA-512") {
    r.algorithm = std::string(frost::Ristretto255Sha512::kName);
    VEIL_RETURN_IF_ERROR(RunSuite<frost::Ristretto255Sha512>(file, r));
  } else if (group == "ed25519" && hash == "SHA-512") {
    r.algorithm = std::string(frost::Ed25519Sha512::kName);
    VEIL_RETURN_IF_ERROR(RunSuite<frost::Ed25519Sha512>(file, r));
  } else {
    return InvalidArgument("unsupported FROST ciphersuite: " + group + ", " + hash);
  }
  return r;
}

}  // namespace veil::vectors
