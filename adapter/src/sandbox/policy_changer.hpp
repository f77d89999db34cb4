// allow and revoke: changing what a running sandbox may reach. The edit is
// osf/policy_edit.hpp's (the spec's grammar, the same validator); a backend
// stores the changed spec (what a restart or resume starts from) and has the
// sandbox's egress proxy apply it (its admin port's POST /policy).
#pragma once

#include "osf/policy_edit.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace osf::sandbox {

struct PolicyChangeResult {
    std::vector<std::string> changed;   // entries and server:tools the edit changed
    std::vector<std::string> unchanged; // already so (allow of an allowed entry)
    std::uint64_t generation = 0;       // the proxy's policy number after it (0: none)
    bool live = false;                  // applied by a running proxy (false: stored for resume)
};

class PolicyChanger {
public:
    virtual ~PolicyChanger() = default;
    // `by` names who asks (in the egress log's policy line). UsageError for an
    // edit that does not apply (each entry's problem named); CommandFailed
    // when the sandbox does not exist or its proxy refuses.
    virtual PolicyChangeResult change_policy(const std::string& id,
                                             const osf::policy_edit::Edit& edit,
                                             const std::string& by) = 0;
};

} // namespace osf::sandbox
