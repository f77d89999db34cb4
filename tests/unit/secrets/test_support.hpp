// Helpers shared by the secrets tests: specs with secrets, a fake
// environment, a temporary secrets directory.
#pragma once

#include "osf/spec.hpp"
#include "secrets/secret_store.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

namespace secrets_test {

inline osf::SecretRef ref(osf::SecretRef::Kind kind, const std::string& target) {
    const char* prefix = kind == osf::SecretRef::Kind::Env    ? "ref:env/"
                         : kind == osf::SecretRef::Kind::File ? "ref:file/"
                                                              : "ref:openbao/";
    return osf::SecretRef{kind, target, prefix + target};
}

inline osf::Spec spec_with(std::map<std::string, osf::SecretRef> secrets) {
    osf::Spec spec;
    spec.template_name = "node:24-alpine";
    spec.secrets = std::move(secrets);
    return spec;
}

inline osf::secrets::SourceEnvironment fake_env(std::map<std::string, std::string> variables,
                                                std::string secrets_dir = "/nonexistent") {
    osf::secrets::SourceEnvironment env;
    env.getenv = [variables =
                      std::move(variables)](const std::string& name) -> std::optional<std::string> {
        const auto it = variables.find(name);
        if (it == variables.end()) return std::nullopt;
        return it->second;
    };
    env.secrets_dir = std::move(secrets_dir);
    return env;
}

// A directory under the system temporary directory, removed at the end.
class TempDir {
public:
    TempDir() {
        std::random_device random;
        path_ = std::filesystem::temp_directory_path() /
                ("osf-secrets-test-" + std::to_string(random()) + std::to_string(random()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string path() const { return path_.string(); }
    void write(const std::string& name, const std::string& content) const {
        std::ofstream(path_ / name, std::ios::binary) << content;
    }

private:
    std::filesystem::path path_;
};

} // namespace secrets_test
