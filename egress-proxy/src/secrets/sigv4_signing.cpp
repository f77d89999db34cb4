#include "secrets/sigv4_signing.hpp"

#include <algorithm>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

namespace osf::secrets::sigv4 {

namespace {

bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

// Trimmed, inner runs of spaces and tabs made one space.
std::string header_value(std::string_view value) {
    std::string out;
    bool pending_space = false;
    for (const char c : value) {
        if (is_space(c)) {
            pending_space = !out.empty();
            continue;
        }
        if (pending_space) out += ' ';
        pending_space = false;
        out += c;
    }
    return out;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    });
    return out;
}

} // namespace

std::string hex(std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string sha256_hex(std::string_view data) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
    return hex(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length);
    return std::string(reinterpret_cast<const char*>(out), length);
}

std::string signing_key(std::string_view secret_access_key, const Scope& scope) {
    std::string key = "AWS4";
    key += secret_access_key;
    std::string derived = hmac_sha256(key, scope.date);
    OPENSSL_cleanse(key.data(), key.size());
    derived = hmac_sha256(derived, scope.region);
    derived = hmac_sha256(derived, scope.service);
    return hmac_sha256(derived, "aws4_request");
}

std::string signature(std::string_view signing_key, std::string_view string_to_sign) {
    return hex(hmac_sha256(signing_key, string_to_sign));
}

std::string uri_encode(std::string_view text, bool keep_slash) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const unsigned char c : text) {
        if (unreserved(c) || (keep_slash && c == '/')) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 15];
        }
    }
    return out;
}

std::string percent_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
            hex_value(text[i + 2]) >= 0) {
            out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string canonical_uri(std::string_view wire_path, bool encode_again) {
    if (wire_path.empty()) return "/";
    return encode_again ? uri_encode(wire_path, true) : std::string(wire_path);
}

std::string canonical_query(std::string_view query, std::string_view drop) {
    std::vector<std::pair<std::string, std::string>> pairs;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) continue;
        const auto eq = pair.find('=');
        const std::string name = percent_decode(pair.substr(0, eq));
        if (!drop.empty() && name == drop) continue;
        const std::string value =
            eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1));
        pairs.emplace_back(uri_encode(name, false), uri_encode(value, false));
    }
    std::sort(pairs.begin(), pairs.end());
    std::string out;
    for (const auto& [name, value] : pairs) {
        if (!out.empty()) out += '&';
        out += name;
        out += '=';
        out += value;
    }
    return out;
}

bool canonical_headers(std::span<const Field> fields, std::span<const std::string> signed_names,
                       std::string& out) {
    out.clear();
    for (const auto& name : signed_names) {
        std::string joined;
        bool found = false;
        for (const auto& [field, value] : fields) {
            if (lower(field) != name) continue;
            if (found) joined += ',';
            joined += header_value(value);
            found = true;
        }
        if (!found) return false;
        out += name;
        out += ':';
        out += joined;
        out += '\n';
    }
    return true;
}

std::string canonical_request(std::string_view method, std::string_view canonical_uri,
                              std::string_view canonical_query, std::string_view canonical_headers,
                              std::string_view signed_headers, std::string_view payload_hash) {
    std::string out;
    out.reserve(method.size() + canonical_uri.size() + canonical_query.size() +
                canonical_headers.size() + signed_headers.size() + payload_hash.size() + 8);
    out.append(method).append("\n");
    out.append(canonical_uri).append("\n");
    out.append(canonical_query).append("\n");
    out.append(canonical_headers).append("\n");
    out.append(signed_headers).append("\n");
    out.append(payload_hash);
    return out;
}

std::string string_to_sign(std::string_view amz_date, const Scope& scope,
                           std::string_view canonical_request) {
    std::string out(algorithm);
    out.append("\n").append(amz_date).append("\n").append(scope.text()).append("\n");
    out += sha256_hex(canonical_request);
    return out;
}

std::string chunk_string_to_sign(std::string_view amz_date, const Scope& scope,
                                 std::string_view previous_signature, std::string_view chunk_hash) {
    std::string out = "AWS4-HMAC-SHA256-PAYLOAD\n";
    out.append(amz_date).append("\n").append(scope.text()).append("\n");
    out.append(previous_signature).append("\n");
    out.append(empty_payload_hash).append("\n");
    out.append(chunk_hash);
    return out;
}

bool same_signature(std::string_view a, std::string_view b) {
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace osf::secrets::sigv4
