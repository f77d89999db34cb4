#include "ca/name_constraints.hpp"

#include "ca/openssl_support.hpp"

#include <array>

namespace osf::ca::detail {
namespace {

// An iPAddress subtree is the address followed by its mask (RFC 5280).
GENERAL_NAME* single_address_subtree_name(const ASN1_OCTET_STRING* address) {
    int length = ASN1_STRING_length(address);
    std::array<unsigned char, 32> bytes{};
    const unsigned char* data = ASN1_STRING_get0_data(address);
    for (int i = 0; i < length; ++i) {
        bytes[static_cast<std::size_t>(i)] = data[i];
        bytes[static_cast<std::size_t>(length + i)] = 0xff;
    }
    ASN1_OCTET_STRING* value = ASN1_OCTET_STRING_new();
    GENERAL_NAME* general = GENERAL_NAME_new();
    if (!value || !general || !ASN1_OCTET_STRING_set(value, bytes.data(), 2 * length)) {
        ASN1_OCTET_STRING_free(value);
        GENERAL_NAME_free(general);
        throw_openssl_error("iPAddress subtree");
    }
    GENERAL_NAME_set0_value(general, GEN_IPADD, value);
    return general;
}

void permit(NAME_CONSTRAINTS* constraints, GENERAL_NAME* name) {
    GENERAL_SUBTREE* subtree = GENERAL_SUBTREE_new();
    if (!subtree) {
        GENERAL_NAME_free(name);
        throw_openssl_error("GENERAL_SUBTREE_new");
    }
    GENERAL_NAME_free(subtree->base);
    subtree->base = name;
    if (!sk_GENERAL_SUBTREE_push(constraints->permittedSubtrees, subtree)) {
        GENERAL_SUBTREE_free(subtree);
        throw_openssl_error("permittedSubtrees");
    }
}

} // namespace

void add_name_constraints(X509* certificate, const std::vector<std::string>& names) {
    NameConstraintsPtr constraints(NAME_CONSTRAINTS_new());
    if (!constraints) throw_openssl_error("NAME_CONSTRAINTS_new");
    constraints->permittedSubtrees = sk_GENERAL_SUBTREE_new_null();
    if (!constraints->permittedSubtrees) throw_openssl_error("sk_GENERAL_SUBTREE_new_null");

    bool any_address = false;
    for (const std::string& name : names) {
        GENERAL_NAME* general = make_general_name(name);
        if (general->type == GEN_IPADD) {
            any_address = true;
            GENERAL_NAME* subtree_name = nullptr;
            try {
                subtree_name = single_address_subtree_name(general->d.iPAddress);
            } catch (...) {
                GENERAL_NAME_free(general);
                throw;
            }
            GENERAL_NAME_free(general);
            permit(constraints.get(), subtree_name);
        } else {
            permit(constraints.get(), general);
        }
    }
    if (!any_address) {
        for (const char* nothing : {"0.0.0.0", "::"}) {
            GENERAL_NAME* general = make_general_name(nothing);
            GENERAL_NAME* subtree_name = single_address_subtree_name(general->d.iPAddress);
            GENERAL_NAME_free(general);
            permit(constraints.get(), subtree_name);
        }
    }
    if (!X509_add1_ext_i2d(certificate, NID_name_constraints, constraints.get(), 1,
                           X509V3_ADD_DEFAULT))
        throw_openssl_error("nameConstraints");
}

} // namespace osf::ca::detail
