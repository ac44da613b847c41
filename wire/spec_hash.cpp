// SHA-256 of bytes and of the deterministically serialised spec, by OpenSSL's EVP interface.
#include "nhsim/wire/spec_hash.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace nhsim::wire {

namespace {

std::string to_hex(const unsigned char* digest, unsigned int length) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace

struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
};

Sha256::Sha256() : context_(new Context) {
  if (context_->md == nullptr || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(context_->md);
    delete context_;
    throw std::runtime_error("SHA-256 failed");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(context_->md);
  delete context_;
}

void Sha256::update(std::string_view bytes) {
  if (EVP_DigestUpdate(context_->md, bytes.data(), bytes.size()) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
}

std::string Sha256::hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_->md, digest.data(), &length) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return to_hex(digest.data(), length);
}

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return to_hex(digest.data(), length);
}

std::string spec_sha256(const v1::SubmitEnsembleRequest& spec) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!spec.SerializeToCodedStream(&coded)) throw std::runtime_error("spec serialisation failed");
  }  // the coded stream flushes into `bytes` when destroyed
  return sha256_hex(bytes);
}

}  // namespace nhsim::wire
