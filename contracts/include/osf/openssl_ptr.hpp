// One owner for OpenSSL's C objects: std::unique_ptr with the object's own
// free function as its deleter, e.g. OpenSslPtr<BIO, BIO_free>. Shared by the
// proxy (ca/, log/) and the egress log's chain (contracts/egress_log/).
// No OpenSSL header here: the free function names the type.
#pragma once

#include <memory>

namespace osf {

template <auto Free> struct OpenSslDeleter {
    template <class T> void operator()(T* object) const { Free(object); }
};

template <class T, auto Free> using OpenSslPtr = std::unique_ptr<T, OpenSslDeleter<Free>>;

} // namespace osf
